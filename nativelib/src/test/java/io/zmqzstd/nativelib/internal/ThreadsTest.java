package io.zmqzstd.nativelib.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ThreadsTest {

    /**
     * An interrupt, before the wait and during it, does not end it: the joined thread has ended on
     * return, the caller is told it was interrupted, and its status is clear for it to set again.
     */
    @Test
    @Timeout(10)
    void shouldWaitForTheThreadThroughInterruptsAndReportThem() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Thread worker = Thread.ofPlatform().start(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        Thread caller = Thread.currentThread();
        caller.interrupt(); // already set when the wait begins
        Thread interrupter = Thread.ofPlatform().start(() -> {
            while (caller.getState() != Thread.State.WAITING) { // in the join, the first interrupt taken
                Thread.onSpinWait();
            }
            caller.interrupt();
            // taken: the join threw, and the caller waits again with its status clear
            while (caller.isInterrupted() || caller.getState() != Thread.State.WAITING) {
                Thread.onSpinWait();
            }
            release.countDown();
        });
        assertTrue(Threads.joinUninterruptibly(worker));
        assertFalse(worker.isAlive());
        assertFalse(Thread.interrupted(), "the status is left for the caller to set");
        interrupter.join(TimeUnit.SECONDS.toMillis(5));
    }

    @Test
    @Timeout(10)
    void shouldReportNoInterruptWhenThereWasNone() {
        Thread worker = Thread.ofPlatform().start(() -> { });
        assertFalse(Threads.joinUninterruptibly(worker));
        assertFalse(worker.isAlive());
    }
}
