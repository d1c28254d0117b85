package io.zmqzstd.codec;

import io.zmqzstd.codec.internal.LibZstd;
import java.lang.ref.Cleaner;

/**
 * The codec's safety net for an owner of native memory that was dropped without {@code close()}:
 * when a {@link ZstdCompressor} or {@link ZstdDecompressor} becomes unreachable unclosed, its
 * context, digested dictionaries and scratch memory are freed on this cleaner's thread, and a
 * warning names the class (at the 1st, 2nd, 4th... such owner), so that the missing close can be
 * found. Closing stays the rule: the memory of a forgotten owner waits for a collection, which a
 * process with little heap garbage may not have for a long time.
 *
 * <p>Every method of an owner that passes its context to libzstd keeps the owner reachable until
 * the call has returned ({@link java.lang.ref.Reference#reachabilityFence}), so the cleaner can
 * never free a context that a call is still using.
 */
final class Unclosed {

    static final Cleaner CLEANER = Cleaner.create(r -> Thread.ofPlatform().daemon().name("zmqzstd-codec-cleaner").unstarted(r));

    private static final System.Logger LOG = System.getLogger("io.zmqzstd.codec");

    private Unclosed() {
    }

    /**
     * Called by a cleaning action that found its owner not closed. Warns at the 1st, 2nd, 4th,
     * 8th... such owner, so that a leak per request shows without flooding the log.
     */
    static void report(String owner) {
        long n = LibZstd.UNCLOSED_FREED.incrementAndGet();
        if (Long.bitCount(n) == 1) {
            LOG.log(System.Logger.Level.WARNING, owner + " was not closed: its native context and memory were freed"
                    + " when it became unreachable; close it when done (try-with-resources). Unclosed codec owners"
                    + " freed so far: " + n);
        }
    }

    /**
     * What one owner frees, held apart from it so that the cleaner can free it when the owner was
     * dropped unclosed. Runs once: from the owner's close(), or on the cleaner's thread once
     * nothing can reach the owner.
     */
    abstract static class Resources implements Runnable {
        private final String owner;
        /** The owner's scratch memory, once it has any. */
        StreamBuffers buffers;
        /** Set by close() before it runs this; unset when the cleaner runs it. */
        boolean closedByOwner;

        Resources(String owner) {
            this.owner = owner;
        }

        /** Frees the native context and the digested dictionaries. */
        abstract void freeNative() throws Throwable;

        @Override
        public final void run() {
            if (!closedByOwner) {
                report(owner);
            }
            try {
                freeNative();
            } catch (Throwable t) {
                throw LibZstd.rethrow(t);
            } finally {
                if (buffers != null) {
                    buffers.close();
                    buffers = null;
                }
            }
        }
    }
}
