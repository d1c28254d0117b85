package io.zmqzstd.transport;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every call on a closed poller that reads or writes its poll items says the poller is closed; a
 * close that cannot free the items (a poll on another thread holds them) leaves the poller open.
 */
class PollerUseAfterCloseTest extends ContextTestBase {

    @Test
    void shouldSayThePollerIsClosedWhenItsItemsAreUsedAfterClose() {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        ZmqPoller poller = new ZmqPoller(1);
        int i = poller.register(pull, ZmqPoller.POLLIN);
        poller.close();
        assertClosed(() -> poller.events(i, ZmqPoller.POLLOUT));
        assertClosed(() -> poller.revents(i));
        assertClosed(() -> poller.isReadable(i));
        assertClosed(() -> poller.isWritable(i));
        assertClosed(() -> poller.hasError(i));
        assertClosed(() -> poller.poll(0));
        poller.close(); // still idempotent
    }

    /**
     * A close on another thread than a poll in progress (misuse: a poller is used by one thread at
     * a time) is refused with a message that says so, and the poller stays open and working, to be
     * closed once the poll has returned. zmq_poll holds the items' arena while it runs, so the
     * JDK refused to free it ("Session is acquired by 1 clients"), but the poller had already
     * marked itself closed: every later call said "poller is closed", and a later close() did
     * nothing, so the items were never freed.
     */
    @Test
    void shouldRefuseACloseDuringAPollOnAnotherThreadAndStayUsable() throws Exception {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.connect(Endpoints.bindAny(pull, "inproc"));
        ZmqPoller poller = new ZmqPoller(1);
        int i = poller.register(pull, ZmqPoller.POLLIN);
        AtomicInteger ready = new AtomicInteger(-1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread polling = BlockedCalls.start("pollEntered", thrown, () -> ready.set(poller.poll(-1)));
        IllegalStateException refused = assertThrows(IllegalStateException.class, poller::close);
        assertTrue(refused.getMessage().startsWith("poller is in use by a call on another thread: close it once that call has"
                + " returned (the poller stays open): poller used by two threads at once: thread=" + Thread.currentThread().getName()
                + ", while in a call on thread=" + polling.getName()), refused.getMessage());
        assertTrue(push.send(new byte[] {1}, 0));
        polling.join(10_000);
        assertNull(thrown.get());
        assertEquals(1, ready.get());
        assertTrue(poller.isReadable(i), "the poller still works after the refused close");
        poller.close();
        assertClosed(() -> poller.poll(0));
    }

    private static void assertClosed(Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call);
        assertEquals("poller is closed", e.getMessage());
    }
}
