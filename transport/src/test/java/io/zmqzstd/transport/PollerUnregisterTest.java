package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibC;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ZmqPoller#unregister}: a poller had no way to take a socket out, so a socket closed while
 * registered made every later poll throw, and a poller built for a changing set of sockets had to
 * be rebuilt whole.
 */
class PollerUnregisterTest {

    private static final byte[] ONE = {1};

    /** Three PULL sockets, each with a message queued, registered for POLLIN in {@code poller}. */
    private static ZmqSocket[] readablePulls(ZmqContext ctx, ZmqPoller poller, int[] index) {
        ZmqSocket[] pulls = new ZmqSocket[index.length];
        for (int i = 0; i < pulls.length; i++) {
            pulls[i] = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pulls[i], "inproc"));
            assertTrue(push.send(ONE, 0));
            index[i] = poller.register(pulls[i], ZmqPoller.POLLIN);
        }
        return pulls;
    }

    @Test
    void shouldNotReportAnUnregisteredSocketAndKeepTheOthersIndices() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(3)) {
            int[] index = new int[3];
            ZmqSocket[] pulls = readablePulls(ctx, poller, index);
            assertEquals(3, poller.poll(5000));

            assertEquals(1, poller.unregister(pulls[0]));
            assertEquals(2, poller.size());
            assertEquals(2, poller.poll(5000), "the unregistered socket's message is not reported");
            assertTrue(poller.isReadable(index[1]));
            assertTrue(poller.isReadable(index[2]));
            assertSame(pulls[1], poller.socket(index[1]));
            assertSame(pulls[2], poller.socket(index[2]), "the item moved, its index did not");
            IndexOutOfBoundsException gone = assertThrows(IndexOutOfBoundsException.class, () -> poller.isReadable(index[0]));
            assertEquals("no socket is registered at index " + index[0] + " (never registered, or unregistered)",
                    gone.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> poller.events(index[0], ZmqPoller.POLLIN));
            assertThrows(IndexOutOfBoundsException.class, () -> poller.socket(index[0]));

            // events() still changes the right item after the move
            poller.events(index[2], 0);
            assertEquals(1, poller.poll(5000));
            assertTrue(poller.isReadable(index[1]));
            assertFalse(poller.isReadable(index[2]));
        }
    }

    @Test
    void shouldRefuseToUnregisterASocketThatIsNotRegisteredChangingNothing() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(2)) {
            int[] index = new int[1];
            ZmqSocket[] pulls = readablePulls(ctx, poller, index);
            ZmqSocket stranger = ctx.socket(SocketType.PULL);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> poller.unregister(stranger));
            assertEquals("socket is not registered in this poller: ZmqSocket[type=PULL]", e.getMessage());
            assertEquals(1, poller.unregister(pulls[0]));
            assertThrows(IllegalArgumentException.class, () -> poller.unregister(pulls[0]), "a second time");
            assertEquals(0, poller.size());
            assertThrows(NullPointerException.class, () -> poller.unregister(null));
        }
    }

    @Test
    void shouldTakeEveryRegistrationOfASocketRegisteredTwiceAndReuseTheIndices() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(3)) {
            int[] index = new int[2];
            ZmqSocket[] pulls = readablePulls(ctx, poller, index);
            int again = poller.register(pulls[0], ZmqPoller.POLLIN);
            assertEquals(2, again);
            assertEquals(2, poller.unregister(pulls[0]));
            assertEquals(1, poller.size());
            assertEquals(1, poller.poll(5000));
            assertTrue(poller.isReadable(index[1]));

            // re-register: the lowest free index, polled as before; the poller is not full
            assertEquals(0, poller.register(pulls[0], ZmqPoller.POLLIN));
            assertEquals(2, poller.register(pulls[0], ZmqPoller.POLLIN));
            assertEquals(3, poller.size());
            assertEquals(3, poller.poll(5000));
            assertTrue(poller.isReadable(0) && poller.isReadable(1) && poller.isReadable(2));
            assertThrows(IllegalStateException.class, () -> poller.register(pulls[1], ZmqPoller.POLLIN), "full");
        }
    }

    /** A closed socket left registered made every poll throw; unregistered, the poller works on. */
    @Test
    void shouldPollOnAfterAClosedSocketIsUnregistered() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(2)) {
            int[] index = new int[2];
            ZmqSocket[] pulls = readablePulls(ctx, poller, index);
            pulls[0].close();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> poller.poll(0));
            assertTrue(e.getMessage().contains("socket is closed"), e.getMessage());
            assertEquals(1, poller.unregister(pulls[0]));
            assertEquals(1, poller.poll(5000));
            assertTrue(poller.isReadable(index[1]));
        }
    }

    /**
     * The refusal names the index register gave the closed socket: an unregister moves the last
     * item into the freed position, and until 2026-11-27 the message named that position instead
     * (index=0 for the socket registered at 2), pointing at a socket still open.
     */
    @Test
    void shouldNameTheIndexOfAClosedSocketThatMovedAfterAnUnregister() {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(3)) {
            int[] index = new int[3];
            ZmqSocket[] pulls = readablePulls(ctx, poller, index);
            assertEquals(2, index[2]);
            poller.unregister(pulls[0]); // the item of index 2 moves to position 0
            pulls[2].close();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> poller.poll(0));
            assertEquals("a polled socket cannot be used: index=2: socket is closed: type=PULL", e.getMessage());
            assertSame(pulls[2], poller.socket(2), "the index named is the closed socket's");
        }
    }

    @Test
    void shouldRefuseUnregisterOnAClosedPoller() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqPoller poller = new ZmqPoller(1);
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            poller.register(pull, ZmqPoller.POLLIN);
            poller.close();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> poller.unregister(pull));
            assertEquals("poller is closed", e.getMessage());
        }
    }

    /**
     * A socket registered twice is entered once by a poll, also after an unregister moved its
     * registrations past each other (the one a poll enters keeps its mark when its item moves):
     * while the poll waits, another thread's call on the socket is refused.
     */
    @Test
    void shouldEnterASocketOnceAfterAnUnregisterMovedItsRegistrations() throws Exception {
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(4)) {
            int[] index = new int[2];
            ZmqSocket[] pulls = readablePulls(ctx, poller, index); // each with a message queued
            assertEquals(1, pulls[1].receive(new byte[1], ZmqSocket.DONTWAIT));
            poller.register(pulls[0], ZmqPoller.POLLIN);
            int again = poller.register(pulls[1], ZmqPoller.POLLIN);
            assertEquals(2, poller.unregister(pulls[0])); // the last item moves into both freed places
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pulls[1].connect(Endpoints.bindAny(push, "inproc"));
            AtomicInteger ready = new AtomicInteger(-1);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread polling = BlockedCalls.start("pollEntered", thrown, () -> ready.set(poller.poll(10_000)));
            IllegalStateException e = assertThrows(IllegalStateException.class, pulls[1]::events);
            assertTrue(e.getMessage().contains("used by two threads at once"), e.getMessage());
            assertTrue(push.send(ONE, 0));
            polling.join(10_000);
            assertFalse(polling.isAlive());
            assertNull(thrown.get());
            assertEquals(2, ready.get(), "both registrations report the message");
            assertTrue(poller.isReadable(index[1]) && poller.isReadable(again));
            assertEquals(ZmqPoller.POLLIN, pulls[1].events() & ZmqPoller.POLLIN, "no call left in progress");
        }
    }

    /**
     * An unregister costs time in proportion to the registrations, not to their square: until
     * 2026-11-27 it worked out anew, for every position, whether its socket sat lower too, so
     * unregistering sockets one by one took time growing with their number cubed (3,000: 1 s). Two
     * sockets registered up to 10,000 times each make that cost without thousands of file
     * descriptors (the second's first registration lies above all of the first's); a third socket,
     * registered last, is then unregistered and registered again and again (200 times: 4 s on
     * the old code, 40 ms now). Polls stay right after the items move.
     */
    @Test
    void shouldUnregisterFromALargePollerInTimeProportionalToItsRegistrations() {
        // within the open-file limit, which a poller's registrations may not exceed
        int half = (int) Math.min(10_000, (LibC.openFileLimit() - 1) / 2);
        // about 2 * 10^10 comparisons on the old code (half^2 per unregister), whatever half is
        long rounds = Math.max(200, 20_000_000_000L / ((long) half * half));
        try (ZmqContext ctx = new ZmqContext(); ZmqPoller poller = new ZmqPoller(2 * half + 1)) {
            int[] index = new int[3];
            ZmqSocket[] pulls = readablePulls(ctx, poller, index);
            for (ZmqSocket pull : pulls) {
                poller.unregister(pull);
            }
            for (int i = 0; i < half; i++) {
                poller.register(pulls[0], ZmqPoller.POLLIN);
            }
            for (int i = 0; i < half; i++) {
                poller.register(pulls[1], 0);
            }
            index[2] = poller.register(pulls[2], ZmqPoller.POLLIN);
            long startNs = System.nanoTime();
            for (long round = 0; round < rounds; round++) {
                assertEquals(1, poller.unregister(pulls[2]));
                index[2] = poller.register(pulls[2], ZmqPoller.POLLIN);
            }
            long ms = (System.nanoTime() - startNs) / 1_000_000;
            assertTrue(ms < 1000, rounds + " unregisters from a poller of " + (2 * half + 1) + " registrations took " + ms + " ms");
            assertEquals(half + 1, poller.poll(5000), "every registration of the first socket, and the third");
            assertTrue(poller.isReadable(index[2]));
            // the second socket's registrations move below each other: a poll still enters it once
            assertEquals(half, poller.unregister(pulls[0]));
            assertEquals(1, poller.poll(5000), "the second socket is muted");
            assertTrue(poller.isReadable(index[2]));
        }
    }
}
