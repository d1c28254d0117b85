package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link ZmqProxy} over real sockets: frames pass unchanged both ways and to the capture socket,
 * pause holds messages back until resume, terminate and close end the run, a context close ends
 * it with ETERM, and signals (EINTR) neither end it nor lose a pause. Every test runs under a
 * timeout: a proxy that does not end hangs its thread.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ZmqProxyTest extends ContextTestBase {

    /** A proxy's run on a thread of its own, with what it threw. */
    private record Running(Thread thread, AtomicReference<Throwable> thrown, AtomicLong pthread) {
        void awaitEnd() throws InterruptedException {
            thread.join(10_000);
            assertFalse(thread.isAlive(), "run() did not return");
        }

        /** Terminates the proxy and checks that its run returned normally. */
        void terminate(ZmqProxy proxy) throws InterruptedException {
            proxy.terminate();
            awaitEnd();
            assertNull(thrown.get(), "terminate makes run() return");
        }
    }

    private static Running start(ZmqProxy proxy) {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicLong pthread = new AtomicLong();
        Thread t = Thread.ofPlatform().name("proxy").start(() -> {
            try {
                pthread.set(Signals.self());
                proxy.run();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        Endpoints.await("the proxy running", () -> proxy.isRunning() || !t.isAlive());
        return new Running(t, thrown, pthread);
    }

    /** The next message of {@code s}, every frame, or null when none comes within its receive timeout. */
    private static List<byte[]> receiveMessage(ZmqSocket s) {
        List<byte[]> frames = new ArrayList<>();
        do {
            byte[] f = s.receiveBytes(0);
            if (f == null) {
                assertTrue(frames.isEmpty(), "a message cut short");
                return null;
            }
            frames.add(f);
        } while (s.hasMore());
        return frames;
    }

    /** A pipeline stage: PULL frontend, PUSH backend, every frame copied to a PULL behind a PUSH capture. */
    private final class Stage {
        final ZmqSocket frontend = socket(SocketType.PULL);
        final ZmqSocket backend = socket(SocketType.PUSH);
        final ZmqSocket capture = socket(SocketType.PUSH);
        final ZmqSocket producer = socket(SocketType.PUSH);
        final ZmqSocket consumer = socket(SocketType.PULL);
        final ZmqSocket captured = socket(SocketType.PULL);

        Stage() {
            producer.connect(Endpoints.bindAny(frontend, "inproc"));
            consumer.connect(Endpoints.bindAny(backend, "inproc"));
            capture.connect(Endpoints.bindAny(captured, "inproc"));
        }

        /** A message sent now, while the proxy is paused, is not forwarded (within 300 ms) until {@link ZmqProxy#resume()}. */
        void assertHeldUntilResumed(ZmqProxy proxy, String message) {
            assertTrue(producer.send(b(message), 0));
            consumer.receiveTimeoutMs(300);
            assertNull(consumer.receiveString(0), "paused: nothing forwarded");
            proxy.resume();
            consumer.receiveTimeoutMs(5000);
            assertEquals(message, consumer.receiveString(0));
        }

        /** Waits until the capture shows {@code command}: libzmq 4.3.4 copies each command it reads there. */
        void awaitCommand(String command) {
            for (;;) {
                List<byte[]> m = receiveMessage(captured);
                assertTrue(m != null, "the capture never showed " + command);
                if (m.size() == 1 && Arrays.equals(m.get(0), b(command))) {
                    return;
                }
            }
        }
    }

    @Test
    void shouldForwardFramesUntouchedThroughAnXsubXpubForwarder() throws Exception {
        ZmqSocket xsub = socket(SocketType.XSUB);
        ZmqSocket xpub = socket(SocketType.XPUB);
        ZmqSocket capture = socket(SocketType.PUSH);
        ZmqSocket captured = socket(SocketType.PULL);
        capture.connect(Endpoints.bindAny(captured, "inproc"));
        ZmqSocket pub = socket(SocketType.PUB);
        pub.connect(Endpoints.bindAny(xsub, "tcp"));
        ZmqSocket sub = socket(SocketType.SUB);
        sub.subscribe("t");
        sub.connect(Endpoints.bindAny(xpub, "tcp"));
        try (ZmqProxy proxy = new ZmqProxy(xsub, xpub, capture)) {
            Running running = start(proxy);
            // the subscription travels backend -> frontend -> publisher: publish until it has arrived
            sub.receiveTimeoutMs(20);
            String probe = null;
            for (int i = 0; i < 500 && probe == null; i++) {
                pub.send(b("t-probe"), 0);
                probe = sub.receiveString(0);
            }
            assertEquals("t-probe", probe);
            sub.receiveTimeoutMs(5000);
            while (sub.receiveString(ZmqSocket.DONTWAIT) != null) {
                // probes still on their way
            }
            byte[] big = new byte[65536];
            new java.util.Random(7).nextBytes(big);
            byte[][] frames = {b("t"), new byte[0], big, {0, (byte) 0xFF, 0, 1}};
            for (int i = 0; i < frames.length; i++) {
                assertTrue(pub.send(frames[i], i < frames.length - 1 ? ZmqSocket.SNDMORE : 0));
            }
            List<byte[]> got = receiveMessage(sub);
            assertEquals(frames.length, got.size());
            for (int i = 0; i < frames.length; i++) {
                assertArrayEquals(frames[i], got.get(i), "frame " + i);
            }
            // the capture saw the subscription going upstream and the message, frame by frame
            boolean sawSubscription = false;
            List<byte[]> message = null;
            while (message == null) {
                List<byte[]> m = receiveMessage(captured);
                assertTrue(m != null, "the capture missed the message");
                sawSubscription |= m.size() == 1 && Arrays.equals(m.get(0), new byte[] {1, 't'});
                if (m.size() == frames.length) {
                    message = m;
                }
            }
            assertTrue(sawSubscription, "the subscription (0x01 't') passed the capture");
            for (int i = 0; i < frames.length; i++) {
                assertArrayEquals(frames[i], message.get(i), "captured frame " + i);
            }
            running.terminate(proxy);
            assertFalse(proxy.isRunning());
        }
    }

    @Test
    void shouldHoldMessagesWhilePausedAndForwardThemOnResume() throws Exception {
        Stage s = new Stage();
        try (ZmqProxy proxy = new ZmqProxy(s.frontend, s.backend, s.capture)) {
            Running running = start(proxy);
            assertTrue(s.producer.send(b("one"), 0));
            assertEquals("one", s.consumer.receiveString(0));
            proxy.pause();
            s.awaitCommand("PAUSE");
            s.assertHeldUntilResumed(proxy, "two");
            running.terminate(proxy);
            s.awaitCommand("TERMINATE");
            assertThrows(IllegalStateException.class, proxy::pause);
            assertThrows(IllegalStateException.class, proxy::resume);
            proxy.terminate(); // idempotent
        }
    }

    /**
     * A signal ends libzmq's wait with EINTR, and zmq_proxy_steerable with it; the proxy calls it
     * again, paused again when it was paused (each repeat shows on the capture as a PAUSE). Before,
     * run() threw "zmq_proxy_steerable failed: errno=4".
     */
    @Test
    @EnabledOnOs(OS.LINUX)
    void shouldKeepRunningAndPausedAcrossSignals() throws Throwable {
        Stage s = new Stage();
        try (ZmqProxy proxy = new ZmqProxy(s.frontend, s.backend, s.capture)) {
            Running running = start(proxy);
            proxy.pause();
            s.awaitCommand("PAUSE");
            Endpoints.await("the proxy waiting in libzmq", () -> BlockedCalls.inside(running.thread(), "runEntered")
                    && BlockedCalls.inside(running.thread(), "runEntered"));
            // A signal interrupts only the wait in poll(), not the rest of the loop: signal every
            // 50 ms until three repeats have shown, each a PAUSE read again from the control socket.
            s.captured.receiveTimeoutMs(50);
            int repeats = 0;
            int signals = 0;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (repeats < 3 && System.nanoTime() < deadline) {
                assertTrue(Signals.sigpipe(running.pthread().get()));
                signals++;
                List<byte[]> m;
                while ((m = receiveMessage(s.captured)) != null) {
                    if (m.size() == 1 && Arrays.equals(m.get(0), b("PAUSE"))) {
                        repeats++;
                    }
                }
            }
            assertTrue(repeats >= 3, "repeats after EINTR: " + repeats + " in " + signals + " signals; " + running.thrown().get());
            assertTrue(running.thread().isAlive(), "still running: " + running.thrown().get());
            s.assertHeldUntilResumed(proxy, "held");
            running.terminate(proxy);
        }
    }

    @Test
    void shouldEndTheRunOnClose() throws Exception {
        Stage s = new Stage();
        ZmqProxy proxy = new ZmqProxy(s.frontend, s.backend, null);
        Running running = start(proxy);
        proxy.close(); // terminates, waits for the run to leave libzmq
        assertFalse(proxy.isRunning(), "close returned before the run did");
        running.awaitEnd();
        assertNull(running.thrown().get());
        proxy.close();
        assertThrows(IllegalStateException.class, proxy::run);
        proxy.terminate(); // nothing to do
        // the caller's sockets are still the caller's
        assertTrue(s.producer.send(b("after"), 0));
        assertEquals("after", s.frontend.receiveString(0));
    }

    @Test
    void shouldEndTheRunWithEtermWhenTheContextCloses() throws Exception {
        Stage s = new Stage();
        ZmqProxy proxy = new ZmqProxy(s.frontend, s.backend, s.capture);
        Running running = start(proxy);
        ctx.close();
        running.awaitEnd();
        ZmqException e = assertInstanceOf(ZmqException.class, running.thrown().get());
        assertTrue(e.isContextTerminated(), e.getMessage());
        proxy.close(); // its sockets went with the context
        proxy.terminate();
    }

    /**
     * A context closed just as the run has taken its sockets, before it is inside libzmq: the run
     * ends with ETERM all the same. It read the sockets' handles through the checked accessor,
     * which the close had already marked closed, and threw {@link IllegalStateException} ("socket
     * is closed") in some of these 200 rounds, though the run had taken the sockets in time.
     */
    @Test
    void shouldEndWithEtermWhenTheContextClosesAsTheRunStarts() throws Exception {
        for (int round = 0; round < 200; round++) {
            ZmqContext c = new ZmqContext();
            try {
                ZmqSocket frontend = c.socket(SocketType.PULL);
                ZmqSocket backend = c.socket(SocketType.PUSH);
                ZmqProxy proxy = new ZmqProxy(frontend, backend, null);
                Running running = start(proxy); // returns as soon as the run has taken its sockets
                c.close();
                running.awaitEnd();
                Throwable thrown = running.thrown().get();
                if (!(thrown instanceof ZmqException e && e.isContextTerminated())) {
                    throw new AssertionError("round " + round + ": the run ended with " + thrown, thrown);
                }
                proxy.close();
            } finally {
                c.close();
            }
        }
    }

    @Test
    void shouldReturnAtOnceWhenTerminatedBeforeItRuns() throws Exception {
        Stage s = new Stage();
        try (ZmqProxy proxy = new ZmqProxy(s.frontend, s.backend, null)) {
            proxy.terminate();
            proxy.run(); // reads the queued TERMINATE first
            IllegalStateException again = assertThrows(IllegalStateException.class, proxy::run);
            assertTrue(again.getMessage().contains("runs once"), again.getMessage());
        }
    }

    /**
     * Commands sent before the run wait for it however many there are. With libzmq's default
     * high-water marks on the control sockets, about the 2,000th blocked its caller in the send for
     * ever, holding the lock that {@link ZmqProxy#terminate()} and {@link ZmqProxy#close()} take.
     */
    @Test
    void shouldQueueAnyNumberOfCommandsBeforeTheRun() throws Exception {
        Stage s = new Stage();
        try (ZmqProxy proxy = new ZmqProxy(s.frontend, s.backend, null)) {
            Thread steering = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 3000; i++) {
                    proxy.pause();
                    proxy.resume();
                }
            });
            steering.join(10_000);
            if (steering.isAlive()) {
                ctx.shutdown(); // wakes the blocked send, so that close() can take the lock
                steering.join();
                fail("pause()/resume() blocked before the run");
            }
            Running running = start(proxy);
            assertTrue(s.producer.send(b("after 6000 commands"), 0));
            assertEquals("after 6000 commands", s.consumer.receiveString(0), "the last command was RESUME");
            running.terminate(proxy);
        }
    }

    @Test
    void shouldRefuseMisuse() throws Exception {
        Stage s = new Stage();
        assertThrows(NullPointerException.class, () -> new ZmqProxy(null, s.backend, null));
        ZmqSocket closed = socket(SocketType.PUSH);
        closed.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new ZmqProxy(s.frontend, closed, null));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        try (ZmqProxy proxy = new ZmqProxy(s.frontend, s.backend, null)) {
            Running running = start(proxy);
            // a socket the proxy runs on is in a call: another thread's use is refused
            IllegalStateException busy = assertThrows(IllegalStateException.class, () -> s.frontend.receiveBytes(ZmqSocket.DONTWAIT));
            assertTrue(busy.getMessage().contains("two threads at once"), busy.getMessage());
            assertThrows(IllegalStateException.class, proxy::run);
            running.terminate(proxy);
        }
    }
}
