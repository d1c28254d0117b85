package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.ZstdDecompressor;
import io.zmqzstd.codec.ZstdException;
import io.zmqzstd.pipeline.BadFrameReason;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Fuzzing finding (FrameDecodeFuzzTest, seed "two-frames"): a part made of two frames back to
 * back. The wire rule is one frame per part, and a frame's header is what the limit check and
 * the output sizing trust; but ZSTD_decompressDCtx decodes every frame in its input, so the codec
 * returned more bytes than the header declared. The codec now refuses bytes after the first frame
 * (CORRUPT), and the receiver never delivered such a part.
 */
class ConcatenatedFramesTest {

    private static final byte[] FRAME = Frames.sized(Frames.text(64, 2), 3);
    private static final byte[] TWO_FRAMES = Frames.concat(FRAME, FRAME);

    @Test
    void shouldRefuseBytesAfterTheFirstFrameInTheCodec() {
        try (Arena arena = Arena.ofConfined(); ZstdDecompressor d = new ZstdDecompressor()) {
            MemorySegment src = arena.allocate(TWO_FRAMES.length);
            MemorySegment.copy(MemorySegment.ofArray(TWO_FRAMES), 0, src, 0, TWO_FRAMES.length);
            MemorySegment dst = arena.allocate(1024);
            ZstdException e = assertThrows(ZstdException.class, () -> d.decompress(src, dst),
                    "a part holding two frames decodes as one payload of both");
            // The fix's own refusal, not some other failure on the way (reliability/README.md, Findings).
            assertEquals(ZstdException.Reason.CORRUPT, e.reason(), e::getMessage);
            assertTrue(e.getMessage().contains("bytes after the frame"), e.getMessage());
        }
    }

    @Test
    void shouldNeverDeliverTwoFramesAsOnePayloadWhenTheFirstDeclaresItsSize() {
        try (ZmqContext context = new ZmqContext();
             ZmqSocket pull = context.socket(SocketType.PULL);
             ZmqSocket push = context.socket(SocketType.PUSH)) {
            pull.bind("inproc://two-frames");
            push.connect("inproc://two-frames");
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                push.send(TWO_FRAMES, 0);
                // The receiver sizes its output from the first header (64 bytes), so the second
                // frame does not fit and the part is refused rather than delivered as 128 bytes.
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                assertEquals(BadFrameReason.CORRUPT, receiver.lastErrorReason(), receiver::lastErrorMessage);
                push.send(FRAME, 0);
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertEquals(64, receiver.message().partSize(0));
            }
        }
    }
}
