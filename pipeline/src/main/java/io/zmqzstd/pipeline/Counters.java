package io.zmqzstd.pipeline;

import io.zmqzstd.transport.NativeBufferPool;

/**
 * The live counters of one sender or receiver: plain longs, written only by the thread that is
 * using the owner (so no atomics on the hot path), read by {@link #snapshot}. A snapshot taken
 * from another thread may be slightly behind, and its counters need not agree with each other:
 * each is whole (a long, never torn on a 64-bit JVM), but they are read one after another while
 * the owner goes on counting. The pool's hits
 * and misses are not here: they are read from the pool at snapshot time, pool-wide.
 */
final class Counters {
    long messages;
    long parts;
    long envelopeParts;
    long uncompressedBytes;
    long compressedBytes;
    long zeroCopySends;
    long copiedSends;
    long rawFrames;
    long wouldBlock;
    long abandonedMessages;
    long droppedMessages;
    long inlineMessages;
    long undeliveredMessages;
    long poolRents;
    final long[] errors = new long[BadFrameReason.values().length];

    /** A sender's payload part of {@code compressed} bytes, made from {@code uncompressed}, went to libzmq. */
    void frameSent(long uncompressed, long compressed, boolean zeroCopy, boolean raw) {
        if (zeroCopy) {
            zeroCopySends++;
        } else {
            copiedSends++;
        }
        parts++;
        uncompressedBytes += uncompressed;
        compressedBytes += compressed;
        if (raw) {
            rawFrames++;
        }
    }

    PipelineStats snapshot(NativeBufferPool pool) {
        return snapshot(pool, 0, 0);
    }

    /** As {@link #snapshot(NativeBufferPool)}, adding would-blocks and pool rents counted by another thread. */
    PipelineStats snapshot(NativeBufferPool pool, long moreWouldBlock, long morePoolRents) {
        long hits = 0;
        long misses = 0;
        if (pool != null && !pool.isClosed()) {
            NativeBufferPool.Stats s = pool.stats();
            hits = s.hits();
            misses = s.misses();
        }
        return new PipelineStats(messages, parts, envelopeParts, uncompressedBytes, compressedBytes, zeroCopySends,
                copiedSends, rawFrames, wouldBlock + moreWouldBlock, abandonedMessages, droppedMessages,
                inlineMessages, undeliveredMessages, errors.clone(), poolRents + morePoolRents, hits, misses);
    }
}
