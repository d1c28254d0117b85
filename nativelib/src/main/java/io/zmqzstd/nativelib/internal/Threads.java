package io.zmqzstd.nativelib.internal;

/**
 * Waiting for a thread that must end before the caller goes on, whatever interrupts the caller
 * meanwhile: the modules' closes and calls that hand work to a thread of their own. Not API.
 */
public final class Threads {

    private Threads() {
    }

    /**
     * Waits until {@code thread} has ended. An interrupt does not end the wait; the caller sets its
     * interrupt status again when the work it has still to do allows (a park in a close would
     * return at once with it set).
     *
     * @param thread the thread to wait for; it must be going to end
     * @return whether the caller was interrupted while it waited (its status is then clear)
     */
    public static boolean joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        for (;;) {
            try {
                thread.join();
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
    }
}
