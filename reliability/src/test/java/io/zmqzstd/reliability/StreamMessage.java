package io.zmqzstd.reliability;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The sequenced, checksummed payload the fault tests stream:
 *
 * <pre>
 *   0  sender id   4 bytes  (tells a restarted sender from the old one)
 *   4  sequence    8 bytes  (1, 2, 3, ... per sender)
 *   12 CRC32C      4 bytes  of bytes [16, end)
 *   16 body        text derived from (sender, sequence)
 * </pre>
 */
final class StreamMessage {

    static final int HEADER_BYTES = 16;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private StreamMessage() {
    }

    /** Writes message ({@code sender}, {@code seq}) of {@code size} bytes into {@code out[0, size)}. */
    static void write(MemorySegment out, int size, int sender, long seq) {
        write(out, sender, seq, Frames.text(size - HEADER_BYTES, seed(sender, seq)));
    }

    /** {@link #write} with a random body: zstd cannot shrink it, so it costs its full size on the wire. */
    static void writeIncompressible(MemorySegment out, int size, int sender, long seq) {
        write(out, sender, seq, Frames.random(size - HEADER_BYTES, seed(sender, seq)));
    }

    private static long seed(int sender, long seq) {
        return sender * 1_000_003L + seq;
    }

    private static void write(MemorySegment out, int sender, long seq, byte[] body) {
        out.set(INT, 0, sender);
        out.set(LONG, 4, seq);
        CRC32C crc = new CRC32C();
        crc.update(body);
        out.set(INT, 12, (int) crc.getValue());
        MemorySegment.copy(body, 0, out, ValueLayout.JAVA_BYTE, HEADER_BYTES, body.length);
    }

    static int sender(MemorySegment m) {
        return m.get(INT, 0);
    }

    static long sequence(MemorySegment m) {
        return m.get(LONG, 4);
    }

    /** True when the checksum matches the body. */
    static boolean intact(MemorySegment m) {
        if (m.byteSize() < HEADER_BYTES) {
            return false;
        }
        CRC32C crc = new CRC32C();
        crc.update(m.asSlice(HEADER_BYTES).asByteBuffer());
        return (int) crc.getValue() == m.get(INT, 12);
    }
}
