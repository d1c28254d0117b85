package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A poller changed on another thread while a poll runs (misuse: a poller is used by one thread at a
 * time, but a control thread adding a socket to a service's poll loop is an easy mistake). zmq_poll
 * reads the items, each socket's handle, again after every wake-up, and the poll leaves the sockets
 * it entered by position once it returns: a change under it must be refused, not made.
 */
class PollerConcurrentUseTest extends ContextTestBase {

    /**
     * Until 2026-11-29 {@code register}, {@code unregister} and {@code events} on another thread
     * changed the items under the poll: an unregister that moved another socket into the polled
     * socket's position made libzmq ask that socket (entered by no poll, perhaps in use on another
     * thread or closed) for its events, and the poll's end left the moved socket instead of the
     * polled one, which then refused every call ("used by two threads at once ... while in a call on
     * thread=" the poll's, which had ended) and whose close waited for ever. Now each is refused
     * naming the poll, and the poll and the poller go on.
     */
    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRefuseChangesFromAnotherThreadWhileAPollRunsAndGoOn() throws Exception {
        ZmqSocket pull = socket(SocketType.PULL);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(Endpoints.bindAny(pull, "inproc"));
        ZmqSocket other = socket(SocketType.PULL);
        try (ZmqPoller poller = new ZmqPoller(4)) {
            int i = poller.register(pull, ZmqPoller.POLLIN);
            AtomicInteger ready = new AtomicInteger(-1);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread polling = BlockedCalls.start("pollEntered", thrown, () -> ready.set(poller.poll(-1)));

            assertRefused(() -> poller.register(other, ZmqPoller.POLLIN), polling);
            assertRefused(() -> poller.unregister(pull), polling);
            assertRefused(() -> poller.events(i, ZmqPoller.POLLOUT), polling);

            assertTrue(push.send(new byte[] {7}, 0));
            polling.join(10_000);
            assertNull(thrown.get());
            assertEquals(1, ready.get());
            assertTrue(poller.isReadable(i), "the poll saw the message on the socket it was given");
            assertEquals(1, poller.size(), "nothing was registered by the refused calls");

            // The polled socket was left by the poll, and the poller takes changes again
            assertArrayEquals(new byte[] {7}, pull.receiveBytes(0));
            int j = poller.register(other, ZmqPoller.POLLIN);
            assertEquals(1, poller.unregister(pull));
            assertEquals(0, poller.poll(0));
            assertEquals(other, poller.socket(j));
        }
    }

    private static void assertRefused(Executable change, Thread polling) {
        IllegalStateException refused = assertThrows(IllegalStateException.class, change);
        assertTrue(refused.getMessage().startsWith("poller used by two threads at once:"), refused.getMessage());
        assertTrue(refused.getMessage().contains("while in a call on thread=" + polling.getName()), refused.getMessage());
    }
}
