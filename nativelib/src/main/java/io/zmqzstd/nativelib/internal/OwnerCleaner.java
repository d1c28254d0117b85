package io.zmqzstd.nativelib.internal;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one cleaner thread of zmq-zstd, and its warning for owners of native memory dropped without
 * {@code close()}: shared by the codec's contexts and the pipeline's senders and receivers. Not API.
 */
public final class OwnerCleaner {

    /** Frees what unreachable owners left, on the daemon thread {@code zmqzstd-cleaner}. */
    public static final Cleaner CLEANER = Cleaner.create(r -> Thread.ofPlatform().daemon().name("zmqzstd-cleaner").unstarted(r));

    private OwnerCleaner() {
    }

    /**
     * Counts one owner that the cleaner freed because it was not closed, and warns at the 1st, 2nd,
     * 4th, 8th... such owner of {@code count}, so that a leak per request shows without flooding
     * the log.
     *
     * @param log where the warning goes
     * @param count the owners of this kind freed unclosed so far
     * @param owner the owner's class, e.g. {@code ZstdCompressor}
     * @param freed what was freed, e.g. "its native memory was"
     * @param kind the owners {@code count} counts, e.g. "senders and receivers"
     */
    public static void reportUnclosed(System.Logger log, AtomicLong count, String owner, String freed, String kind) {
        long n = count.incrementAndGet();
        if (Long.bitCount(n) == 1) {
            log.log(System.Logger.Level.WARNING, owner + " was not closed: " + freed + " freed when it became"
                    + " unreachable; close it when done (try-with-resources). Unclosed " + kind + " freed so far: " + n);
        }
    }
}
