package io.zmqzstd.transport;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
            assertEquals("events must be POLLIN, POLLOUT, both, or 0: events=0x10001", e.getMessage());
            int i = poller.register(pull, ZmqPoller.POLLIN);
            assertThrows(IllegalArgumentException.class, () -> poller.events(i, 8));
            poller.events(i, ZmqPoller.POLLIN | ZmqPoller.POLLOUT);
            assertEquals(0, poller.poll(0), "registered once, nothing queued");
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
}
