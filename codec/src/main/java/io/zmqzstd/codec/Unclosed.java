package io.zmqzstd.codec;

import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.nativelib.internal.OwnerCleaner;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The codec's safety net for an owner of native memory that was dropped without {@code close()}:
 * when a {@link ZstdCompressor} or {@link ZstdDecompressor} becomes unreachable unclosed, its
 * context, digested dictionaries and scratch memory are freed on the thread {@code zmqzstd-cleaner}
 * ({@link OwnerCleaner}, shared with the pipeline), and a
 * warning names the class (at the 1st, 2nd, 4th... such owner), so that the missing close can be
 * found. Closing stays the rule: the memory of a forgotten owner waits for a collection, which a
 * process with little heap garbage may not have for a long time.
 *
 * <p>Every method of an owner that passes its context to libzstd keeps the owner reachable until
 * the call has returned ({@link java.lang.ref.Reference#reachabilityFence}), so the cleaner can
 * never free a context that a call is still using.
 */
final class Unclosed {

    private static final System.Logger LOG = System.getLogger("io.zmqzstd.codec");

    private Unclosed() {
    }

    /**
     * What one owner frees, held apart from it so that the cleaner can free it when the owner was
     * dropped unclosed: its context, the dictionaries digested for it (freed after the context
     * that referenced them) and its scratch memory. Runs once: from the owner's close(), or on the
     * cleaner's thread once nothing can reach the owner.
     */
    static final class Resources implements Runnable {
        private static final long[] NONE = new long[0];

        /** What the warning names: the owner's class, or the stream that made it for itself ({@link #heldBy}). */
        private volatile String owner;
        /** {@code size_t ZSTD_freeCCtx(ctx)} or {@code ZSTD_freeDCtx}. */
        private final MethodHandle freeContext;
        private final AtomicLong liveContexts;
        private final LongConsumer freeDictionary;
        /** The owner's context, once created; 0 when freed. */
        long context;
        /** The digested dictionaries the context refers to. */
        long[] dictionaries = NONE;
        /** The owner's scratch memory, once it has any. */
        StreamBuffers buffers;
        /** Set by close() before it runs this; unset when the cleaner runs it. */
        boolean closedByOwner;

        Resources(String owner, MethodHandle freeContext, AtomicLong liveContexts, LongConsumer freeDictionary) {
            this.owner = owner;
            this.freeContext = freeContext;
            this.liveContexts = liveContexts;
            this.freeDictionary = freeDictionary;
        }

        /**
         * The owner was made by {@code holder} (a stream given no compressor or decompressor) and
         * is closed by it: the warning names {@code holder}, which is what the user dropped.
         */
        void heldBy(String holder) {
            owner = holder + " (its own " + owner + ")";
        }

        /**
         * Frees the context and holds {@code fresh} in its place: a compressor replacing a context
         * it may not use again ({@link ZstdCompressor}'s abandoned multithreaded frame).
         */
        void swapContext(long fresh) throws Throwable {
            long old = context;
            context = fresh;
            long ignored = (long) freeContext.invokeExact(old);
            liveContexts.decrementAndGet();
        }

        @Override
        public void run() {
            if (!closedByOwner) {
                OwnerCleaner.reportUnclosed(LOG, LibZstd.UNCLOSED_FREED, owner, "its native context and memory were",
                        "codec owners");
            }
            try {
                if (context != 0) {
                    long ignored = (long) freeContext.invokeExact(context);
                    context = 0;
                    liveContexts.decrementAndGet();
                }
                for (long dictionary : dictionaries) {
                    freeDictionary.accept(dictionary);
                }
                dictionaries = NONE;
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
