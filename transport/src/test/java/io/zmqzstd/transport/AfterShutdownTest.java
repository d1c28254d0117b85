package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the calls on a socket do after {@link ZmqContext#shutdown()}: not all of them throw ETERM.
 * libzmq 4.3.4's {@code zmq_ctx_shutdown} sends each socket a stop command, and a socket fails its
 * calls with ETERM only once it has taken that command, which it does when it looks at its
 * commands: a receive that finds no frame queued, every 100th receive ({@code inbound_poll_rate}),
 * a send at most about once a millisecond, every poll and {@code events()}. Until then queued
 * frames are handed out and sends go through. The README's "Outcomes and errors" cites these tests.
 */
class AfterShutdownTest extends ContextTestBase {

    private static final int QUEUED = 300;

    /** PUSH connected to a PULL over inproc, the pipe taken by the PULL (one message received). */
    private ZmqSocket[] attachedPushPull() {
        ZmqSocket pull = socket(SocketType.PULL);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(Endpoints.bindAny(pull, "inproc"));
        assertTrue(push.send(b("attach"), 0));
        assertEquals("attach", pull.receiveString(0), "the PULL has taken the pipe");
        return new ZmqSocket[] {push, pull};
    }

    /** Receives with {@code flags} until ETERM (which it returns), failing on an empty queue; what came is added to {@code got}. */
    private static ZmqException receiveUntilEterm(ZmqSocket s, int flags, List<String> got) {
        for (;;) {
            String m;
            try {
                m = s.receiveString(flags);
            } catch (ZmqException e) {
                assertTrue(e.isContextTerminated(), e.getMessage());
                return e;
            }
            assertNotNull(m, "ETERM, not would-block, once nothing is queued: received=" + got.size());
            got.add(m);
        }
    }

    @Test
    void shouldHandOutFramesQueuedBeforeTheShutdownUntilThePullLooksAtItsCommands() {
        ZmqSocket[] pp = attachedPushPull();
        for (int i = 0; i < QUEUED; i++) {
            assertTrue(pp[0].send(b("m" + i), 0));
        }
        ctx.shutdown();
        List<String> got = new ArrayList<>();
        receiveUntilEterm(pp[1], ZmqSocket.DONTWAIT, got);
        assertTrue(!got.isEmpty() && got.size() < QUEUED, "some, not all, of the queued frames: received=" + got.size());
        for (int i = 0; i < got.size(); i++) {
            assertEquals("m" + i, got.get(i), "in order, none skipped");
        }
        // from then on every call throws, blocking ones too, the rest of the queue unreachable
        assertTrue(assertThrows(ZmqException.class, () -> pp[1].receive(new byte[8], 0)).isContextTerminated());
        assertTrue(assertThrows(ZmqException.class, () -> pp[1].receive(new byte[8], ZmqSocket.DONTWAIT)).isContextTerminated());
        System.out.println("PULL after shutdown: received " + got.size() + " of " + QUEUED + " queued, then ETERM");
    }

    /** events() (ZMQ_EVENTS) looks at the commands as a poll does. */
    @Test
    void shouldThrowEtermFromEventsWithAFrameQueuedAndFromEveryReceiveAfterIt() {
        ZmqSocket[] pp = attachedPushPull();
        assertTrue(pp[0].send(b("queued"), 0));
        ctx.shutdown();
        assertTrue(assertThrows(ZmqException.class, pp[1]::events).isContextTerminated());
        assertTrue(assertThrows(ZmqException.class, () -> pp[1].receiveBytes(ZmqSocket.DONTWAIT)).isContextTerminated());
    }

    @Test
    void shouldHandAQueuedFrameToABlockingReceiveAndThrowEtermAtOnceWhenNoneIsLeft() {
        ZmqSocket[] pp = attachedPushPull();
        assertTrue(pp[0].send(b("queued"), 0));
        ctx.shutdown();
        try (ZmqMessage msg = new ZmqMessage()) {
            assertTrue(pp[1].receive(msg, 0), "the frame queued before the shutdown");
            assertArrayEquals(b("queued"), msg.toByteArray());
            long start = System.nanoTime();
            assertTrue(assertThrows(ZmqException.class, () -> pp[1].receive(msg, 0)).isContextTerminated());
            assertTrue(System.nanoTime() - start < 2_000_000_000L, "ETERM at once, not after the 5 s timeout");
        }
    }

    @Test
    void shouldThrowEtermAtOnceForADontwaitReceiveWithNothingQueued() {
        ZmqSocket[] pp = attachedPushPull();
        ctx.shutdown();
        assertTrue(assertThrows(ZmqException.class, () -> pp[1].receiveBytes(ZmqSocket.DONTWAIT)).isContextTerminated(),
                "ETERM, not would-block");
    }

    /** A pipe the PULL has not taken yet (its first receive comes after the shutdown) gives nothing. */
    @Test
    void shouldHandOutNothingFromAPipeThePullHadNotTakenBeforeTheShutdown() {
        ZmqSocket pull = socket(SocketType.PULL);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(Endpoints.bindAny(pull, "inproc"));
        for (int i = 0; i < 10; i++) {
            assertTrue(push.send(b("m" + i), 0));
        }
        ctx.shutdown();
        List<String> got = new ArrayList<>();
        receiveUntilEterm(pull, ZmqSocket.DONTWAIT, got);
        assertEquals(List.of(), got, "the receive that takes the pipe takes the stop with it");
    }

    @Test
    void shouldHandOutFramesQueuedOnASubAsOnAPull() {
        ZmqSocket sub = socket(SocketType.SUB);
        sub.subscribe(new byte[0]);
        ZmqSocket pub = socket(SocketType.PUB);
        pub.connect(Endpoints.bindAny(sub, "inproc"));
        sub.receiveTimeoutMs(10);
        String probe;
        do { // until the subscription has reached the PUB: what it sent before went to nobody
            assertTrue(pub.send(b("probe"), 0));
            probe = sub.receiveString(0);
        } while (probe == null);
        for (int i = 0; i < QUEUED; i++) {
            assertTrue(pub.send(b("m" + i), 0));
        }
        ctx.shutdown();
        List<String> got = new ArrayList<>();
        receiveUntilEterm(sub, ZmqSocket.DONTWAIT, got);
        got.removeIf("probe"::equals);
        assertTrue(!got.isEmpty() && got.size() < QUEUED, "some, not all, of the queued frames: received=" + got.size());
        assertEquals("m0", got.get(0));
    }

    /**
     * A send looks at the socket's commands at most about once a millisecond (libzmq's
     * {@code max_command_delay}, counted in CPU cycles), so one made soon after the socket's last
     * send goes through after a shutdown, reported sent; over inproc the PULL, still handing out
     * queued frames, gets it. Repeated until seen (it needs the two sends within the millisecond).
     */
    @Test
    void shouldLetASendSoonAfterTheLastOneGoThroughAfterTheShutdown() {
        ZmqSocket[] pp = attachedPushPull();
        for (int round = 0; round < 50; round++) {
            assertTrue(pp[0].send(b("before"), 0));
            ctx.shutdown();
            boolean sent;
            try {
                sent = pp[0].send(b("after"), 0);
            } catch (ZmqException e) {
                assertTrue(e.isContextTerminated(), e.getMessage());
                ctx.close();
                ctx = new ZmqContext();
                pp = attachedPushPull();
                continue;
            }
            assertTrue(sent, "a send that goes through is reported sent");
            assertEquals("before", pp[1].receiveString(ZmqSocket.DONTWAIT));
            assertEquals("after", pp[1].receiveString(ZmqSocket.DONTWAIT), "and delivered");
            return;
        }
        throw new AssertionError("no send went through after the shutdown in 50 rounds");
    }

    /** Once more than that millisecond has passed, the send looks, takes the stop and throws ETERM. */
    @Test
    void shouldRefuseASendWithEtermOnceTheSocketLooksAtItsCommands() throws InterruptedException {
        ZmqSocket[] pp = attachedPushPull();
        assertTrue(pp[0].send(b("before"), 0));
        ctx.shutdown();
        Thread.sleep(20); // the condition is the time itself: libzmq's send looks again after ~1 ms
        assertTrue(assertThrows(ZmqException.class, () -> pp[0].send(b("after"), 0)).isContextTerminated());
        assertEquals("before", pp[1].receiveString(ZmqSocket.DONTWAIT), "what was sent before is still handed out");
        assertTrue(assertThrows(ZmqException.class, () -> pp[1].receiveString(ZmqSocket.DONTWAIT)).isContextTerminated(),
                "and nothing after it");
    }

    /** A poll looks at the commands every time: ETERM with a frame queued, which no receive hands out after it. */
    @Test
    void shouldThrowEtermFromAPollWithAFrameQueuedAndFromEveryReceiveAfterIt() {
        ZmqSocket[] pp = attachedPushPull();
        assertTrue(pp[0].send(b("queued"), 0));
        try (ZmqPoller poller = new ZmqPoller(1)) {
            poller.register(pp[1], ZmqPoller.POLLIN);
            ctx.shutdown();
            assertTrue(assertThrows(ZmqException.class, () -> poller.poll(0)).isContextTerminated());
            assertTrue(assertThrows(ZmqException.class, () -> pp[1].receiveBytes(ZmqSocket.DONTWAIT)).isContextTerminated(),
                    "the poll made the socket take the stop: the queued frame is not handed out");
            poller.unregister(pp[1]);
        }
    }
}
