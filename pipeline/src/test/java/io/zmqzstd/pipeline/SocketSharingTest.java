package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.ref.Reference;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@link ParallelCompressingSender}'s workers use its socket from threads of their own, at any
 * moment, so a second sender on that socket (another parallel sender, a {@link CompressingSender})
 * overlaps them: the transport refuses the second call inside the socket, and when the refused
 * call is a worker's, that sender fails and drops every message it holds. The builders refuse it,
 * in either order: a parallel sender is not built on a socket an open {@link CompressingSender}
 * uses either.
 */
class SocketSharingTest {

    /**
     * The first sender's worker is blocked in the socket's send (a PUSH with no peer yet); a second
     * sender built on the socket is refused naming the socket and the sender holding it, and the
     * first one's message arrives whole once a peer connects. Once the first is closed, the socket
     * takes a sender again.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "inproc"})
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRefuseASecondSenderOnASocketAParallelSenderHolds(String transport) throws Exception {
        try (NativeBufferPool pool = new NativeBufferPool();
             ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, transport);
            String endpoint = push.lastEndpoint();
            ParallelCompressingSender first = ParallelCompressingSender.builder(push).workers(1).build();
            byte[] data = Fixtures.payload(5_000, 1);
            assertTrue(first.send(data, 0));
            assertTrue(Fixtures.await(() -> Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> Fixtures.insideSocketCall(t, "send")), 10_000), "the worker never reached the socket's send");

            IllegalStateException parallel = assertThrows(IllegalStateException.class,
                    () -> ParallelCompressingSender.builder(push).workers(1).build().close());
            assertTrue(parallel.getMessage().startsWith("socket is in use by an open ParallelCompressingSender: type=PUSH"),
                    parallel::getMessage);
            IllegalStateException plain = assertThrows(IllegalStateException.class,
                    () -> CompressingSender.builder(push).build().close());
            assertTrue(plain.getMessage().startsWith("socket is in use by an open ParallelCompressingSender: type=PUSH"),
                    plain::getMessage);

            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
            pull.connect(endpoint);
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                first.flush();
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(data, receiver.message().partBytes(0));
                assertEquals(1, first.stats().messages());
                assertEquals(0, first.stats().droppedMessages());
                first.close();

                // closed, the first sender lets go of the socket
                try (ParallelCompressingSender second = ParallelCompressingSender.builder(push).workers(1).build()) {
                    assertTrue(second.send(data, 0));
                    second.flush();
                }
                try (CompressingSender third = CompressingSender.builder(push).build()) {
                    assertTrue(third.send(data, 0));
                }
                for (int i = 0; i < 2; i++) {
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                    assertArrayEquals(data, receiver.message().partBytes(0));
                }
            }
            assertEquals(0, pool.outstanding(), () -> pool.stats().toString());
        }
    }

    /**
     * Two {@link CompressingSender}s on one socket, used in turn from one thread, are legal and go
     * on; a parallel sender built on that socket while either is open is refused naming the socket
     * and how many senders use it, and takes the socket once both are closed. Every message of the
     * three senders arrives, in order. Until 2026-11-29 the parallel sender was built, and its
     * workers' sends overlapped the plain senders' calls.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "inproc"})
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRefuseAParallelSenderOnASocketAnOpenCompressingSenderUses(String transport) {
        try (NativeBufferPool pool = new NativeBufferPool();
             ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, transport);
            ZmqSocket push = link.client();
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                CompressingSender a = CompressingSender.builder(push).build();
                CompressingSender b = CompressingSender.builder(push).build();
                assertTrue(a.send(message(1), 0));
                assertTrue(b.send(message(2), 0));
                assertTrue(a.send(message(3), 0));

                assertParallelRefused(push, 2);
                a.close();
                assertParallelRefused(push, 1);
                assertTrue(b.send(message(4), 0), "the sender still open goes on");
                b.close();

                try (ParallelCompressingSender parallel = ParallelCompressingSender.builder(push).workers(1).build()) {
                    assertTrue(parallel.send(message(5), 0));
                    parallel.flush();
                }
                assertArriveInOrder(receiver, 5);
            }
            assertEquals(0, pool.outstanding(), () -> pool.stats().toString());
        }
    }

    /**
     * A {@link CompressingSender} dropped without close holds its socket only until it is
     * collected: its cleaner lets go of it with its memory, and a parallel sender is then built
     * on the socket and sends behind the dropped sender's message.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "inproc"})
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldLetGoOfTheSocketOfACompressingSenderDroppedUnclosedOnceItIsCollected(String transport) {
        try (NativeBufferPool pool = new NativeBufferPool();
             ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, transport);
            ZmqSocket push = link.client();
            CompressingSender dropped = CompressingSender.builder(push).build();
            assertTrue(dropped.send(message(1), 0));
            assertParallelRefused(push, 1); // held while it is reachable
            Reference.reachabilityFence(dropped);
            dropped = null;

            AtomicReference<ParallelCompressingSender> built = new AtomicReference<>();
            assertTrue(Fixtures.await(() -> {
                System.gc(); // the dropped sender's cleaner lets go of the socket
                try {
                    built.set(ParallelCompressingSender.builder(push).workers(1).build());
                    return true;
                } catch (IllegalStateException stillHeld) {
                    return false;
                }
            }, 30_000), "the socket was still held 30 s after the sender was dropped");
            try (ParallelCompressingSender parallel = built.get();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertTrue(parallel.send(message(2), 0));
                parallel.flush();
                assertArriveInOrder(receiver, 2);
            }
            assertEquals(0, pool.outstanding(), () -> pool.stats().toString());
        }
    }

    private static byte[] message(int seed) {
        return Fixtures.payload(3_000, seed);
    }

    /** A parallel sender's build on {@code push} is refused, naming the socket and its {@code senders}. */
    private static void assertParallelRefused(ZmqSocket push, int senders) {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ParallelCompressingSender.builder(push).workers(1).build().close());
        assertTrue(e.getMessage().startsWith("socket is in use by an open CompressingSender: type=PUSH, senders=" + senders + " "),
                e::getMessage);
    }

    /** Messages 1 to {@code last} ({@link #message}) arrive, in order, intact. */
    private static void assertArriveInOrder(DecompressingReceiver receiver, int last) {
        for (int seed = 1; seed <= last; seed++) {
            assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
            assertArrayEquals(message(seed), receiver.message().partBytes(0), "message " + seed);
        }
    }
}
