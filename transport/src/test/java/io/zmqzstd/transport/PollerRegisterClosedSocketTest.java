package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Registering a closed socket, or for events a socket cannot report, must fail without changing the poller. */
class PollerRegisterClosedSocketTest {

    @Test
    void failedRegisterLeavesThePollerUsable() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(2)) {
            ZmqSocket open = ctx.socket(SocketType.PULL);
            open.bind("inproc://poller-closed");
            ZmqSocket closed = ctx.socket(SocketType.PULL);
            closed.close();
            assertEquals(0, poller.register(open, ZmqPoller.POLLIN));
            assertThrows(IllegalStateException.class, () -> poller.register(closed, ZmqPoller.POLLIN));
            assertEquals(1, poller.size(), "the failed register still took a slot");
            assertEquals(0, poller.poll(0), "the poller is broken by the failed register");
        }
    }

    /**
     * A register refused for its events takes no slot: it used to check them only after it had
     * counted the registration, so a poller of capacity 1 was then full, and the socket of the
     * refused call stayed in it, polled (entered) on every poll: closed, it made every poll throw
     * "a polled socket cannot be used: index=0".
     */
    @Test
    void registerRefusedForItsEventsLeavesThePollerUnchanged() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(1)) {
            ZmqSocket refused = ctx.socket(SocketType.PULL);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> poller.register(refused, ZmqPoller.POLLIN | 8));
            assertEquals("events must be POLLIN, POLLOUT, both, or 0 (POLLERR may be added: a socket never reports it): events=0x9",
                    e.getMessage());
            assertEquals(0, poller.size(), "the refused register took a slot");
            refused.close();
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            int i = poller.register(pull, ZmqPoller.POLLIN);
            assertEquals(0, i);
            assertTrue(push.send(new byte[] {1}, 0));
            assertEquals(1, poller.poll(5000), "the refused socket is polled");
            assertTrue(poller.isReadable(i));
        }
    }
}
