package io.zmqzstd.benchmark;

/**
 * Closing what a contestant owns, in one order for its close and for a constructor that failed halfway, so
 * that neither leaks what a failing close in front of it would have left open.
 */
public final class Closing {

    private Closing() {
    }

    /**
     * Closes every non-null resource in the order given, each even when an earlier one fails, and then throws
     * the first failure, the later ones added to it as suppressed (a checked one wrapped in an
     * {@link IllegalStateException}).
     */
    public static void inOrder(AutoCloseable... resources) {
        Throwable failure = closeEach(null, resources);
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        if (failure != null) {
            throw new IllegalStateException("close failed: " + failure, failure);
        }
    }

    /**
     * Closes every non-null resource in the order given (the reverse of opening), each even when an earlier
     * one fails; every failure of a close is added to {@code failure} as suppressed, so the caller rethrows
     * the first failure with all of them attached.
     */
    public static void afterFailure(Throwable failure, AutoCloseable... resources) {
        closeEach(failure, resources);
    }

    /** Closes each non-null resource; returns {@code failure}, or the first failure of a close, with the rest suppressed. */
    private static Throwable closeEach(Throwable failure, AutoCloseable... resources) {
        for (AutoCloseable resource : resources) {
            if (resource == null) {
                continue;
            }
            try {
                resource.close();
            } catch (Exception | Error e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        return failure;
    }
}
