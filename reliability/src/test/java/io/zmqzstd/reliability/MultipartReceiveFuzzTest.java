package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.AfterAll;

/**
 * Fuzzes the whole receive path: the input is cut into 1-4 parts ({@link PartSplitter}), sent raw
 * (no compression) as one multipart message over a real inproc PUSH/PULL pair, and received by a
 * {@link DecompressingReceiver} with a 64 KiB limit. The only acceptable outcomes: RECEIVED with
 * every part within the limit, or BAD_FRAME with a reason. Nothing may escape, the JVM must not
 * crash, and the pool must not leak.
 */
class MultipartReceiveFuzzTest {

    static final long LIMIT = 64 * 1024;

    private static final ZmqContext CONTEXT = new ZmqContext();
    private static final ZmqSocket PULL = CONTEXT.socket(SocketType.PULL);
    private static final ZmqSocket PUSH = CONTEXT.socket(SocketType.PUSH);
    private static final DecompressingReceiver RECEIVER;

    static {
        PULL.bind("inproc://fuzz-multipart");
        PUSH.connect("inproc://fuzz-multipart");
        PULL.receiveTimeoutMs(5000);
        RECEIVER = DecompressingReceiver.builder(PULL).maxDecompressedSize(LIMIT)
                .dictionary(Frames.dictionary()).build();
    }

    @AfterAll
    static void close() {
        RECEIVER.close();
        CONTEXT.close();
        assertEquals(0, CONTEXT.bufferPool().outstanding(), "pool outstanding after close");
    }

    @FuzzTest(maxDuration = "20s")
    void shouldReceiveOrRejectAnyMessage(byte[] input) {
        byte[][] parts = PartSplitter.split(input);
        for (int i = 0; i < parts.length; i++) {
            assertTrue(PUSH.send(parts[i], i < parts.length - 1 ? ZmqSocket.SNDMORE : 0));
        }
        int status = RECEIVER.receive(0);
        switch (status) {
            case DecompressingReceiver.RECEIVED -> {
                ReceivedMessage m = RECEIVER.message();
                assertEquals(parts.length, m.parts());
                for (int i = 0; i < m.parts(); i++) {
                    long size = m.partSize(i);
                    assertTrue(size >= 0 && size <= LIMIT, "part=" + i + " size=" + size);
                    if (!m.isCompressed(i)) {
                        assertEquals(parts[i].length, size, "envelope part passes through unchanged");
                    }
                }
            }
            case DecompressingReceiver.BAD_FRAME -> {
                assertNotNull(RECEIVER.lastErrorReason());
                assertTrue(RECEIVER.lastErrorPart() >= 0 && RECEIVER.lastErrorPart() < parts.length);
            }
            default -> fail("status=" + status + ": the message was sent, so it must be delivered or refused");
        }
        // The receiver drained the whole message: nothing is left over for the next input.
        assertEquals(DecompressingReceiver.WOULD_BLOCK, RECEIVER.receive(ZmqSocket.DONTWAIT));
        // Plain sends copy; nothing of ours is rented, so the pool stays empty.
        assertEquals(0, CONTEXT.bufferPool().outstanding());
    }
}
