package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A socket is for one thread at a time, but using it from two at once must not leave its count of
 * calls in progress wrong: a count stuck above zero made {@link ZmqSocket#close()} wait forever,
 * one below zero did the same. Found failing (the count was a plain increment) before its fix.
 * Only the count's entry and exit run here, from two threads: libzmq itself is not called
 * concurrently, which would be undefined behaviour in libzmq.
 */
class CallCountMisuseTest {

    private static final int CALLS_PER_THREAD = 2_000_000;

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void concurrentCallsLeaveTheCountAtZeroAndCloseReturns() throws Exception {
        // Not try-with-resources: with a wrong count, closing would hang and hide the assertion.
        ZmqContext ctx = new ZmqContext();
        {
            ZmqSocket socket = ctx.socket(SocketType.PAIR);
            CyclicBarrier start = new CyclicBarrier(2);
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Runnable calls = () -> {
                try {
                    start.await();
                    for (int i = 0; i < CALLS_PER_THREAD; i++) {
                        socket.enter();
                        socket.exit();
                    }
                } catch (Throwable t) {
                    failed.set(t);
                }
            };
            Thread a = new Thread(calls, "calls-a");
            Thread b = new Thread(calls, "calls-b");
            a.start();
            b.start();
            a.join(TimeUnit.SECONDS.toMillis(30));
            b.join(TimeUnit.SECONDS.toMillis(30));
            assertNull(failed.get());
            assertFalse(socket.inCall(), "no call is in progress, but the count is not zero");
            socket.close(); // waits for the count to reach zero: hung with a lost update
            assertThrows(IllegalStateException.class, () -> socket.send(new byte[1], 0));
        }
        ctx.close();
    }
}
