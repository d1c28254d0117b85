package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import org.junit.jupiter.api.Test;

/**
 * A builder may be changed and built again: each {@code build()} checks and takes the settings as
 * they are then, and a sender already built keeps the ones it was built with.
 */
class BuilderReuseTest {

    @Test
    void shouldBuildASecondCompressingSenderWithADictionaryFromTheSameBuilder() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "inproc");
            CompressingSender.Builder b = CompressingSender.builder(push);
            try (CompressingSender plain = b.build();
                 CompressingSender withDictionary = b.dictionary(Fixtures.dictionary()).build()) {
                assertEquals(CompressingSender.DEFAULT_RAW_FRAME_BELOW_BYTES, plain.rawFrameBelowBytes());
                assertEquals(0, withDictionary.rawFrameBelowBytes(), "the default for a dictionary, not the first build's");
            }
        }
    }

    @Test
    void shouldBuildASecondParallelSenderWithAChecksumFromTheSameBuilder() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "inproc");
            ParallelCompressingSender.Builder b = ParallelCompressingSender.builder(push).workers(1);
            try (ParallelCompressingSender plain = b.build()) {
                assertTrue(plain.rawIncompressible());
            }
            try (ParallelCompressingSender checked = b.checksum(true).build()) {
                assertEquals(0, checked.rawFrameBelowBytes());
                assertEquals(false, checked.rawIncompressible());
            }
        }
    }

    /**
     * Setting a builder after build() changed the sender built from it (they shared one set of
     * frame settings), past the checks build() makes: here raw frames for every payload of a
     * sender built with a dictionary, whose frames then named no dictionary.
     */
    @Test
    void shouldLeaveABuiltSenderAsItWasWhenItsBuilderChanges() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            CompressingSender.Builder b = CompressingSender.builder(push).dictionary(Fixtures.dictionary());
            ParallelCompressingSender.Builder pb = ParallelCompressingSender.builder(push).workers(1).zeroCopyThresholdBytes(1 << 20);
            byte[] data = Fixtures.payload(1000, 7);
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                try (CompressingSender sender = b.build()) {
                    b.rawFrameBelowBytes(1 << 20).zeroCopyThresholdBytes(1 << 30);
                    assertEquals(0, sender.rawFrameBelowBytes());
                    assertTrue(sender.zeroCopyThresholdBytes() < 1 << 30, () -> "threshold=" + sender.zeroCopyThresholdBytes());
                    assertTrue(sender.send(data, 0));
                }
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0), "compressed with the dictionary");
                assertEquals(BadFrameReason.DICTIONARY_MISSING, receiver.lastErrorReason(), receiver::lastErrorMessage);
                try (ParallelCompressingSender sender = pb.build()) {
                    pb.zeroCopyThresholdBytes(1 << 30).rawFrameBelowBytes(5000);
                    assertEquals(1 << 20, sender.zeroCopyThresholdBytes());
                    assertEquals(CompressingSender.DEFAULT_RAW_FRAME_BELOW_BYTES, sender.rawFrameBelowBytes());
                    assertTrue(sender.send(data, 0));
                    sender.flush();
                }
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(data, receiver.message().partBytes(0));
            }
        }
    }
}
