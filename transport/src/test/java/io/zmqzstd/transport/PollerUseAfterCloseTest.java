package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Every call on a closed poller that reads or writes its poll items says the poller is closed. */
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

    private static void assertClosed(Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call);
        assertEquals("poller is closed", e.getMessage());
    }
}
