package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * ZMTP 3.0 written by hand, for raw peers (RFC 23/ZMTP): a greeting is 64 bytes (signature FF, 8
 * padding bytes, 7F; version 3.0; a 20-byte mechanism name; as-server; filler); after it come
 * frames of flags (bit 0 MORE, bit 1 LONG, bit 2 COMMAND) and a size of 1 byte or, when LONG, 8
 * bytes big-endian, then the body.
 */
final class Zmtp {

    static final int MORE = 0x01;
    static final int LONG = 0x02;
    static final int COMMAND = 0x04;

    private Zmtp() {
    }

    /** The 64-byte greeting for {@code mechanism} (NULL, PLAIN, CURVE), as a client. */
    static byte[] greeting(String mechanism) {
        ByteBuffer greeting = ByteBuffer.allocate(64);
        greeting.put((byte) 0xFF).put(new byte[8]).put((byte) 0x7F).put((byte) 3).put((byte) 0);
        greeting.put(Arrays.copyOf(mechanism.getBytes(StandardCharsets.US_ASCII), 20));
        return greeting.array();
    }

    /** One message frame holding {@code body}, LONG when it is over 255 bytes. */
    static byte[] part(byte[] body, boolean more) {
        return frame(more ? MORE : 0, body);
    }

    /** A command frame: the name's length, the name, then {@code body}. */
    static byte[] command(String name, byte[] body) {
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        return frame(COMMAND, Frames.concat(new byte[] {(byte) n.length}, n, body));
    }

    /**
     * READY's properties: each a 1-byte name length, the name, a 4-byte value length and the value;
     * {@code namesAndValues} alternates names and values.
     */
    static byte[] properties(byte[]... namesAndValues) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            out.write(namesAndValues[i].length);
            out.writeBytes(namesAndValues[i]);
            out.writeBytes(ByteBuffer.allocate(4).putInt(namesAndValues[i + 1].length).array());
            out.writeBytes(namesAndValues[i + 1]);
        }
        return out.toByteArray();
    }

    /** The NULL mechanism's READY command naming {@code socketType}, then {@code moreProperties}. */
    static byte[] ready(String socketType, byte[] moreProperties) {
        return command("READY", Frames.concat(properties(ascii("Socket-Type"), ascii(socketType)), moreProperties));
    }

    /** A greeting for NULL and a READY naming {@code socketType}: what a ZeroMQ peer sends first. */
    static byte[] greetingAndReady(String socketType) {
        return Frames.concat(greeting("NULL"), ready(socketType, new byte[0]));
    }

    /** A frame's header alone, declaring {@code size} bytes with {@code flags} (LONG added). */
    static byte[] longHeader(int flags, long size) {
        return ByteBuffer.allocate(9).put((byte) (flags | LONG)).putLong(size).array();
    }

    /** Reads the peer's greeting and its READY command, so that a close leaves nothing unread (FIN, not RST). */
    static void readGreetingAndReady(DataInputStream in) throws IOException {
        byte[] greeting = new byte[64];
        in.readFully(greeting);
        assertEquals((byte) 0xFF, greeting[0], "ZMTP signature");
        assertEquals(3, greeting[10], "ZMTP major version");
        int flags = in.readUnsignedByte();
        assertEquals(COMMAND, flags, "a short command, READY");
        byte[] command = new byte[in.readUnsignedByte()];
        in.readFully(command);
        assertEquals("READY", new String(command, 1, command[0], StandardCharsets.US_ASCII));
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] frame(int flags, byte[] body) {
        boolean isLong = body.length > 255;
        ByteBuffer b = ByteBuffer.allocate((isLong ? 9 : 2) + body.length);
        b.put((byte) (flags | (isLong ? LONG : 0)));
        if (isLong) {
            b.putLong(body.length);
        } else {
            b.put((byte) body.length);
        }
        return b.put(body).array();
    }
}
