package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A {@link ParallelCompressingSender}'s workers use its socket from threads of their own, at any
 * moment, so a second sender on that socket (another parallel sender, a {@link CompressingSender})
 * overlaps them: the transport refuses the second call inside the socket, and when the refused
 * call is a worker's, that sender fails and drops every message it holds. The builders refuse it.
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
}
