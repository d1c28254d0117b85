package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.util.List;
import org.junit.jupiter.api.AfterAll;

/**
 * Fuzzes the whole receive path: the input is cut into 1-4 parts ({@link PartSplitter}), sent raw
 * (no compression) as one multipart message over a real inproc socket pair, and received by a
 * {@link DecompressingReceiver} with a 64 KiB limit. The pair is chosen by the input
 * ({@link PartSplitter#route}): PUSH to PULL (no envelope), DEALER to ROUTER (libzmq prepends a
 * routing id, one envelope part) or PUB to SUB (the first part is the topic, one envelope part).
 * The only acceptable outcomes: RECEIVED with every envelope part as sent and every other part
 * within the limit, or BAD_FRAME with a reason. Nothing may escape, the JVM must not crash, and
 * the pool must not leak.
 */
class MultipartReceiveFuzzTest {

    static final long LIMIT = 64 * 1024;

    private static final ZmqContext CONTEXT = new ZmqContext();

    /** One sending socket and the receiver on its peer; {@code addedParts} are parts libzmq prepends. */
    private record Route(ZmqSocket out, ZmqSocket in, DecompressingReceiver receiver, int addedParts) {

        static Route of(SocketType outType, SocketType inType, String name, int addedParts) {
            ZmqSocket in = CONTEXT.socket(inType);
            ZmqSocket out = CONTEXT.socket(outType);
            in.bind("inproc://fuzz-" + name);
            out.connect("inproc://fuzz-" + name);
            in.receiveTimeoutMs(5000);
            if (inType == SocketType.SUB) {
                in.subscribe("");
                awaitSubscription(out, in);
            }
            return new Route(out, in, DecompressingReceiver.builder(in).maxDecompressedSize(LIMIT)
                    .dictionary(Frames.dictionary()).build(), addedParts);
        }

        /** PUB drops until the subscription has arrived: probe until one gets through, then drain. */
        private static void awaitSubscription(ZmqSocket pub, ZmqSocket sub) {
            sub.receiveTimeoutMs(50);
            long deadline = System.nanoTime() + 30_000_000_000L;
            do {
                assertTrue(System.nanoTime() < deadline, "SUB never received a probe");
                pub.send("probe", 0);
            } while (sub.receiveBytes(0) == null);
            while (sub.receiveBytes(ZmqSocket.DONTWAIT) != null) {
                // probes sent while the first was on its way
            }
            sub.receiveTimeoutMs(5000);
        }
    }

    /** Indexed by {@link PartSplitter#route}. */
    private static final List<Route> ROUTES = List.of(
            Route.of(SocketType.PUSH, SocketType.PULL, "push-pull", 0),
            Route.of(SocketType.DEALER, SocketType.ROUTER, "dealer-router", 1),
            Route.of(SocketType.PUB, SocketType.SUB, "pub-sub", 0));

    @AfterAll
    static void close() {
        ROUTES.forEach(r -> r.receiver().close());
        CONTEXT.close();
        assertEquals(0, CONTEXT.bufferPool().outstanding(), "pool outstanding after close");
    }

    @FuzzTest(maxDuration = "20s")
    void shouldReceiveOrRejectAnyMessage(byte[] input) {
        byte[][] parts = PartSplitter.split(input);
        Route route = ROUTES.get(PartSplitter.route(input));
        for (int i = 0; i < parts.length; i++) {
            assertTrue(route.out().send(parts[i], i < parts.length - 1 ? ZmqSocket.SNDMORE : 0));
        }
        DecompressingReceiver receiver = route.receiver();
        int status = receiver.receive(0);
        switch (status) {
            case DecompressingReceiver.RECEIVED -> {
                ReceivedMessage m = receiver.message();
                int added = route.addedParts();
                assertEquals(parts.length + added, m.parts());
                for (int i = 0; i < receiver.envelopeParts(); i++) {
                    assertFalse(m.isCompressed(i), "envelope part " + i + " is passed through, not decompressed");
                }
                for (int i = 0; i < m.parts(); i++) {
                    long size = m.partSize(i);
                    if (m.isCompressed(i)) {
                        assertTrue(size >= 0 && size <= LIMIT, "part=" + i + " size=" + size);
                    } else if (i >= added) {
                        assertArrayEquals(parts[i - added], m.partBytes(i), "envelope part passes through unchanged");
                    }
                }
            }
            case DecompressingReceiver.BAD_FRAME -> {
                assertNotNull(receiver.lastErrorReason());
                assertTrue(receiver.lastErrorPart() >= route.addedParts()
                        && receiver.lastErrorPart() < parts.length + route.addedParts(), "part=" + receiver.lastErrorPart());
            }
            default -> fail("status=" + status + ": the message was sent, so it must be delivered or refused");
        }
        // The receiver drained the whole message: nothing is left over for the next input.
        assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT));
        // Plain sends copy; nothing of ours is rented, so the pool stays empty.
        assertEquals(0, CONTEXT.bufferPool().outstanding());
    }
}
