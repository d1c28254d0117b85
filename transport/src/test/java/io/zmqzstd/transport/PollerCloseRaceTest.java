package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A poller closed on one thread while another loops over its calls (misuse: a poller is used by one
 * thread at a time, but a service's shutdown hook closing the poller of its poll loop is an easy
 * one). Until 2026-11-29 the close was refused only under zmq_poll itself, which holds the items'
 * arena; between another thread's check and its use of the items it freed them, and that thread's
 * register, events, unregister, poll or read threw the JDK's bare "Already closed".
 */
class PollerCloseRaceTest extends ContextTestBase {

    private static final int ROUNDS = 300;
    /** The user thread's iterations at most: it usually meets the close well before, else it ends first. */
    private static final int MAX_ITERATIONS = 1000;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldNameThePollerAndBothThreadsWhenACloseRacesAnotherThreadsCalls() throws Exception {
        ZmqSocket a = socket(SocketType.PULL);
        ZmqSocket b = socket(SocketType.PULL);
        String closing = Thread.currentThread().getName();
        int closeRefused = 0;
        int callRefused = 0;
        int callAfterClose = 0;
        int readOvertaken = 0;
        int endedFirst = 0;
        for (int round = 0; round < ROUNDS; round++) {
            ZmqPoller poller = new ZmqPoller(4);
            int i = poller.register(a, ZmqPoller.POLLIN);
            AtomicReference<Throwable> ended = new AtomicReference<>();
            AtomicBoolean going = new AtomicBoolean();
            Thread user = Thread.ofPlatform().name("poller-user-" + round).start(() -> {
                going.set(true);
                try {
                    for (int n = 0; n < MAX_ITERATIONS; n++) {
                        int j = poller.register(b, ZmqPoller.POLLIN);
                        poller.events(j, ZmqPoller.POLLIN | ZmqPoller.POLLOUT);
                        poller.poll(0);
                        poller.isReadable(i);
                        poller.unregister(b);
                        for (int k = 0; k < 50; k++) {
                            Thread.onSpinWait(); // time outside the poller's calls, for the close to go through
                        }
                    }
                } catch (Throwable t) {
                    ended.set(t);
                }
            });
            while (!going.get()) {
                Thread.onSpinWait();
            }
            // Closed as soon as it can be: each refusal names both threads, and the poller stays open
            for (boolean closed = false; !closed; ) {
                try {
                    poller.close();
                    closed = true;
                } catch (IllegalStateException e) {
                    assertTrue(e.getMessage().startsWith("poller is in use by a call on another thread: close it once that call"
                            + " has returned (the poller stays open): poller used by two threads at once: thread=" + closing
                            + ", while in a call on thread=" + user.getName()), "round " + round + ": " + e.getMessage());
                    closeRefused++;
                }
            }
            user.join(10_000);
            assertFalse(user.isAlive(), "round " + round + ": the user thread did not end");
            poller.close(); // idempotent
            if (ended.get() == null) {
                endedFirst++; // all its iterations done before the close went through
                continue;
            }
            IllegalStateException e = assertInstanceOf(IllegalStateException.class, ended.get(),
                    "round " + round + ": the user thread ended with " + ended.get());
            String m = e.getMessage();
            if (m.equals("poller is closed")) {
                callAfterClose++;
            } else if (m.startsWith("poller used by two threads at once: thread=" + user.getName()
                    + ", while in a call on thread=" + closing)) {
                callRefused++; // a change or poll that met the close inside the poller
            } else if (m.startsWith("poller is closed: it was closed on thread=" + closing + " during this read on thread="
                    + user.getName())) {
                readOvertaken++;
            } else {
                throw new AssertionError("round " + round + ": the user thread ended with " + e, e);
            }
        }
        System.out.printf("poller closed under another thread's calls: %d closes refused, %d calls refused under the close,"
                + " %d calls after it, %d reads overtaken, %d rounds whose user thread ended first%n", closeRefused, callRefused,
                callAfterClose, readOvertaken, endedFirst);
        assertEquals(ROUNDS, callRefused + callAfterClose + readOvertaken + endedFirst);
        assertTrue(endedFirst < ROUNDS, "no round's close came during the user thread's calls");
        // the sockets were left by every poll: another thread's call on them goes through
        assertEquals(-1, a.receive(new byte[1], ZmqSocket.DONTWAIT));
        assertEquals(-1, b.receive(new byte[1], ZmqSocket.DONTWAIT));
    }
}
