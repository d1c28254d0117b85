package io.zmqzstd.pipeline;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdFrames;
import io.zmqzstd.nativelib.internal.CallGuard;
import io.zmqzstd.nativelib.internal.MemoryFaults;
import io.zmqzstd.nativelib.internal.RawSegments;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.PooledBuffer;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqPoller;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Compresses each payload part into one standard zstd frame and sends it on a ZeroMQ socket,
 * without the frame ever touching the Java heap.
 *
 * <p>Paths. One rule decides zero-copy: a part goes out zero-copy when its <em>frame</em> (what
 * libzmq would copy) is at least {@code zeroCopyThresholdBytes}. The frame's size is known only
 * after compressing, so the payload length {@code len} chooses where to compress:
 * <ul>
 * <li>{@code len >= zeroCopyThresholdBytes}: into a {@link PooledBuffer} rented from the socket
 *     context's {@link NativeBufferPool}. A frame at or above the threshold becomes the ZeroMQ
 *     message itself ({@link ZmqSocket#sendPooled}; libzmq hands the buffer back to the pool when
 *     done with it). A payload that compressed below it is copied by libzmq and the buffer goes
 *     straight back (one rent and return: two CAS operations, no allocation).</li>
 * <li>below it: into this sender's reusable native scratch memory, which libzmq copies (such a
 *     frame is below the threshold too, give or take a few header bytes for data that does not
 *     compress).</li>
 * <li>{@code len < rawFrameBelowBytes} (default {@value #DEFAULT_RAW_FRAME_BELOW_BYTES}; never with a
 *     dictionary or a checksum), or the payload looks incompressible after a frame that did not
 *     gain ({@link Builder#rawIncompressible}): write a frame of
 *     raw blocks ({@link ZstdFrames#writeRawFrame}), no compressor call.</li>
 * </ul>
 *
 * <p>Outcomes: every send returns {@code true} when libzmq took the part and {@code false} only
 * when it would block ({@link ZmqSocket#DONTWAIT} at the high-water mark, or a send timeout);
 * then nothing of the part was sent, no pooled buffer is held, and the caller still owns its
 * unchanged payload and may send it again. Without DONTWAIT a send blocks at the high-water
 * mark, as libzmq does. A later part of a message is never refused for the high-water mark; libzmq
 * (on PUSH, DEALER and REQ, under DONTWAIT or a send timeout of 0) refuses one only when the pipe
 * the message is going to stops taking parts (its peer went away in the middle of the message, or
 * its high-water mark was lowered under what it holds), and has then dropped the message, the parts
 * already sent included, and drops the parts still to come up to the last, reporting them sent:
 * that send and the rest of the message return {@code true}, as blocking sends would, nothing of the
 * message reaches a peer, and it counts in {@link PipelineStats#abandonedMessages()}, not in
 * {@code messages}. A send that may block (no DONTWAIT, a send timeout other than 0) is not refused:
 * libzmq drops the message silently and the sender counts it as sent; {@link #publish} sends its
 * frame so, after the topic. Under DONTWAIT too, libzmq drops the rest of the message silently
 * when the socket had already taken the end of that pipe from libzmq's command queue before the
 * part: the message then counts as sent (see ZmqSocket's class comment). Failures throw
 * ({@code ZmqException}, {@code ZstdException}); one that ends a message after some of its parts
 * went out (ETERM, a closed socket) leaves it undelivered, and it counts in
 * {@link PipelineStats#abandonedMessages()}.
 *
 * <p>Multipart messages: libzmq refuses (would-block) only the <em>first</em> part of a message
 * at the high-water mark; once that is in, it takes the remaining parts at once. So a DONTWAIT
 * message is sent whole or not at all as long as every later part reaches the socket:
 * {@link #publish} compresses its payload before the topic goes out, and so never leaves half a
 * message. With separate calls ({@link #sendEnvelope} or {@code send} with
 * {@link ZmqSocket#SNDMORE}, then {@code send}), a later part can still fail before reaching the
 * socket (its payload cannot be read or compressed); libzmq cannot take back the parts already
 * in, so the sender then ends that message with a 0-byte part, which a zmq-zstd receiver refuses
 * as {@code EMPTY}, counts it ({@link PipelineStats#abandonedMessages()}) and rethrows: the
 * next send starts a new message instead of joining the broken one.
 *
 * <p>Ownership: payloads stay the caller's; nothing refers to them after a call returns, except
 * the last direct {@code ByteBuffer} sent, which the sender refers to until another direct buffer
 * comes or it is closed (see {@link #send(ByteBuffer, int)}). The socket is borrowed: close the
 * sender first, then the socket. The sender owns its compressor, its scratch memory and the
 * staging memory that array payloads are copied into; {@link #close()} frees them. Dropped
 * unclosed, it is freed once the garbage collector finds it unreachable, with a warning (see the
 * module's README).
 *
 * <p>Threading: one thread at a time, like the socket (hand over with a happens-before edge).
 * Two threads inside the sender at once fail with {@link IllegalStateException} naming both.
 *
 * <p>Allocation: {@link #send(MemorySegment, int)} and {@link #send(MemorySegment, long, long, int)}
 * with native segments allocate nothing on the Java heap in steady state (when the pool's leak
 * detection is {@code disabled}; sampled detection records a stack trace for one rent in 64), nor
 * do {@link #sendEnvelope} and {@link #publish(byte[], MemorySegment, int)} with a native payload
 * (before 2026-11-27 an array topic or envelope part cost 72 B a call), nor
 * {@link #publish(MemorySegment, MemorySegment, int)} with a native topic and payload, nor
 * {@link #reply(ReceivedMessage, MemorySegment, int)} with a native payload, which sends the
 * request's envelope parts from its receiver's region (where {@code publish(request.part(0), …)}
 * allocates the slice {@code part(0)} makes, 40 B a reply). Nor do the
 * {@code byte[]} payloads of {@link #send(byte[], int)} and the {@code publish} overloads of up to
 * 128 KiB, nor {@link #send(ByteBuffer, int)} with a heap buffer of up to 128 KiB remaining or
 * with a direct buffer (after its first call with that buffer): an array is copied into the
 * sender's staging memory, a direct buffer read in place (before 2026-11-27 each of them cost
 * 72 B a call, a {@code MemorySegment} wrapper that the JIT did not remove). A larger array or heap buffer, and a read-only heap buffer at any size, are
 * still wrapped in a {@code MemorySegment}, one small heap object per call.
 *
 * <pre>{@code
 * try (CompressingSender sender = CompressingSender.builder(socket).level(3).build()) {
 *     while (!sender.send(payload, ZmqSocket.DONTWAIT)) {
 *         // back-pressure: payload is still ours; wait, drop or retry
 *     }
 * }
 * }</pre>
 */
public final class CompressingSender implements AutoCloseable {

    /**
     * Parts shorter than this go out as raw-block frames by default (measured, BENCHMARKS.md
     * "raw frames"): telemetry events of 64 B do not compress (zstd stores them raw anyway) and of
     * 128 B gain 2.8 %, while skipping the compressor sends 4.2x resp. 10.9x more of them per second.
     */
    public static final long DEFAULT_RAW_FRAME_BELOW_BYTES = 128;

    /** The part that ends an abandoned message (see abandonOpenMessage). */
    private static final byte[] NO_BYTES = new byte[0];

    /** Scratch for frames below the zero-copy threshold starts here and grows on demand. */
    private static final long INITIAL_SCRATCH_BYTES = 64 * 1024;

    /**
     * Array payloads ({@code byte[]}, a heap {@code ByteBuffer}'s array) of at most this many bytes
     * are copied into the sender's staging memory and compressed from there, allocating nothing;
     * a larger one is wrapped in a heap segment per call and copied by the codec through its own
     * scratch, in chunks. 128 KiB is the codec's largest heap input compressed in one call
     * ({@code ZstdCompressor.ONE_SHOT_HEAP_MAX_INPUT_BYTES}): up to it, staging makes the same one
     * copy and the same libzstd call as the codec did, and the codec's 512 KiB of scratch is not
     * needed; above it, the wrapper (72 B measured) is under 0.06 % of the payload, while staging
     * there would hold as much native memory as the largest array ever sent.
     *
     * <p>An array shorter than {@code rawFrameBelowBytes} (128 B by default) is not staged: its
     * raw-block frame is written from the array itself (the array form of
     * {@link ZstdFrames#writeRawFrame(byte[], int, int, MemorySegment, long, long)}, since
     * 2026-11-27; before, it was copied into the staging memory and from there into the frame). A
     * staged payload judged incompressible (at most {@link IncompressibleCheck#MAX_PAYLOAD_BYTES},
     * 16 KiB) is still copied twice, into the staging memory and from there into its frame: the
     * check samples the staged copy, before anyone knows that its frame is raw.
     */
    static final int MAX_STAGED_PAYLOAD_BYTES = 128 * 1024;

    /** The staging memory's first size at least: a few small payloads of growing size grow it once. */
    private static final long MIN_STAGING_BYTES = 4 * 1024;

    private final ZmqSocket socket;
    private final NativeBufferPool pool;
    private final ZstdCompressor compressor;
    private final FrameOptions frames;
    /** Sends payloads that look incompressible raw; null when {@code rawIncompressible} is off. */
    private final IncompressibleCheck incompressible;
    private final CallGuard owner = new CallGuard("CompressingSender", null, "a callback");
    private final Counters counters = new Counters();
    /**
     * The scratch's and the staging memory's arenas, freed by close() or, if this is dropped
     * unclosed, by {@link Unclosed}.
     */
    private final Unclosed.Memory memory = Unclosed.Memory.register(this, "CompressingSender", null);
    private MemorySegment scratch;
    /** Array payloads are copied here ({@link #stage}); null until the first one. In its own arena. */
    private MemorySegment staging;
    /** Reads ByteBuffer payloads, keeping the last direct buffer's segment. */
    private final BufferPayload bufferView = new BufferPayload(
            (array, segment, offset, length, flags) -> sendPart(null, null, null, array, segment, offset, length, flags));
    /** True after a part with SNDMORE went out: libzmq holds the start of a message. */
    private boolean messageOpen;
    /**
     * libzmq refused a part with SNDMORE inside the open message: it dropped the message and drops
     * the parts that follow up to the last, reporting each sent (see notTaken). Those parts are
     * not counted as sent, and the message that their last ends counts as abandoned.
     */
    private boolean messageDropped;
    /**
     * The last message's first part would have blocked (DONTWAIT at the high-water mark, or a
     * send timeout): until a send goes out, a DONTWAIT send first asks the socket for room
     * (ZMQ_EVENTS) and is refused without compressing when there is none. Before 2026-11-29 a
     * caller retrying a refused send compressed the payload again (and rented its buffer) on every
     * retry, found by reliability's RestartJourneyTest (poolRents = messages + wouldBlock).
     */
    private boolean refusedLast;
    private boolean closed;
    /**
     * {@link #closed} for {@link #isClosed()}, which any thread may call: the send path reads the
     * plain field, written only by the owner's close().
     */
    private volatile boolean closeBegun;

    /** Options for a sender. */
    public static final class Builder extends SenderBuilder<Builder> {

        private Builder(ZmqSocket socket) {
            super(socket);
        }

        @Override
        Builder self() {
            return this;
        }

        /**
         * A new sender over the socket; the caller owns it and closes it before the socket. It
         * takes the settings as they are now: the builder may be changed and built again, and
         * changing it does not change the senders already built.
         *
         * @return the new sender
         * @throws IllegalArgumentException when the settings contradict each other or the socket:
         *     a raw-frame limit or {@code rawIncompressible(true)} with a dictionary or a checksum,
         *     {@code dictionaryIdInFrame(false)} without a dictionary, a zero-copy threshold below
         *     the socket's, or a socket of a type that cannot send (PULL, SUB: named, with the
         *     types a sender takes)
         * @throws IllegalStateException when the socket or the dictionary is closed, or an open
         *     {@link ParallelCompressingSender} holds the socket (its workers send on it from their
         *     own threads). Other {@code CompressingSender}s on the socket are no obstacle, and this
         *     one keeps a {@code ParallelCompressingSender} from being built on it until it is
         *     closed, or collected unclosed
         */
        public CompressingSender build() {
            return new CompressingSender(this, resolveFrames());
        }
    }

    /**
     * Options for a sender on {@code socket}, starting from level 3, no checksum, no dictionary.
     *
     * @param socket the socket to send on; borrowed, not owned
     * @return a new builder
     */
    public static Builder builder(ZmqSocket socket) {
        return new Builder(socket);
    }

    private CompressingSender(Builder b, FrameOptions frames) {
        this.socket = b.socket;
        this.pool = socket.context().bufferPool();
        this.frames = frames;
        try {
            // Counted on the socket until the memory is freed (close() or the cleaner), so that a
            // ParallelCompressingSender is not built on it meanwhile (SocketCheck)
            SocketCheck.use(socket);
            memory.socket = socket;
            this.compressor = frames.newCompressor();
        } catch (RuntimeException e) {
            memory.close();
            throw e;
        }
        try {
            this.incompressible = frames.newIncompressibleCheck();
            long first = Math.min(INITIAL_SCRATCH_BYTES,
                    ZstdCompressor.maxCompressedSize(Math.max(0, Math.min(zeroCopyThresholdBytes(), 1L << 30) - 1)));
            growScratch(Math.max(first, ZstdFrames.rawFrameSize(0)));
        } catch (RuntimeException | Error e) {
            memory.close();
            compressor.close();
            throw e;
        }
    }

    /**
     * Frames (and payloads) of at least this many bytes are sent zero-copy: the builder's
     * threshold (default the pool's), or the socket's {@link ZmqSocket#zeroCopyThresholdBytes()}
     * when that is higher.
     *
     * @return the threshold in force for the next frame, in bytes
     */
    public long zeroCopyThresholdBytes() {
        return frames.zeroCopyThreshold(socket);
    }

    /**
     * Payloads shorter than this are sent as raw-block frames (0 = never).
     *
     * @return the raw-frame limit in bytes, 0 when off
     */
    public long rawFrameBelowBytes() {
        return frames.rawFrameBelowBytes;
    }

    /**
     * Whether payloads that look incompressible go out as raw-block frames (see the builder).
     *
     * @return true when the check is on
     */
    public boolean rawIncompressible() {
        return frames.rawIncompressible;
    }

    /**
     * The socket this sender writes to (borrowed, not owned).
     *
     * @return the socket given to {@link #builder}
     */
    public ZmqSocket socket() {
        return socket;
    }

    /**
     * Compresses and sends all of {@code payload}; see the class comment for the outcome. As
     * {@link #send(MemorySegment, long, long, int)} from offset 0 to the segment's size.
     *
     * @param payload the bytes to send; stays the caller's
     * @param flags 0, {@link ZmqSocket#DONTWAIT}, {@link ZmqSocket#SNDMORE}, or both
     * @return true when libzmq took the part; false when it would block (DONTWAIT at the
     *     high-water mark, or the socket's send timeout): nothing was sent and the payload is
     *     still the caller's
     * @throws IllegalStateException when the sender is closed or used by two threads at once
     */
    public boolean send(MemorySegment payload, int flags) {
        return send(payload, 0, payload.byteSize(), flags);
    }

    /**
     * Compresses {@code payload[offset, offset + length)} into one frame and sends it as one part.
     * {@code flags}: {@link ZmqSocket#DONTWAIT}, {@link ZmqSocket#SNDMORE}. The segment stays the
     * caller's; its arena must stay open during the call. Zero heap allocation for native
     * segments.
     *
     * @param payload the segment that holds the bytes to send
     * @param offset where the bytes start in {@code payload}
     * @param length how many bytes to send; 0 sends the frame of an empty payload
     * @param flags 0, {@link ZmqSocket#DONTWAIT}, {@link ZmqSocket#SNDMORE}, or both
     * @return true when libzmq took the part; false when it would block (DONTWAIT at the
     *     high-water mark, or the socket's send timeout): nothing was sent and the payload is
     *     still the caller's
     * @throws IndexOutOfBoundsException when {@code offset} or {@code length} is negative or the
     *     range passes the end of {@code payload}
     * @throws IllegalStateException when the sender is closed or used by two threads at once, or
     *     {@code payload} is a file mapping that faulted ("payload could not be read: a fault in its
     *     memory …", naming the range, with the JDK's {@link InternalError} as its cause: a file
     *     shortened since it was mapped; nothing of it was sent, and the sender goes on)
     */
    public boolean send(MemorySegment payload, long offset, long length, int flags) {
        Objects.checkFromIndexSize(offset, length, payload.byteSize());
        return sendOwned(null, null, null, null, payload, offset, length, flags);
    }

    /**
     * Compresses and sends all of {@code payload}. Heap memory is never handed to zstd in a
     * critical call, so a compression never holds the GC off: an array of up to 128 KiB is copied
     * into the sender's native staging memory (grown on demand to the largest such array seen,
     * at most 128 KiB, and freed by {@link #close()}) and compressed from there, allocating
     * nothing; a larger one is wrapped in a {@code MemorySegment} (one small heap object per call)
     * and copied by the codec through its native scratch memory, in chunks. One copy either way
     * before compressing, as before 2026-11-27. An array shorter than {@code rawFrameBelowBytes}
     * is copied straight into its raw-block frame, not staged; a staged one judged incompressible
     * is copied from the staging memory into its raw-block frame. For no copy at all, pass a
     * native segment.
     *
     * @param payload the bytes to send, all of the array; stays the caller's
     * @param flags 0, {@link ZmqSocket#DONTWAIT}, {@link ZmqSocket#SNDMORE}, or both
     * @return true when libzmq took the part; false when it would block, as for
     *     {@link #send(MemorySegment, long, long, int)}: nothing was sent
     * @throws IllegalStateException when the sender is closed or used by two threads at once
     */
    public boolean send(byte[] payload, int flags) {
        Objects.requireNonNull(payload, "payload");
        return sendOwned(null, null, null, payload, null, 0, payload.length, flags);
    }

    /**
     * Compresses and sends {@code payload}'s bytes from its position to its limit. A direct buffer
     * is read in place like a native segment, through a segment over the whole buffer that the
     * sender makes at the first call with that buffer and keeps: the sender refers to the last
     * direct buffer sent (and so keeps its memory from being freed) until another direct buffer
     * comes or the sender is closed, and sending the same buffer again allocates nothing. A heap
     * buffer is read like an array ({@link #send(byte[], int)}) from its {@code arrayOffset()}
     * plus position; a read-only heap buffer, whose array is not accessible, is wrapped in a
     * {@code MemorySegment}, one small heap object per call. Position and limit are left
     * unchanged, also on would-block (so the payload can be sent again as is).
     *
     * @param payload the buffer whose remaining bytes are sent; stays the caller's
     * @param flags 0, {@link ZmqSocket#DONTWAIT}, {@link ZmqSocket#SNDMORE}, or both
     * @return true when libzmq took the part; false when it would block, as for
     *     {@link #send(MemorySegment, long, long, int)}: nothing was sent
     * @throws IllegalStateException when the sender is closed or used by two threads at once
     */
    public boolean send(ByteBuffer payload, int flags) {
        Objects.requireNonNull(payload, "payload");
        owner.enter();
        try {
            ensureOpen();
            return bufferView.send(payload, flags);
        } finally {
            owner.exit(this);
        }
    }

    /**
     * Sends {@code part} uncompressed: a routing id, an empty delimiter, a topic. Usually with
     * {@link ZmqSocket#SNDMORE}. Allocation-free.
     *
     * @param part the bytes to send as they are, all of the array; may be empty (a delimiter)
     * @param flags usually {@link ZmqSocket#SNDMORE}, with {@link ZmqSocket#DONTWAIT} not to
     *     block at the high-water mark
     * @return false when it would block (nothing sent)
     * @throws IllegalStateException when the sender is closed or used by two threads at once
     */
    public boolean sendEnvelope(byte[] part, int flags) {
        Objects.requireNonNull(part, "part");
        owner.enter();
        try {
            ensureOpen();
            return sendEnvelopePart(part, null, flags);
        } finally {
            owner.exit(this);
        }
    }

    /**
     * Like {@link #sendEnvelope(byte[], int)} for a segment (libzmq copies it).
     *
     * @param part the bytes to send as they are, all of the segment; may be empty
     * @param flags usually {@link ZmqSocket#SNDMORE}, with {@link ZmqSocket#DONTWAIT} not to
     *     block at the high-water mark
     * @return false when it would block (nothing sent)
     * @throws IllegalStateException when the sender is closed or used by two threads at once
     */
    public boolean sendEnvelope(MemorySegment part, int flags) {
        Objects.requireNonNull(part, "part");
        owner.enter();
        try {
            ensureOpen();
            return sendEnvelopePart(null, part, flags);
        } finally {
            owner.exit(this);
        }
    }

    /**
     * {@code topic} uncompressed with SNDMORE (so PUB/SUB subscriptions filter on it), then
     * {@code payload} compressed: a two-part message sent whole or not at all. The payload is
     * compressed <em>before</em> the topic goes out, so a failure to compress leaves nothing
     * behind; with DONTWAIT, false means nothing was sent, and once the topic is in, the frame
     * follows without waiting (libzmq takes the remaining parts of a message once its first part
     * is in). Works on any socket type: also for a ROUTER reply behind its routing id.
     *
     * @param topic the first part, sent uncompressed as it is (a topic, a routing id); not null
     * @param payload the second part, all of the segment, compressed; stays the caller's
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}; with {@link ZmqSocket#SNDMORE} more parts
     *     follow the payload
     * @return true when libzmq took both parts; false when it would block: nothing of the
     *     message was sent
     * @throws IllegalStateException when the sender is closed or used by two threads at once
     */
    public boolean publish(byte[] topic, MemorySegment payload, int flags) {
        Objects.requireNonNull(topic, "topic");
        return sendOwned(topic, null, null, null, payload, 0, payload.byteSize(), flags);
    }

    /**
     * {@link #publish(byte[], MemorySegment, int)} for an array payload, copied as
     * {@link #send(byte[], int)} copies it (allocation-free up to 128 KiB).
     *
     * @param topic the first part, sent uncompressed as it is (a topic, a routing id); not null
     * @param payload the second part, all of the array, compressed; stays the caller's
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}; with {@link ZmqSocket#SNDMORE} more parts
     *     follow the payload
     * @return true when libzmq took both parts; false when it would block: nothing of the
     *     message was sent
     * @throws IllegalStateException when the sender is closed or used by two threads at once
     */
    public boolean publish(byte[] topic, byte[] payload, int flags) {
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(topic, "topic");
        return sendOwned(topic, null, null, payload, null, 0, payload.length, flags);
    }

    /**
     * {@link #publish(byte[], MemorySegment, int)} for a topic in a segment (native memory, a
     * mapped file, or on the heap), with the same guarantees: the payload is compressed before the
     * topic goes out, with DONTWAIT false means nothing of the message was sent, and a native topic
     * and payload allocate nothing. libzmq copies the topic during the call; the segment stays the
     * caller's. Unlike {@link #sendEnvelope(MemorySegment, int)} then {@code send}, the message
     * never stays open after a would-block, and the sender is entered once.
     *
     * @param topic the first part, all of the segment, sent uncompressed as it is; not null; its
     *     arena must be open and the segment usable from this thread
     * @param payload the second part, all of the segment, compressed; stays the caller's
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}; with {@link ZmqSocket#SNDMORE} more parts
     *     follow the payload
     * @return true when libzmq took both parts; false when it would block: nothing of the
     *     message was sent
     * @throws IllegalStateException when the topic's arena is closed (nothing sent, nothing
     *     compressed), or the sender is closed or used by two threads at once
     * @throws WrongThreadException when the topic is confined to another thread (nothing sent)
     */
    public boolean publish(MemorySegment topic, MemorySegment payload, int flags) {
        checkTopic(topic);
        return sendOwned(null, topic, null, null, payload, 0, payload.byteSize(), flags);
    }

    /**
     * {@link #publish(MemorySegment, MemorySegment, int)} for an array payload, copied as
     * {@link #send(byte[], int)} copies it (allocation-free up to 128 KiB).
     *
     * @param topic the first part, all of the segment, sent uncompressed as it is; not null
     * @param payload the second part, all of the array, compressed; stays the caller's
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}; with {@link ZmqSocket#SNDMORE} more parts
     *     follow the payload
     * @return true when libzmq took both parts; false when it would block: nothing of the
     *     message was sent
     * @throws IllegalStateException when the topic's arena is closed (nothing sent, nothing
     *     compressed), or the sender is closed or used by two threads at once
     * @throws WrongThreadException when the topic is confined to another thread (nothing sent)
     */
    public boolean publish(MemorySegment topic, byte[] payload, int flags) {
        Objects.requireNonNull(payload, "payload");
        checkTopic(topic);
        return sendOwned(null, topic, null, payload, null, 0, payload.length, flags);
    }

    /**
     * Replies to {@code request}: every envelope part it arrived with (its leading uncompressed
     * parts: a ROUTER's routing id, one per ROUTER it came through, an empty REQ delimiter), as it
     * arrived, then {@code payload} compressed, one message sent whole or not at all as
     * {@link #publish(MemorySegment, MemorySegment, int)} sends it (the payload is compressed
     * before the first part goes out; with DONTWAIT, false means nothing was sent). The envelope
     * parts are read from the request's view, where they lie in the receiver's region ({@link
     * ReceivedMessage#segment}, {@link ReceivedMessage#partOffset}, {@link ReceivedMessage#partSize}),
     * and copied by libzmq: allocation-free by construction, with a native payload, where
     * {@code publish(request.part(0), …)} makes a slice per reply ({@link ReceivedMessage#part})
     * that the JIT does not remove (40 B a reply, measured).
     *
     * <p>The view is read during the call: it must be valid (the request's receiver's last
     * receive returned {@code RECEIVED}, and no receive on another thread overlaps the call), as
     * for any read of it. To answer a request its receiver refused ({@code BAD_FRAME}) with an
     * error reply, give {@link DecompressingReceiver#failedEnvelope()}: that view's parts are all
     * envelope parts, and each goes out in front of the payload. A request without envelope parts
     * is refused on a ROUTER or a STREAM, whose libzmq would take the frame for a routing id and
     * drop it; on another socket type the reply is the payload alone, as
     * {@link #send(MemorySegment, int)} sends it.
     *
     * @param request the message to reply to, as its receiver delivered it; read, not kept
     * @param payload the reply, all of the segment, compressed; stays the caller's
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}; with {@link ZmqSocket#SNDMORE} more parts
     *     follow the payload
     * @return true when libzmq took the whole reply; false when it would block: nothing of it was
     *     sent
     * @throws IllegalArgumentException when the request has no envelope part and this sender's
     *     socket is a ROUTER or a STREAM (nothing sent, nothing compressed)
     * @throws IllegalStateException when the request's view holds no message (its receiver's last
     *     receive did not return {@code RECEIVED}, or for a failed envelope {@code BAD_FRAME}, or it
     *     is closed) or another thread receives on it meanwhile (nothing sent when found before the
     *     first part), or the sender is closed or used by two threads at once
     */
    public boolean reply(ReceivedMessage request, MemorySegment payload, int flags) {
        return reply(request, payload, 0, payload.byteSize(), flags);
    }

    /**
     * {@link #reply(ReceivedMessage, MemorySegment, int)} for {@code payload[offset, offset +
     * length)}: a part of the request itself, say, to echo it.
     *
     * @param request the message to reply to, as its receiver delivered it; read, not kept
     * @param payload the segment that holds the reply
     * @param offset where the reply starts in {@code payload}
     * @param length how many bytes to compress and send
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}; with {@link ZmqSocket#SNDMORE} more parts
     *     follow the payload
     * @return true when libzmq took the whole reply; false when it would block: nothing of it was
     *     sent
     * @throws IndexOutOfBoundsException when the range is not inside {@code payload}
     * @throws IllegalArgumentException as for {@link #reply(ReceivedMessage, MemorySegment, int)}
     * @throws IllegalStateException as for {@link #reply(ReceivedMessage, MemorySegment, int)}
     */
    public boolean reply(ReceivedMessage request, MemorySegment payload, long offset, long length, int flags) {
        Objects.checkFromIndexSize(offset, length, payload.byteSize());
        return sendOwned(null, null, replyEnvelope(request), null, payload, offset, length, flags);
    }

    /**
     * {@link #reply(ReceivedMessage, MemorySegment, int)} for an array payload, copied as
     * {@link #send(byte[], int)} copies it (allocation-free up to 128 KiB).
     *
     * @param request the message to reply to, as its receiver delivered it; read, not kept
     * @param payload the reply, all of the array, compressed; stays the caller's
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}; with {@link ZmqSocket#SNDMORE} more parts
     *     follow the payload
     * @return true when libzmq took the whole reply; false when it would block: nothing of it was
     *     sent
     * @throws IllegalArgumentException as for {@link #reply(ReceivedMessage, MemorySegment, int)}
     * @throws IllegalStateException as for {@link #reply(ReceivedMessage, MemorySegment, int)}
     */
    public boolean reply(ReceivedMessage request, byte[] payload, int flags) {
        Objects.requireNonNull(payload, "payload");
        return sendOwned(null, null, replyEnvelope(request), payload, null, 0, payload.length, flags);
    }

    /**
     * The request whose envelope parts go in front of a reply, or null when it has none and the
     * socket does not route (the reply is the payload alone). Reads the view, so a stale one is
     * refused here, before anything is compressed or sent.
     */
    private ReceivedMessage replyEnvelope(ReceivedMessage request) {
        Objects.requireNonNull(request, "request");
        if (request.isCompressed(0)) { // a view holds at least one part; a stale one is refused here
            SocketType type = socket.type();
            if (type == SocketType.ROUTER || type == SocketType.STREAM) {
                throw new IllegalArgumentException("request has no envelope part to reply behind: parts="
                        + request.parts() + ", socket=" + type + " (libzmq would take the reply's frame for a routing"
                        + " id and drop it; receive requests on a ROUTER, whose receiver keeps the routing id as"
                        + " envelope part 0)");
            }
            return null;
        }
        return request;
    }

    /**
     * A segment topic the socket could not read is refused before the payload is compressed,
     * naming the topic (the socket would name it {@code data}, after the compression).
     */
    private static void checkTopic(MemorySegment topic) {
        RawSegments.checkUsable(Objects.requireNonNull(topic, "topic"), "topic");
    }

    /**
     * Carves {@code count} pooled buffers large enough for a compressed payload of
     * {@code payloadBytes}, so that a stream's first messages and later bursts find them free
     * instead of missing (a miss allocates on the heap). Worth it for payloads at or above the
     * zero-copy threshold; size {@code count} to the socket's send high-water mark plus a few.
     * The buffers belong to the context's pool and serve every sender on it.
     *
     * @param payloadBytes the uncompressed payload size, in bytes; the buffers hold the largest
     *     frame it can compress to
     * @param count how many buffers of that size class the pool should hold (only the missing
     *     ones are carved, never more than the class holds)
     * @return how many buffers were carved ({@link NativeBufferPool#reserve})
     * @throws IllegalArgumentException when a value is negative, or the frame is larger than the
     *     pool's largest buffer
     * @throws IllegalStateException when the sender or the pool is closed
     */
    public int reserveBuffers(long payloadBytes, int count) {
        ensureOpen();
        if (payloadBytes < 0 || count < 0) {
            throw new IllegalArgumentException("negative value: payloadBytes=" + payloadBytes + ", count=" + count);
        }
        try {
            return pool.reserve(ZstdCompressor.maxCompressedSize(payloadBytes), count);
        } catch (IllegalArgumentException e) {
            // the codec and the pool name their own values (srcSize, capacityBytes): add the caller's
            throw new IllegalArgumentException("cannot reserve buffers: payloadBytes=" + payloadBytes + ", count="
                    + count + ": " + e.getMessage(), e);
        }
    }

    /**
     * A snapshot of this sender's counters (allocates): its own pool rents, and the hits and misses
     * of the socket context's pool, pool-wide (shared by every sender on the context). Callable from
     * any thread; taken from another while the owner sends, it may be slightly behind and its
     * counters need not agree with each other (README, "Threading").
     *
     * @return a new snapshot
     */
    public PipelineStats stats() {
        return counters.snapshot(pool);
    }

    /**
     * libzmq ignores the bits it does not know, so a mistaken flag (a receive flag, a constant
     * from another API) would pass silently: refused before anything is sent.
     */
    private static void checkFlags(int flags) {
        if ((flags & ~(ZmqSocket.DONTWAIT | ZmqSocket.SNDMORE)) != 0) {
            throw new IllegalArgumentException("flags other than DONTWAIT and SNDMORE: flags=" + flags);
        }
    }

    /**
     * Sends one part as it is: {@code array} when not null, else all of {@code segment}. An array
     * goes to the socket as an array, which copies it into the libzmq message directly: wrapped in
     * a heap segment it cost 72 B a call that the JIT did not remove (before 2026-11-27).
     */
    private boolean sendEnvelopePart(byte[] array, MemorySegment segment, int flags) {
        return array != null ? sendEnvelopePart(array, null, 0, array.length, flags)
                : sendEnvelopePart(null, segment, 0, segment.byteSize(), flags);
    }

    /**
     * Sends {@code array[offset, offset + length)} when {@code array} is not null, else
     * {@code segment[offset, offset + length)}, as it is: one envelope part.
     */
    private boolean sendEnvelopePart(byte[] array, MemorySegment segment, long offset, long length, int flags) {
        checkFlags(flags);
        boolean sent;
        try {
            sent = array != null ? socket.send(array, (int) offset, (int) length, flags)
                    : socket.send(segment, offset, length, flags);
        } catch (RuntimeException | Error e) {
            partFailed(e);
            throw e;
        }
        if (!sent) {
            return notTaken(flags);
        }
        if (messageDropped) {
            droppedPart(flags);
        } else {
            counters.envelopeParts++;
            endOfPart(flags);
        }
        return true;
    }

    /** {@link #sendPart} on the calling thread, checked to be the only one in the sender. */
    private boolean sendOwned(byte[] envelope, MemorySegment envelopeSegment, ReceivedMessage request, byte[] array,
                              MemorySegment segment, long offset, long length, int flags) {
        owner.enter();
        try {
            ensureOpen();
            return sendPart(envelope, envelopeSegment, request, array, segment, offset, length, flags);
        } finally {
            owner.exit(this);
        }
    }

    /**
     * Compresses the payload into one frame, then sends the envelope ({@code envelope}, else
     * {@code envelopeSegment}, else the envelope parts of {@code request}, when one is not null) and the frame as parts of one message. The payload is {@code array[offset, offset + length)}, or
     * when {@code array} is null {@code segment[offset, offset + length)}. An array of up to
     * {@value #MAX_STAGED_PAYLOAD_BYTES} bytes is first copied into the staging memory and
     * compressed from there; a larger one is wrapped in a heap segment, which the codec copies
     * through its own scratch in chunks. Everything that can fail short of the socket happens
     * before the first part goes out.
     */
    private boolean sendPart(byte[] envelope, MemorySegment envelopeSegment, ReceivedMessage request, byte[] array,
                             MemorySegment segment, long offset, long length, int flags) {
        checkFlags(flags);
        if (refusedLast) {
            if ((flags & ZmqSocket.DONTWAIT) != 0 && !messageOpen && noRoom()) {
                counters.wouldBlock++;
                return false; // still no room: refused before compressing, as the send would be after
            }
            refusedLast = false;
        }
        PooledBuffer buffer = null;
        boolean handedOver = false;
        long zeroCopyThresholdBytes = frames.zeroCopyThreshold(socket);
        boolean raw;
        try {
            MemorySegment out;
            long n;
            try {
                MemorySegment payload = segment;
                long from = offset;
                // An array below the raw-frame limit goes into its frame straight from the array
                boolean rawFromArray = array != null && length < frames.rawFrameBelowBytes;
                if (array != null && !rawFromArray) {
                    if (length <= MAX_STAGED_PAYLOAD_BYTES) {
                        payload = stage(array, offset, length);
                        from = 0;
                    } else {
                        payload = MemorySegment.ofArray(array); // one small heap object per call
                    }
                }
                // The incompressible check reads the payload, so it fails as compressing does when
                // the payload cannot be read: inside, so that an open message is ended (partFailed).
                raw = rawFromArray || frames.raw(incompressible, payload, from, length);
                long bound = FrameOptions.bound(length, raw);
                if (length >= zeroCopyThresholdBytes) {
                    buffer = pool.rent(bound);
                    counters.poolRents++;
                    out = buffer.segment();
                } else {
                    if (bound > scratch.byteSize()) {
                        growScratch(bound);
                    }
                    out = scratch;
                }
                n = rawFromArray ? ZstdFrames.writeRawFrame(array, (int) offset, (int) length, out, 0, bound)
                        : FrameOptions.encode(compressor, incompressible, raw, payload, from, length, out, bound);
            } catch (RuntimeException | Error e) {
                partFailed(e);
                InternalError fault = mappingFault(e, segment);
                if (fault != null) {
                    throw MemoryFaults.unreadable("payload", segment, offset, length, PAYLOAD_NOT_SENT, fault);
                }
                throw e;
            }
            int frameFlags = flags;
            if (envelope != null || envelopeSegment != null || request != null) {
                int first = (flags & ZmqSocket.DONTWAIT) | ZmqSocket.SNDMORE;
                if (request != null ? !sendEnvelopeOf(request, first) : !sendEnvelopePart(envelope, envelopeSegment, first)) {
                    return false; // nothing of the message went out
                }
                // The rest of a message whose first part libzmq took is never refused for the
                // high-water mark; no DONTWAIT, so that no would-block can leave it open.
                frameFlags &= ~ZmqSocket.DONTWAIT;
            }
            // n >= zeroCopyThresholdBytes >= the socket's threshold: sendPooled hands the buffer over
            boolean zeroCopy = buffer != null && n >= zeroCopyThresholdBytes;
            boolean sent;
            try {
                sent = zeroCopy ? socket.sendPooled(buffer, n, frameFlags) : socket.send(out, 0, n, frameFlags);
            } catch (RuntimeException | Error e) {
                partFailed(e);
                throw e;
            }
            if (!sent) {
                return notTaken(frameFlags);
            }
            handedOver = zeroCopy;
            if (messageDropped) {
                droppedPart(frameFlags);
            } else {
                counters.frameSent(length, n, zeroCopy, raw);
                endOfPart(frameFlags);
            }
            return true;
        } finally {
            if (buffer != null && !handedOver) {
                buffer.release(); // copied, would-block or failure: the buffer is still ours
            }
        }
    }

    /**
     * Sends the envelope parts of {@code request}, its leading uncompressed parts (at least one:
     * see replyEnvelope), straight from its receiver's region: no slice, no allocation. The first
     * with {@code firstFlags}; the rest of a message whose first part libzmq took is never refused
     * for the high-water mark, so they go without DONTWAIT. False only when the first would block:
     * nothing went out. A view that turns stale between the parts (a receive on another thread, the
     * receiver closed: the caller's misuse, refused by the view) ends the message begun, as any
     * part failing before the socket does; {@link #partFailed} twice for a socket failure, here
     * and in {@link #sendEnvelopePart}, counts the message once.
     */
    private boolean sendEnvelopeOf(ReceivedMessage request, int firstFlags) {
        try {
            // Bounded by the parts: a failed message's envelope (DecompressingReceiver.failedEnvelope)
            // has no compressed part after its envelope parts. Read here, not in replyEnvelope, which
            // no longer reads it: one read of the view per reply, as before.
            int parts = request.parts();
            for (int i = 0; i < parts && !request.isCompressed(i); i++) {
                if (!sendEnvelopePart(null, request.segment(i), request.partOffset(i), request.partSize(i),
                        i == 0 ? firstFlags : ZmqSocket.SNDMORE)) {
                    return false; // the first part: a later one refused is reported taken (notTaken)
                }
            }
        } catch (RuntimeException e) {
            partFailed(e);
            throw e;
        }
        return true;
    }

    /**
     * libzmq did not take a part sent with {@code flags}. The first part of a message: it would
     * block (DONTWAIT at the high-water mark, or the send timeout) and nothing was sent: false. A
     * later part: libzmq takes the rest of a started message at once, and refuses one only when
     * the peer went away in the middle of it; it has then dropped the message itself (a blocking
     * send drops it silently and reports success) and, when this part has SNDMORE, drops the parts
     * that follow up to the last, reporting each sent. Reported as a blocking send reports it:
     * taken (true). The message counts as abandoned: here when this part was its last, else when
     * the part that libzmq takes as its last is sent ({@link #droppedPart}; before 2026-11-27 the
     * parts libzmq dropped counted as sent, and the message in {@code messages}). (Before
     * 2026-11-26 it was a would-block: the caller was told to send the part again, as a new
     * message, and close() waited for ever to end the message libzmq had dropped.)
     */
    private boolean notTaken(int flags) {
        if (!messageOpen) {
            counters.wouldBlock++;
            refusedLast = true;
            return false;
        }
        if ((flags & ZmqSocket.SNDMORE) == 0) {
            messageOpen = false;
            counters.abandonedMessages++;
        } else {
            messageDropped = true;
        }
        return true;
    }

    /**
     * Whether the socket has no room for a message now (ZMQ_EVENTS without POLLOUT), asked only
     * after a refusal ({@link #refusedLast}). A failure (ETERM, the socket closed) counts as room:
     * the send that follows reports it as a send does.
     */
    private boolean noRoom() {
        try {
            return (socket.events() & ZmqPoller.POLLOUT) == 0;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** libzmq reported a part of a message it drops as sent (see {@link #messageDropped}). */
    private void droppedPart(int flags) {
        if ((flags & ZmqSocket.SNDMORE) == 0) {
            messageOpen = false;
            messageDropped = false;
            counters.abandonedMessages++;
        }
    }

    /**
     * A part failed before anything of it reached the socket while earlier parts of its message
     * are already in libzmq, which cannot take them back. End that message with a 0-byte part,
     * which a zmq-zstd receiver refuses as {@code EMPTY} (one bad message), so that the caller's
     * next send starts a new message instead of being glued to this one. libzmq takes the last
     * part of a started message at once, or refuses it when the peer went away in the middle of
     * the message, which it has then dropped itself: sent with DONTWAIT, so that this never waits
     * (before 2026-11-26 it blocked, and close() waited for ever when the peer had gone). Refused,
     * taken or failed, the message is over and counted as abandoned (before 2026-11-27 one whose
     * 0-byte part failed, the socket closed or its context terminated, counted nowhere); the socket
     * does not send a refused part again (before 2026-11-27 it did, and the 0-byte part went out
     * alone, to another peer).
     */
    private void abandonOpenMessage(Throwable cause) {
        if (!messageOpen) {
            return;
        }
        messageOpen = false;
        messageDropped = false;
        counters.abandonedMessages++;
        endWithEmptyPart(socket, cause);
    }

    /**
     * Sends the 0-byte last part that ends a message some of whose parts are in libzmq (see
     * {@link #abandonOpenMessage}; {@link ParallelCompressingSender} ends a topic's message so
     * too). With DONTWAIT: libzmq takes the last part of a started message at once, or refuses it
     * having dropped the message itself. A failure to send it (the socket closed, used by another
     * thread, its context terminated) is added to {@code cause} as suppressed, when there is one.
     */
    static void endWithEmptyPart(ZmqSocket socket, Throwable cause) {
        try {
            socket.send(NO_BYTES, 0, 0, ZmqSocket.DONTWAIT);
        } catch (RuntimeException e) {
            if (cause != null) {
                cause.addSuppressed(e);
            } // else close(): a socket that takes no part (closed, its context terminated) drops the message itself
        }
    }

    /**
     * A part failed with {@code e}, which the caller rethrows. A {@link ZmqException} is libzmq
     * refusing the part, and libzmq has dropped the message it belonged to (counted as abandoned
     * when parts of it went out before: before 2026-11-27 it counted nowhere); anything else (the
     * compressor, a segment no longer alive, a closed socket) failed before the part reached
     * libzmq, so a started message is ended here. Either way the caller's next send starts a new
     * message.
     */
    private void partFailed(Throwable e) {
        if (e instanceof ZmqException) {
            if (messageOpen) {
                counters.abandonedMessages++;
            }
            messageOpen = false;
            messageDropped = false;
        } else {
            abandonOpenMessage(e);
        }
    }

    private void endOfPart(int flags) {
        messageOpen = (flags & ZmqSocket.SNDMORE) != 0;
        if (!messageOpen) {
            counters.messages++;
        }
    }

    /** What a payload that could not be read leaves, for {@link MemoryFaults#unreadable}. */
    private static final String PAYLOAD_NOT_SENT = "nothing of it was sent: the sender goes on";

    /**
     * The JDK's report of a fault in {@code payload}, a file mapping (a page past the end of a file
     * shortened since it was mapped), behind {@code e}, a failure to encode it: the codec's
     * {@code IllegalStateException} ("src could not be read: …", from compressing or writing a raw
     * frame, which copy a mapping in Java and never hand it to libzstd) or the bare
     * {@link InternalError} of the incompressible check's read. Null for any other failure. Error
     * path only: the frame is written into the sender's own memory, so the fault is the payload's.
     */
    private static InternalError mappingFault(Throwable e, MemorySegment payload) {
        if (payload == null || !payload.isMapped()) {
            return null;
        }
        if (e instanceof InternalError fault) {
            return fault;
        }
        return e instanceof IllegalStateException && e.getCause() instanceof InternalError fault ? fault : null;
    }

    /**
     * Copies {@code array[offset, offset + length)} ({@code length} at most
     * {@value #MAX_STAGED_PAYLOAD_BYTES}) to the start of the staging memory, grown first when it
     * is too small, and returns that memory.
     */
    private MemorySegment stage(byte[] array, long offset, long length) {
        if (staging == null || staging.byteSize() < length) {
            long size = Math.max(Math.max(length, MIN_STAGING_BYTES), staging == null ? 0 : staging.byteSize() * 2);
            staging = allocate(true, Math.min(size, MAX_STAGED_PAYLOAD_BYTES));
        }
        BufferPayload.copy(array, null, offset, length, staging);
        return staging;
    }

    private void growScratch(long bytes) {
        long size = scratch == null ? bytes : Math.max(bytes, scratch.byteSize() * 2);
        scratch = allocate(false, size);
    }

    /**
     * New memory of {@code bytes} for the staging memory (else the scratch) in an arena of its
     * own, which replaces the one before; that one is closed once the new memory is there, so a
     * failed allocation leaves the old memory allocated and owned. A shared arena, made once per
     * growth, never per message: the sender may be handed to another thread, which a confined
     * arena would not allow.
     */
    private MemorySegment allocate(boolean forStaging, long bytes) {
        Arena next = Arena.ofShared();
        MemorySegment s;
        try {
            s = next.allocate(bytes, 64);
        } catch (RuntimeException | Error e) {
            next.close();
            throw e;
        }
        Arena old = forStaging ? memory.staging : memory.arena;
        if (forStaging) {
            memory.staging = next;
        } else {
            memory.arena = next;
        }
        if (old != null) {
            old.close();
        }
        return s;
    }

    /**
     * True after {@link #close()}: every later send throws. Any thread may ask.
     *
     * @return whether close has been called
     */
    public boolean isClosed() {
        return closeBegun;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("sender is closed");
        }
    }

    /**
     * Frees the compressor and the scratch memory; the socket stays open (it is the caller's).
     * Buffers already handed to libzmq go back to the pool on their own. A message left open (a
     * part sent with {@link ZmqSocket#SNDMORE} and no last part) is ended with a 0-byte part, as
     * after a failed part, so that the next message sent on the socket starts on its own (counted
     * in {@code abandonedMessages}). Idempotent.
     */
    @Override
    public void close() {
        owner.enter();
        try {
            if (closed) {
                return;
            }
            closed = true;
            closeBegun = true;
            // A message begun with SNDMORE and never finished would glue the next message sent on
            // the socket (by another sender, say) to its parts: end it as a failed part does.
            abandonOpenMessage(null);
            scratch = null;
            staging = null;
            bufferView.clear(); // the last direct buffer is no longer referred to
            try {
                memory.close();
            } finally {
                compressor.close();
            }
        } finally {
            owner.exit(this);
        }
    }

    /** This sender's native memory, freed by close() or by the cleaner: for tests. */
    Unclosed.Memory memory() {
        return memory;
    }

    /** The staging memory's size in bytes, 0 before the first array payload: for tests. */
    long stagingBytes() {
        return staging == null ? 0 : staging.byteSize();
    }
}
