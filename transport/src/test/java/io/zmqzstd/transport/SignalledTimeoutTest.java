package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * A blocking call (a receive, a send, a poll) with a finite timeout on a thread that signals keep interrupting (as a
 * profiler's timer does) still times out after about its timeout. libzmq gives up its wait with
 * EINTR at each signal; retrying with the whole timeout again, as the socket did before, made the
 * call wait for as long as the signals came. The signals here are real: SIGPIPE sent to the
 * blocked thread with pthread_kill, which the JVM's own handler ignores (and, like every handler,
 * interrupts libzmq's poll).
 */
@EnabledOnOs(OS.LINUX)
class SignalledTimeoutTest extends ContextTestBase {

    private static final int TIMEOUT_MS = 1500;
    /** What a signalled call did. */
    private interface TimedCall {
        boolean run();
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void receiveTimesOutUnderSignals() throws Throwable {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.bind("inproc://signalled-receive");
        pull.receiveTimeoutMs(TIMEOUT_MS);
        signalled("invokeFast", () -> pull.receive(new byte[8], 0) >= 0);
        assertEquals(TIMEOUT_MS, pull.receiveTimeoutMs(), "the shortened timeouts of the retries are not left behind");
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void sendTimesOutUnderSignals() throws Throwable {
        ZmqSocket push = ctx.socket(SocketType.PUSH); // no peer: a send waits for one
        push.bind("inproc://signalled-send");
        push.sendTimeoutMs(TIMEOUT_MS);
        signalled("invokeFast", () -> push.send(new byte[8], 0));
        assertEquals(TIMEOUT_MS, push.sendTimeoutMs(), "the shortened timeouts of the retries are not left behind");
    }

    /** ZmqPoller.poll: EINTR is retried for what is left of the timeout, not the whole of it again. */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void pollTimesOutUnderSignals() throws Throwable {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.bind("inproc://signalled-poll");
        try (ZmqPoller poller = new ZmqPoller(1)) {
            poller.register(pull, ZmqPoller.POLLIN);
            signalled("pollEntered", () -> poller.poll(TIMEOUT_MS) > 0);
        }
    }

    /**
     * Runs {@code call} on a thread that gets SIGPIPE every 50 ms once it is inside the downcall
     * (in the method named {@code frame}), for up to 6 s; the call must end as timed out (false)
     * between the timeout and 4 s.
     */
    private static void signalled(String frame, TimedCall call) throws Throwable {
        AtomicLong tid = new AtomicLong();
        AtomicReference<Object> outcome = new AtomicReference<>();
        AtomicLong tookMs = new AtomicLong();
        Thread caller = Thread.ofPlatform().name("signalled").start(() -> {
            try {
                tid.set(Signals.self());
                long start = System.nanoTime();
                outcome.set(call.run());
                tookMs.set((System.nanoTime() - start) / 1_000_000);
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        // the timed call waits in its first downcall, the non-capturing one
        Endpoints.await("the call inside libzmq", () -> BlockedCalls.inside(caller, frame) && BlockedCalls.inside(caller, frame));
        int signals = 0;
        long deadline = System.nanoTime() + 6_000_000_000L;
        while (caller.isAlive() && System.nanoTime() < deadline) {
            if (Signals.sigpipe(tid.get())) {
                signals++;
            }
            caller.join(50); // pacing between signals; the outcome is awaited by the join below
        }
        caller.join(10_000);
        assertFalse(caller.isAlive());
        assertEquals(Boolean.FALSE, outcome.get(), "the call should time out: " + outcome.get());
        assertTrue(signals >= 10, "signals sent: " + signals);
        assertTrue(tookMs.get() >= TIMEOUT_MS - 20 && tookMs.get() < 4000,
                "timed out after " + tookMs.get() + " ms (timeout " + TIMEOUT_MS + " ms, " + signals + " signals)");
    }
}
