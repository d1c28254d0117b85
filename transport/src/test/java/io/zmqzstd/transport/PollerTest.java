package io.zmqzstd.transport;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PollerTest {

    private static final byte[] ONE = {1};

    /**
     * Event bits other than POLLIN, POLLOUT and POLLERR are refused: zmq_pollitem_t holds a short,
     * so 0x10000 was cut to 0 and the socket silently not watched. A poll without a timeout and
     * with nothing registered is refused: libzmq sleeps then, and nothing could wake it.
     */
    @Test
    void shouldRefuseEventsItCannotWatchAndAPollThatCouldNeverEnd() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(2)) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            IllegalStateException empty = assertThrows(IllegalStateException.class, () -> poller.poll(-1));
            assertTrue(empty.getMessage().contains("nothing is registered"), empty.getMessage());
            assertEquals(0, poller.poll(0), "a poll that looks only is fine");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> poller.register(pull, 0x10000 | ZmqPoller.POLLIN));
            assertEquals("events must be POLLIN, POLLOUT, both, or 0 (POLLERR may be added: a socket never reports it):"
                    + " events=0x10001", e.getMessage());
            int i = poller.register(pull, ZmqPoller.POLLIN);
            assertThrows(IllegalArgumentException.class, () -> poller.events(i, 8));
            poller.events(i, ZmqPoller.POLLIN | ZmqPoller.POLLOUT);
            assertEquals(0, poller.poll(0), "registered once, nothing queued");
        }
    }

    /**
     * POLLERR beside POLLIN is taken and changes nothing, as the javadoc and README say (until
     * 2026-11-29 they said only POLLIN and POLLOUT were taken, while the code took POLLERR too).
     */
    @Test
    void shouldTakePollerrAndNeverReportItForASocket() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(2)) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.bind("inproc://pollerr");
            push.connect("inproc://pollerr");
            int i = poller.register(pull, ZmqPoller.POLLIN | ZmqPoller.POLLERR);
            assertEquals(0, poller.poll(0), "nothing queued, no error reported");
            assertTrue(push.send(ONE, 0));
            assertEquals(1, poller.poll(5_000));
            assertTrue(poller.isReadable(i));
            assertFalse(poller.hasError(i));
            poller.events(i, ZmqPoller.POLLERR);
            assertEquals(0, poller.poll(0), "POLLERR alone asks for nothing a socket reports");
            assertFalse(poller.hasError(i));
        }
    }

    @Test
    void shouldTellWhichOfSeveralSocketsIsReadable() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(3)) {
            ZmqSocket[] pulls = new ZmqSocket[3];
            ZmqSocket[] pushes = new ZmqSocket[3];
            int[] index = new int[3];
            for (int i = 0; i < 3; i++) {
                pulls[i] = ctx.socket(SocketType.PULL);
                pushes[i] = ctx.socket(SocketType.PUSH);
                pushes[i].connect(Endpoints.bindAny(pulls[i], "inproc"));
                index[i] = poller.register(pulls[i], ZmqPoller.POLLIN);
            }
            assertEquals(0, poller.poll(0));

            assertTrue(pushes[1].send(ONE, 0));
            assertEquals(1, poller.poll(5000));
            assertFalse(poller.isReadable(index[0]));
            assertTrue(poller.isReadable(index[1]));
            assertFalse(poller.isReadable(index[2]));
            assertEquals(pulls[1], poller.socket(index[1]));
            assertEquals(1, pulls[1].receive(new byte[1], ZmqSocket.DONTWAIT));
            assertEquals(0, poller.poll(0), "drained: nothing readable");

            assertTrue(pushes[0].send(ONE, 0));
            assertTrue(pushes[2].send(ONE, 0));
            Endpoints.await("sockets 0 and 2 readable", () -> poller.poll(100) == 2);
            assertTrue(poller.isReadable(index[0]));
            assertFalse(poller.isReadable(index[1]));
            assertTrue(poller.isReadable(index[2]));
        }
    }

    @Test
    void shouldReportWritabilityAsTheHighWaterMarkFillsAndDrains() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(1)) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.receiveHwm(1);
            push.sendHwm(1);
            String endpoint = Endpoints.bindAny(pull, "inproc");
            int out = poller.register(push, ZmqPoller.POLLOUT);
            assertEquals(0, poller.poll(0), "no peer: a PUSH cannot send");
            assertFalse(poller.isWritable(out));

            push.connect(endpoint);
            Endpoints.await("writable once connected", () -> poller.poll(100) == 1 && poller.isWritable(out));

            int queued = 0;
            while (push.send(ONE, ZmqSocket.DONTWAIT)) {
                queued++;
                assertTrue(queued < 100, "the high-water mark never filled");
            }
            assertTrue(queued >= 1);
            assertEquals(0, poller.poll(0), "full: not writable");
            assertFalse(poller.isWritable(out));

            assertEquals(1, pull.receive(new byte[1], 0));
            Endpoints.await("writable again once drained", () -> poller.poll(100) == 1 && poller.isWritable(out));
        }
    }

    @Test
    void shouldWaitOnlyWhatIsLeftOfTheTimeoutAfterAnInterruptedPoll() {
        long start = 5_000_000_000L;
        assertEquals(100, ZmqPoller.remainingMs(100, start, start));
        assertEquals(60, ZmqPoller.remainingMs(100, start, start + 40_000_000L));
        assertEquals(0, ZmqPoller.remainingMs(100, start, start + 100_000_000L));
        assertEquals(0, ZmqPoller.remainingMs(100, start, start + 900_000_000L), "never negative (that would mean forever)");
        assertEquals(0, ZmqPoller.remainingMs(0, start, start + 1_000_000L));
        assertEquals(-1, ZmqPoller.remainingMs(-1, start, start + 900_000_000L), "forever stays forever");
    }

    /**
     * With nothing registered libzmq sleeps with usleep, whose microseconds are an unsigned 32-bit
     * count: a longer timeout wrapped (4294968 ms slept 0.7 ms), so it is refused, naming the value
     * and the limit. With a socket registered libzmq waits in slices of at most INT_MAX ms, so any
     * timeout is honoured: a poll of Long.MAX_VALUE ms returns as soon as a message arrives.
     */
    @Test
    void shouldRefuseAnEmptyPollLongerThanLibzmqCanSleepAndHonourAnyTimeoutWithSockets() throws Exception {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(1)) {
            long over = ZmqPoller.MAX_EMPTY_POLL_TIMEOUT_MS + 1;
            assertEquals(4_294_967L, ZmqPoller.MAX_EMPTY_POLL_TIMEOUT_MS, "(2^32 - 1) microseconds, in whole ms");
            for (long timeoutMs : new long[] {over, Integer.MAX_VALUE, Long.MAX_VALUE}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> poller.poll(timeoutMs));
                assertEquals("nothing is registered and the timeout is longer than libzmq can sleep: timeoutMs=" + timeoutMs
                        + ", max=4294967", e.getMessage());
            }
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            int in = poller.register(pull, ZmqPoller.POLLIN);
            AtomicInteger ready = new AtomicInteger(-1);
            Thread polling = Thread.ofPlatform().daemon().start(() -> ready.set(poller.poll(Long.MAX_VALUE)));
            assertTrue(push.send(ONE, 0));
            polling.join(10_000);
            assertFalse(polling.isAlive(), "a poll of Long.MAX_VALUE ms did not return when a message arrived");
            assertEquals(1, ready.get());
            assertTrue(poller.isReadable(in));
        }
    }

    /**
     * What a poll shows once a peer has gone away over tcp (libzmq reports no event for the
     * disconnect itself; a monitor does): a message that came before stays readable; a bound PUSH
     * whose only peer left is no longer writable; a connecting PUSH stays writable, its messages
     * waiting for the reconnect.
     */
    @Test
    void shouldReportWhatAPeerThatWentAwayLeaves() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(3)) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket sender = ctx.socket(SocketType.PUSH);
            ZmqSocket boundPush = ctx.socket(SocketType.PUSH);
            ZmqSocket receiver = ctx.socket(SocketType.PULL);
            ZmqSocket connectingPush = ctx.socket(SocketType.PUSH);
            ZmqSocket listener = ctx.socket(SocketType.PULL);
            sender.connect(Endpoints.bindAny(pull, "tcp"));
            receiver.connect(Endpoints.bindAny(boundPush, "tcp"));
            connectingPush.connect(Endpoints.bindAny(listener, "tcp"));
            int in = poller.register(pull, ZmqPoller.POLLIN);
            int boundOut = poller.register(boundPush, ZmqPoller.POLLOUT);
            int connectingOut = poller.register(connectingPush, ZmqPoller.POLLOUT);
            assertTrue(sender.send(ONE, 0));
            Endpoints.await("all three ready", () -> poller.poll(100) == 3);

            try (SocketMonitor pullEvents = pull.monitor(EnumSet.of(MonitorEvent.Type.DISCONNECTED));
                    SocketMonitor boundEvents = boundPush.monitor(EnumSet.of(MonitorEvent.Type.DISCONNECTED));
                    SocketMonitor connectingEvents = connectingPush.monitor(EnumSet.of(MonitorEvent.Type.DISCONNECTED))) {
                sender.close();
                receiver.close();
                listener.close();
                for (SocketMonitor events : List.of(pullEvents, boundEvents, connectingEvents)) {
                    MonitorEvent e = events.receive(Duration.ofSeconds(10));
                    assertEquals(MonitorEvent.Type.DISCONNECTED, e == null ? null : e.type(), "the peer of " + events.socket());
                }
            }
            Endpoints.await("the bound PUSH no longer writable", () -> poller.poll(100) >= 0 && !poller.isWritable(boundOut));
            assertEquals(2, poller.poll(0));
            assertTrue(poller.isReadable(in), "the message that came before the disconnect");
            assertTrue(poller.isWritable(connectingOut), "a connecting PUSH keeps its pipe while it reconnects");
            assertEquals(1, pull.receive(new byte[1], ZmqSocket.DONTWAIT));
            connectingPush.lingerMs(0); // the context's close need not wait for the queued message
            assertTrue(connectingPush.send(ONE, ZmqSocket.DONTWAIT), "queued for the reconnect");
            assertFalse(boundPush.send(ONE, ZmqSocket.DONTWAIT), "no peer to send to");
        }
    }

    /**
     * A poll over the sockets of two contexts, waiting with Long.MIN_VALUE (any negative timeout
     * waits for ever), ends with ETERM when one context is closed on another thread; that
     * context's socket, now closed, makes later polls throw naming its index until it is
     * unregistered, and the other context's socket is polled on.
     */
    @Test
    void shouldEndAPollOverTwoContextsWithEtermWhenOneIsClosed() throws Exception {
        try (ZmqContext other = new ZmqContext(); ZmqPoller poller = new ZmqPoller(2)) {
            ZmqContext closing = new ZmqContext();
            ZmqSocket kept = other.socket(SocketType.PULL);
            ZmqSocket push = other.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(kept, "inproc"));
            ZmqSocket lost = closing.socket(SocketType.PULL);
            int keptIndex = poller.register(kept, ZmqPoller.POLLIN);
            int lostIndex = poller.register(lost, ZmqPoller.POLLIN);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread polling = BlockedCalls.start("pollEntered", thrown, () -> poller.poll(Long.MIN_VALUE));
            closing.close(); // waits for the poll to leave libzmq before it closes the socket
            polling.join(10_000);
            assertFalse(polling.isAlive());
            ZmqException e = assertInstanceOf(ZmqException.class, thrown.get());
            assertTrue(e.isContextTerminated(), e.getMessage());
            assertTrue(e.getMessage().endsWith("(the context of the socket at index=" + lostIndex + " was shut down or closed:"
                    + " unregister it to poll the others)"), e.getMessage());
            assertTrue(lost.isClosed());

            IllegalStateException closed = assertThrows(IllegalStateException.class, () -> poller.poll(0));
            assertEquals("a polled socket cannot be used: index=" + lostIndex + ": socket is closed: type=PULL", closed.getMessage());
            poller.unregister(lost);
            assertTrue(push.send(ONE, 0));
            assertEquals(1, poller.poll(5000));
            assertTrue(poller.isReadable(keptIndex));
        }
    }

    /**
     * A poll over the sockets of two contexts after one was shut down (not closed): its sockets stay
     * open, and every poll fails with ETERM until they are unregistered. Until 2026-11-29 the
     * ZmqException named no socket, so the caller could not tell which registrations to take out
     * (ZmqContext says nothing of a shutdown); now it names their indices.
     */
    @Test
    void shouldNameTheRegistrationsWhoseContextWasShutDown() {
        try (ZmqContext ctx = new ZmqContext(); ZmqContext other = new ZmqContext(); ZmqPoller poller = new ZmqPoller(4)) {
            ZmqSocket kept = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(kept, "inproc"));
            int before = poller.register(other.socket(SocketType.PULL), ZmqPoller.POLLIN);
            int keptIndex = poller.register(kept, ZmqPoller.POLLIN);
            ZmqSocket lost = other.socket(SocketType.PUSH);
            int lostIndex = poller.register(lost, ZmqPoller.POLLOUT);
            other.shutdown();
            for (long timeoutMs : new long[] {0, 100, -1}) {
                ZmqException e = assertThrows(ZmqException.class, () -> poller.poll(timeoutMs));
                assertTrue(e.isContextTerminated(), e.getMessage());
                assertTrue(e.getMessage().endsWith("(the context of the sockets at index=" + before + ", " + lostIndex
                        + " was shut down or closed: unregister them to poll the others)"), e.getMessage());
            }
            poller.unregister(poller.socket(before));
            poller.unregister(lost);
            assertTrue(push.send(ONE, 0));
            assertEquals(1, poller.poll(5000));
            assertTrue(poller.isReadable(keptIndex));
        }
    }

    /**
     * README "Poller": poll returns how many registrations are ready, and a socket registered twice
     * counts twice, each of its indices readable.
     */
    @Test
    void shouldCountASocketRegisteredTwiceTwice() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(3)) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket idle = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            int first = poller.register(pull, ZmqPoller.POLLIN);
            int second = poller.register(pull, ZmqPoller.POLLIN);
            int other = poller.register(idle, ZmqPoller.POLLIN);
            assertEquals(0, poller.poll(0), "nothing queued yet");
            assertTrue(push.send(new byte[] {7}, 0));
            assertEquals(2, poller.poll(5000), "one socket ready, registered twice");
            assertTrue(poller.isReadable(first));
            assertTrue(poller.isReadable(second));
            assertFalse(poller.isReadable(other));
        }
    }
}
