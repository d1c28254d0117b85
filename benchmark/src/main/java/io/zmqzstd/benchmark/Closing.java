package io.zmqzstd.benchmark;

/** Closing what a constructor opened before it failed, so that the failure leaks nothing. */
public final class Closing {

    private Closing() {
    }

    /**
     * Closes every non-null resource in the order given (the reverse of opening), each even when an earlier
     * one fails; every failure of a close is added to {@code failure} as suppressed, so the caller rethrows
     * the first failure with all of them attached.
     */
    public static void afterFailure(Throwable failure, AutoCloseable... resources) {
        for (AutoCloseable resource : resources) {
            if (resource == null) {
                continue;
            }
            try {
                resource.close();
            } catch (Exception | Error e) {
                failure.addSuppressed(e);
            }
        }
    }
}
