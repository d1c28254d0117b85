package io.zmqzstd.pipeline;

import java.util.Objects;

/**
 * A snapshot of one sender's or receiver's counters since it was built. Immutable; taking one
 * allocates, counting does not (the live counters are plain fields updated by the owning thread,
 * cheap enough to stay on).
 *
 * <p>For a sender "uncompressed" is what the caller gave and "compressed" what went on the wire
 * (payload parts only); for a receiver the other way round. Envelope parts are counted apart
 * and not in the byte totals.
 */
public final class PipelineStats {

    private final long messages;
    private final long parts;
    private final long envelopeParts;
    private final long uncompressedBytes;
    private final long compressedBytes;
    private final long zeroCopySends;
    private final long copiedSends;
    private final long rawFrames;
    private final long wouldBlock;
    private final long abandonedMessages;
    private final long droppedMessages;
    private final long inlineMessages;
    private final long undeliveredMessages;
    private final long[] errors;
    private final long poolRents;
    private final long poolWideHits;
    private final long poolWideMisses;

    PipelineStats(long messages, long parts, long envelopeParts, long uncompressedBytes, long compressedBytes,
                  long zeroCopySends, long copiedSends, long rawFrames, long wouldBlock, long abandonedMessages, long droppedMessages, long inlineMessages,
                  long undeliveredMessages, long[] errors, long poolRents, long poolWideHits, long poolWideMisses) {
        this.messages = messages;
        this.parts = parts;
        this.envelopeParts = envelopeParts;
        this.uncompressedBytes = uncompressedBytes;
        this.compressedBytes = compressedBytes;
        this.zeroCopySends = zeroCopySends;
        this.copiedSends = copiedSends;
        this.rawFrames = rawFrames;
        this.wouldBlock = wouldBlock;
        this.abandonedMessages = abandonedMessages;
        this.droppedMessages = droppedMessages;
        this.inlineMessages = inlineMessages;
        this.undeliveredMessages = undeliveredMessages;
        this.errors = errors;
        this.poolRents = poolRents;
        this.poolWideHits = poolWideHits;
        this.poolWideMisses = poolWideMisses;
    }

    /**
     * Whole messages sent or delivered (the part without SNDMORE / with no more parts closed it).
     *
     * @return the number of messages
     */
    public long messages() {
        return messages;
    }

    /**
     * Payload (compressed) parts sent or delivered.
     *
     * @return the number of payload parts
     */
    public long parts() {
        return parts;
    }

    /**
     * Envelope parts (routing ids, delimiters, topics) passed through uncompressed.
     *
     * @return the number of envelope parts
     */
    public long envelopeParts() {
        return envelopeParts;
    }

    /**
     * Payload bytes before compression (sender) or after decompression (receiver).
     *
     * @return the total in bytes
     */
    public long uncompressedBytes() {
        return uncompressedBytes;
    }

    /**
     * Payload bytes as zstd frames on the wire.
     *
     * @return the total in bytes
     */
    public long compressedBytes() {
        return compressedBytes;
    }

    /**
     * uncompressed / compressed bytes: above 1 saves bandwidth, below 1 expands (0 before any
     * payload).
     *
     * @return {@link #uncompressedBytes()} divided by {@link #compressedBytes()}, or 0 when no
     *     compressed bytes were counted
     */
    public double ratio() {
        return compressedBytes == 0 ? 0 : (double) uncompressedBytes / compressedBytes;
    }

    /**
     * Sender: parts whose pooled buffer became the ZeroMQ message without a copy.
     *
     * @return the number of such parts; 0 for a receiver
     */
    public long zeroCopySends() {
        return zeroCopySends;
    }

    /**
     * Sender: parts libzmq copied (below the zero-copy threshold).
     *
     * @return the number of such parts; 0 for a receiver
     */
    public long copiedSends() {
        return copiedSends;
    }

    /**
     * Sender: parts sent as a raw-block frame without a compressor call.
     *
     * @return the number of such parts; 0 for a receiver
     */
    public long rawFrames() {
        return rawFrames;
    }

    /**
     * Sender: sends that returned false (would block); the caller still had the payload. A
     * {@link ParallelCompressingSender} adds each time the socket's send timeout refused one of
     * its own sends of a message already taken (a worker's, which retries it, or one after
     * {@code close()} began, which drops it), so it can count one message many times.
     * Receiver: receives that returned {@link DecompressingReceiver#WOULD_BLOCK} (DONTWAIT found
     * nothing, or the receive timeout expired).
     *
     * @return the number of would-blocks
     */
    public long wouldBlock() {
        return wouldBlock;
    }

    /**
     * Sender: messages begun and not delivered whole. A {@link CompressingSender} counts a message
     * it ended with a 0-byte part, which a zmq-zstd receiver refuses as
     * {@link BadFrameReason#EMPTY}: a later part failed before reaching the socket, or
     * {@link CompressingSender#close()} found the message open; and one whose later part libzmq
     * refused because the peer went away in the middle of it (under DONTWAIT or a send timeout of
     * 0), which libzmq dropped itself (no 0-byte part; the send returned true; when the refused
     * part was not the last, the message counts when its last part is sent, and the parts libzmq
     * dropped count nowhere); and one that the socket ended by failing a later part, or the 0-byte
     * part, with an exception (its context shut down or closed: ETERM; the socket closed), since
     * libzmq never delivers a message cut short (before 2026-11-27 such a message counted nowhere).
     * So every message whose first part went out counts once, here or in {@link #messages()}. A
     * message libzmq drops under a send that may block is not seen, and counts in
     * {@link #messages()}.
     *
     * @return the number of such messages; 0 for a receiver and for a
     *     {@link ParallelCompressingSender}
     */
    public long abandonedMessages() {
        return abandonedMessages;
    }

    /**
     * Sender: messages a {@link ParallelCompressingSender} took from the caller and never handed
     * to libzmq whole: after a failure, or refused by the socket's send timeout once
     * {@link ParallelCompressingSender#close()} had begun; also a message with a topic whose frame
     * libzmq refused after the topic went in (the peer went away in the middle of the message, with
     * a send timeout of 0: libzmq dropped the message, the topic included, and the frame is not
     * sent again, which would send it alone); and a message whose topic, its routing id, a ROUTER under
     * {@code ZMQ_ROUTER_MANDATORY} or a STREAM refused because no peer has that id (nothing of it went out; a
     * {@link CompressingSender} throws that {@code ZmqException} to the caller instead). Always 0 for
     * the other senders ({@link #abandonedMessages()} counts the peer gone mid-message for a
     * {@link CompressingSender}). A {@code send}, {@code publish}, {@code claim} or {@code commit}
     * refused because of an earlier failure (it throws it) takes nothing and is not counted, a
     * claim's message included.
     *
     * @return the number of such messages; 0 for a receiver
     */
    public long droppedMessages() {
        return droppedMessages;
    }

    /**
     * Sender: messages a {@link ParallelCompressingSender} compressed and sent on the caller's
     * thread (small, with nothing in flight) instead of handing them to a worker; included in
     * {@link #messages()}. Always 0 for the other senders.
     *
     * @return the number of such messages; 0 for a receiver
     */
    public long inlineMessages() {
        return inlineMessages;
    }

    /**
     * Receiver: messages {@link DecompressingReceiver#receiveInto receiveInto} took off the socket
     * and handed back in an {@link UndeliveredMessageException} instead of writing them to the
     * caller's destination (a part that did not fit, a destination that could not be written),
     * and the ones it could not hand back whole because the payload parts already written to the
     * destination could not be read back from it (its arena closed during the receive): lost, with
     * an {@link IllegalStateException} saying so. Not in {@link #messages()}, {@link #parts()}, the byte totals or {@link #errors()}: a message
     * taken counts once, here, there or among the errors (unless the receive threw another
     * failure, a socket error, say).
     *
     * @return the number of such messages; 0 for a sender
     */
    public long undeliveredMessages() {
        return undeliveredMessages;
    }

    /**
     * Receiver: messages refused for {@code reason}.
     *
     * @param reason the reason to count
     * @return the number of such messages; 0 for a sender
     * @throws NullPointerException when {@code reason} is null, named "reason"
     */
    public long errors(BadFrameReason reason) {
        return errors[Objects.requireNonNull(reason, "reason").ordinal()];
    }

    /**
     * Receiver: messages refused for any reason.
     *
     * @return the sum of {@link #errors(BadFrameReason)} over every reason; 0 for a sender
     */
    public long errors() {
        long n = 0;
        for (long e : errors) {
            n += e;
        }
        return n;
    }

    /**
     * Sender: pooled buffers this sender rented: a {@link CompressingSender} one per part whose
     * payload reached the zero-copy threshold; a {@link ParallelCompressingSender} two per message
     * handed to a worker (its payload's copy or claimed buffer, and its frame), none for one sent
     * inline from {@code send}, one for a claim sent inline, aborted or dropped. Receivers rent
     * none.
     *
     * @return the number of rents; 0 for a receiver
     */
    public long poolRents() {
        return poolRents;
    }

    /**
     * Rents served from a free pooled buffer by the socket context's pool, <b>pool-wide</b>: all
     * senders on that context together, not this one alone (the pool does not tell a rent's caller
     * whether it hit).
     *
     * @return the pool's hits when the snapshot was taken; 0 when the pool (or the receiver) was
     *     closed by then
     */
    public long poolWideHits() {
        return poolWideHits;
    }

    /**
     * Rents that had to carve a new slot or fall back to an unpooled buffer (which allocates on
     * the heap), <b>pool-wide</b> like {@link #poolWideHits()}.
     *
     * @return the pool's misses when the snapshot was taken; 0 when the pool (or the receiver) was
     *     closed by then
     */
    public long poolWideMisses() {
        return poolWideMisses;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("messages=").append(messages).append(", parts=").append(parts)
                .append(", envelopeParts=").append(envelopeParts)
                .append(", uncompressedBytes=").append(uncompressedBytes)
                .append(", compressedBytes=").append(compressedBytes)
                .append(", ratio=").append(String.format(java.util.Locale.ROOT, "%.3f", ratio()))
                .append(", zeroCopySends=").append(zeroCopySends).append(", copiedSends=").append(copiedSends)
                .append(", rawFrames=").append(rawFrames).append(", wouldBlock=").append(wouldBlock)
                .append(", abandonedMessages=").append(abandonedMessages)
                .append(", droppedMessages=").append(droppedMessages)
                .append(", inlineMessages=").append(inlineMessages)
                .append(", undeliveredMessages=").append(undeliveredMessages)
                .append(", errors=").append(errors());
        for (BadFrameReason r : BadFrameReason.values()) {
            if (errors[r.ordinal()] != 0) {
                s.append(", ").append(r).append('=').append(errors[r.ordinal()]);
            }
        }
        return s.append(", poolRents=").append(poolRents).append(", poolWideHits=").append(poolWideHits)
                .append(", poolWideMisses=").append(poolWideMisses).toString();
    }
}
