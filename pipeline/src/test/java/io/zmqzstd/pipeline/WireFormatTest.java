package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdFrames;
import io.zmqzstd.transport.SocketType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The constants and defaults {@link WireFormat} publishes are the ones the drawn layout states. */
class WireFormatTest {

    @Test
    void shouldStateTheFrameBoundsOfRfc8878() {
        assertEquals(ZstdFrames.MAGIC, WireFormat.ZSTD_MAGIC);
        assertArrayEquals(new byte[] {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD},
                ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(WireFormat.ZSTD_MAGIC).array());
        // the frame of an empty payload, raw or compressed, is the smallest frame: never a 0-byte part
        assertEquals(WireFormat.MIN_FRAME_BYTES, ZstdFrames.rawFrameSize(0));
        try (ZstdCompressor compressor = new ZstdCompressor(3)) {
            assertEquals(WireFormat.MIN_FRAME_BYTES, compressor.compress(new byte[0]).length);
        }
        // magic, descriptor, window descriptor, 4-byte dictionary ID, 8-byte content size
        assertEquals(4 + 1 + 1 + 4 + 8, WireFormat.MAX_FRAME_HEADER_BYTES);
    }

    @Test
    void shouldExpectOneEnvelopePartOnRouterSubAndXsubOnly() {
        EnumSet<SocketType> withEnvelope = EnumSet.of(SocketType.ROUTER, SocketType.SUB, SocketType.XSUB);
        for (SocketType type : SocketType.values()) {
            assertEquals(withEnvelope.contains(type) ? 1 : 0, WireFormat.defaultEnvelopeParts(type), type.name());
        }
    }
}
