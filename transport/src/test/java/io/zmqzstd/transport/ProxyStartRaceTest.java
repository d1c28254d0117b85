package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A close that races the very start of {@link ZmqProxy#run()}: the proxy's own, or its context's.
 * The run takes the frontend, the backend and then its own end of the control channel, a PAIR
 * socket the user never made; a close that lands between the first steps and the last made the run
 * throw "socket is closed: type=PAIR" (until 2026-11-29). Each round gives the run thread a
 * different head start, so that the close lands before, during and after the run's start.
 */
class ProxyStartRaceTest {

    private static final int PROXY_ROUNDS = 1000;
    private static final int CONTEXT_ROUNDS = 300;

    /**
     * The proxy closed on another thread as its run starts: the run returns (it read the TERMINATE),
     * or it is refused as a run of a closed proxy, never with the control socket's "type=PAIR".
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldSayTheProxyWasClosedWhenItsCloseRacesTheStartOfTheRun() throws Exception {
        int returned = 0;
        int refused = 0;
        int overtaken = 0;
        try (ZmqContext c = new ZmqContext()) {
            ZmqSocket frontend = c.socket(SocketType.PULL);
            ZmqSocket backend = c.socket(SocketType.PUSH);
            for (int round = 0; round < PROXY_ROUNDS; round++) {
                ZmqProxy proxy = new ZmqProxy(frontend, backend, null);
                Race race = race(proxy, round);
                proxy.close();
                Throwable thrown = race.end();
                if (thrown == null) {
                    returned++;
                } else if (thrown instanceof IllegalStateException e && e.getMessage().equals("proxy is closed")) {
                    refused++; // before it took a socket
                } else if (thrown instanceof IllegalStateException e && e.getMessage().equals(
                        "proxy is closed: it was closed on another thread as this run started, so it did not run")) {
                    overtaken++; // after it took the frontend: the control socket was closed under its start
                } else {
                    throw new AssertionError("round " + round + ": the run ended with " + thrown, thrown);
                }
            }
            // the caller's sockets are free for the next proxy
            assertFalse(frontend.isClosed());
        }
        System.out.printf("proxy closed as its run started: %d runs returned, %d refused as closed, %d overtaken as they started%n",
                returned, refused, overtaken);
        assertEquals(PROXY_ROUNDS, returned + refused + overtaken);
    }

    /**
     * The context closed on another thread as the run starts: the run ends with ETERM, or it is
     * refused naming the user's own socket (closed by the context before the run took it), never
     * the control socket.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldEndWithEtermOrNameTheUsersSocketWhenTheContextCloseRacesTheStartOfTheRun() throws Exception {
        int eterm = 0;
        int overtaken = 0;
        int refused = 0;
        for (int round = 0; round < CONTEXT_ROUNDS; round++) {
            ZmqContext c = new ZmqContext();
            try {
                ZmqSocket frontend = c.socket(SocketType.PULL);
                ZmqSocket backend = c.socket(SocketType.PUSH);
                ZmqProxy proxy = new ZmqProxy(frontend, backend, null);
                Race race = race(proxy, round);
                c.close();
                Throwable thrown = race.end();
                if (thrown instanceof ZmqException e && e.isContextTerminated()) {
                    if (e.getMessage().contains("the context was closed on another thread as this run started")) {
                        overtaken++;
                    } else {
                        eterm++;
                    }
                } else if (thrown instanceof IllegalStateException e
                        && (e.getMessage().equals("socket is closed: type=PULL") || e.getMessage().equals("socket is closed: type=PUSH"))) {
                    refused++;
                } else {
                    throw new AssertionError("round " + round + ": the run ended with " + thrown, thrown);
                }
                proxy.close();
            } finally {
                c.close();
            }
        }
        System.out.printf("context closed as the run started: %d runs ended with ETERM in libzmq, %d with ETERM as they started,"
                + " %d refused naming the user's socket%n", eterm, overtaken, refused);
        assertEquals(CONTEXT_ROUNDS, eterm + overtaken + refused);
    }

    private record Race(Thread thread, AtomicReference<Throwable> thrown) {
        Throwable end() throws InterruptedException {
            thread.join(10_000);
            assertFalse(thread.isAlive(), "run() did not return");
            return thrown.get();
        }
    }

    /**
     * Starts {@code proxy.run()} on a thread of its own and returns once that thread is about to
     * call it, after a head start that grows with {@code round} (and wraps), so that the caller's
     * close lands at every point of the run's start.
     */
    private static Race race(ZmqProxy proxy, int round) {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean go = new AtomicBoolean();
        int spins = (round * 7) % 400;
        Thread t = Thread.ofPlatform().name("proxy-" + round).start(() -> {
            go.set(true);
            for (int i = 0; i < spins; i++) {
                Thread.onSpinWait();
            }
            try {
                proxy.run();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        while (!go.get()) {
            Thread.onSpinWait();
        }
        return new Race(t, thrown);
    }
}
