package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Registering a closed socket must fail without changing the poller. */
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
}
