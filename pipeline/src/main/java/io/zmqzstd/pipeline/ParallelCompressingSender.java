package io.zmqzstd.pipeline;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.nativelib.internal.CallGuard;
import io.zmqzstd.nativelib.internal.MemoryFaults;
import io.zmqzstd.nativelib.internal.OwnerCleaner;
import io.zmqzstd.nativelib.internal.RawSegments;
import io.zmqzstd.nativelib.internal.Threads;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.PooledBuffer;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;
import io.zmqzstd.transport.internal.LibZmq;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Compresses one stream's messages on several threads at once and sends them on one socket in the
 * order they were given: for streams whose rate is bound by compression on one core (large
 * messages, higher levels), where {@link CompressingSender} keeps one core busy and leaves the
 * others idle.
 *
 * <p>How: {@link #send} copies the payload into a pooled native buffer, puts it in a ring of
 * {@code inFlight} slots (at most {@code inFlightBytes} of payload) and returns; the payload is the caller's again at once. Worker threads,
 * each with a compressor of its own, take slots in order and compress each into a pooled buffer.
 * Whichever worker finds the oldest slot compressed sends it, and every compressed slot after it,
 * under a lock (so the socket is used by one thread at a time, with a full fence at each
 * hand-over, as libzmq requires); a frame of at least {@code zeroCopyThresholdBytes} goes out
 * zero-copy, a smaller one is copied by libzmq. Frames are the same as {@link CompressingSender}'s
 * (one standard zstd frame per payload, raw-block frames for tiny payloads), so any zmq-zstd
 * receiver reads them; order on the wire is the order of the sends.
 *
 * <p>Optionally a producer with time to spare sends small messages itself: with
 * {@code inlineBelowBytes} set (default 0: off), a shorter payload that comes at least
 * {@code inlineAfterIdleNanos} (default {@value #DEFAULT_INLINE_AFTER_IDLE_NANOS} ns) after the
 * previous one and finds nothing in flight is compressed and sent on the caller's thread, through a
 * compressor and scratch memory of the sender's own, provided the socket takes it at once; otherwise
 * it joins the ring like any other. A stream at a low rate so saves the wake-up of a parked worker
 * on every message, while a busy stream, whose messages follow one another closely, keeps its
 * producer free and its messages on the workers. Order is kept either way (nothing is in flight
 * ahead of it), and so are the outcomes below.
 *
 * <p>Outcomes: {@code send} returns {@code true} when the message was taken (it will be sent) and
 * {@code false} only with {@link ZmqSocket#DONTWAIT} when {@code inFlight} messages or
 * {@code inFlightBytes} of payload are already waiting: then nothing was taken. Without DONTWAIT it waits until half the ring is free (so that
 * a producer faster than the workers is woken once per {@code inFlight/2} messages, not per message). Back-pressure from
 * the socket reaches the caller this way: a worker's send blocks at the high-water mark, the ring
 * fills, and {@code send} waits or reports would-block. {@link #flush()} waits until every message
 * taken is in libzmq. A failure to compress or send (a socket error such as a terminated context,
 * or with {@link Builder#failOnSendTimeout} the socket's send timeout), on a worker or inline,
 * is rethrown by the caller's next {@code send}, {@code flush} or {@code close}; messages not yet
 * sent are then dropped and counted ({@link PipelineStats#droppedMessages()}). When the failure is
 * a frame's after its topic went out, and not libzmq's (another thread in a call on the socket
 * meanwhile, the pool closed under the sender), libzmq holds the topic with SNDMORE: the sender
 * ends that message with a 0-byte part, which a zmq-zstd receiver refuses as {@code EMPTY}, so
 * that the next message sent on the socket starts on its own; should that part fail too (the other
 * thread still in its call), its exception is attached to the failure as suppressed. (A socket
 * closed meanwhile sends nothing more: libzmq discards the unfinished message as it closes.) A message with a
 * topic whose frame the socket refuses after the topic went in is dropped and counted too, without
 * a failure: libzmq refuses a later part only when the peer went away in the middle of the message
 * (PUSH, DEALER, REQ with a send timeout of 0), and has then dropped the message itself. So is a
 * message whose topic a ROUTER under {@code ZMQ_ROUTER_MANDATORY}, or a STREAM, refuses (no peer has
 * that routing id: it never connected or is gone): that message's outcome alone, the sender goes on
 * (before 2026-11-27 on a ROUTER and 2026-11-28 on a STREAM it failed the sender, so one reply to a
 * peer gone dropped the replies to every other).
 * Either way the message that failed was taken ({@code send} returned true, {@code commit} returned), is counted
 * as dropped, and its pooled buffers are back in the pool. A payload that cannot be read (its
 * arena closed, another thread's confined memory), or a payload or topic in a mapping of a file
 * shortened since it was mapped, is not such a failure but the caller's error: {@code send} throws
 * it at once, nothing is taken and the sender goes on, on either path. A fault in a mapping is an
 * {@link IllegalStateException} naming the payload or topic and its size ("payload could not be
 * read: …, length=…"), the JDK's {@link InternalError} as its cause.
 *
 * <p>A caller that produces each payload (serialises an event, say) can write it straight into
 * the pooled buffer the workers compress from: {@link #claim} returns that memory, {@link #commit}
 * hands it over, and the copy that {@code send} makes is not made: one buffer and one copy fewer
 * per message ({@link #claim(byte[], long, int)} for a message with a topic, sent as
 * {@code publish} sends it). A stream bound by compression moves as many messages either way
 * (measured level at 1 KiB and 64 KiB, BENCHMARKS.md, "Writing the payload where it is
 * compressed").
 *
 * <p>Ownership: payloads given to {@code send} and {@code publish} stay the caller's (they are
 * copied; the sender refers to the last direct {@code ByteBuffer} sent until another one comes or
 * it is closed, see {@link #send(ByteBuffer, int)}); claimed memory is the caller's from claim to
 * commit or abort. The socket is borrowed, and while the sender is open only its workers use it:
 * do not send on it yourself (a call of yours that overlaps a worker's send fails with
 * {@link IllegalStateException}, see {@link ZmqSocket}, and so may the worker's), and no other
 * sender is built on it until this one is closed (both builders refuse it), nor this one on a
 * socket an open {@link CompressingSender} uses. Close the
 * sender first, then the socket. The sender
 * owns its threads, compressors and the ring. A sender dropped without {@code close()} is still
 * collected once the messages in its ring are sent: its threads then exit, its native memory is
 * freed and an open claim's buffer returned on the thread {@code zmqzstd-cleaner}, with a warning
 * on the {@code io.zmqzstd.pipeline} logger; close it anyway, since only {@code close()} waits for the messages and reports a failure.
 *
 * <p>Threading: {@code send}, {@code publish}, {@code flush} and {@code close} from one thread at
 * a time (hand over with a happens-before edge); two threads inside at once fail with
 * {@link IllegalStateException}. {@link #stats()} from any thread. The worker threads are the
 * sender's: an interrupt of one (code that interrupts every thread of a process or group, say)
 * neither stops it nor ends a send in progress; the worker clears the flag and goes on serving the
 * sender, and only {@code close()} stops the workers. An interrupt of the caller does not end its
 * wait for room in {@code send} or {@code claim}, nor {@code flush} or {@code close}: the call
 * goes on and returns with the flag still set (a send timeout, or closing the context, ends it).
 *
 * <p>Allocation: none on the Java heap per message in steady state, on the caller and on the
 * workers, for payloads whose frame bound ({@link ZstdCompressor#maxCompressedSize}) fits the
 * pool's largest class (up to 4,177,984 B with the default 4 MiB); the frame of a larger payload
 * is an unpooled buffer. That holds for payloads given as native segments, claimed, given as
 * arrays (copied straight from the array) and as heap or direct {@code ByteBuffer}s, at any size
 * (before 2026-11-27 the {@code byte[]} and {@code ByteBuffer} overloads wrapped the payload in a
 * {@code MemorySegment}, 72 B a call that the JIT did not remove); a read-only heap buffer is
 * still wrapped, one small heap object per call. An inline send the socket refuses (it is full)
 * allocates 40 B on the caller's thread until the JIT has compiled the socket's repeat that learns
 * errno through a capturing downcall (and again for a while after a deoptimisation there).
 *
 * <pre>{@code
 * try (ParallelCompressingSender sender = ParallelCompressingSender.builder(socket).build()) {
 *     for (MemorySegment event : events) {
 *         sender.send(event, 0); // copied; compressed and sent in the background, in order
 *     }
 *     sender.flush();            // every event is in libzmq
 * }
 * }</pre>
 */
public final class ParallelCompressingSender implements AutoCloseable {

    /**
     * Compressing threads unless set otherwise: one more than the processors the JVM may use (at most
     * 16). Measured on 2 cores (BENCHMARKS.md, "Parallel compression"): 3 workers moved more than 2 or 4
     * at 1 KiB, 64 KiB and 1 MiB over tcp; the extra one keeps a core compressing while another worker
     * waits to be scheduled or sends.
     */
    public static final int DEFAULT_WORKERS = Math.min(Runtime.getRuntime().availableProcessors() + 1, 16);

    /**
     * Messages taken and not yet sent, at most, unless set otherwise. Measured (BENCHMARKS.md,
     * "Parallel compression"): with 3 workers a ring of 64 moved 1.18x the messages of a ring of 16
     * at 1 KiB and 1.05x at 64 KiB; a deep ring keeps the workers busy while the producer waits to
     * be scheduled.
     */
    public static final int DEFAULT_IN_FLIGHT = 64;

    /**
     * Payload bytes taken and not yet sent, at most, unless set otherwise: bounds the memory a deep
     * ring of large messages holds (each message holds its payload copy and its frame). A message
     * larger than this is still taken when nothing else is in flight.
     */
    public static final long DEFAULT_IN_FLIGHT_BYTES = 16L << 20;

    /**
     * Payloads shorter than this may be compressed and sent on the caller's thread (see
     * {@link Builder#inlineBelowBytes}), unless set otherwise: 0, every message goes to a worker.
     * Inline sends shorten a low-rate stream's latency by a worker's wake-up and cost a saturated
     * stream of small messages a few percent (BENCHMARKS.md, "Parallel compression": with 4096, a
     * closed-loop round trip of 64 B to 4000 B 8-13 % shorter, 2026-11-26, saturated streams of
     * 64 B to 1 KiB 1-6 % slower), so they are the caller's choice. (Before 2026-11-27 this said
     * 5-18 %, which no valid run measured: the 2026-11-23 run behind it is void.)
     */
    public static final long DEFAULT_INLINE_BELOW_BYTES = 0;

    /**
     * How long after the previous {@code send} a small message must come to be sent on the caller's
     * thread, unless set otherwise. Measured (BENCHMARKS.md, "Parallel compression"): sent inline
     * whenever nothing was in flight, small messages in a saturated stream fell to
     * {@link CompressingSender}'s rate (0.90-1.01x JeroMQ + zstd-jni at 256 B to 2 KiB over tcp,
     * against 1.20-1.46x handed over), because the producer then stops handing over. Messages of a
     * saturated stream follow one another within a few microseconds, requests of a round trip after
     * tens.
     */
    public static final long DEFAULT_INLINE_AFTER_IDLE_NANOS = 20_000;

    /**
     * Longest {@code inlineAfterIdleNanos} in force, 2<sup>62</sup> ns (146 years); a longer one
     * acts as this. Below it, the first take's idle time (time since build plus the pause) cannot
     * overflow in a sender's lifetime; before 2026-11-26 a pause near Long.MAX_VALUE overflowed
     * it and the first message, idle by definition, went to a worker.
     */
    private static final long MAX_INLINE_AFTER_IDLE_NANOS = 1L << 62;

    /**
     * Largest {@code maxLength} of a {@link #claim}: the largest payload whose zstd frame bound
     * ({@code ZSTD_compressBound}, n + n/256 past 128 KiB) fits in a long, where it reaches
     * {@link Long#MAX_VALUE} exactly (half of zstd's own {@code ZSTD_MAX_INPUT_SIZE} for a 64-bit
     * {@code size_t}). A larger claim could not be compressed, and is refused. Memory is the
     * practical limit far below it: a claim takes {@code maxLength} bytes of native memory at
     * once.
     */
    public static final long MAX_CLAIM_BYTES = 0x7F80_7F80_7F80_7F80L;

    /** Largest {@code inlineBelowBytes}: inline frames are copied by libzmq, so they stay small. */
    public static final long MAX_INLINE_BELOW_BYTES = 64 << 10;

    /** A slot's state: anything but READY (taken, being compressed, or free) until compressed. */
    private static final int EMPTY = 0;
    private static final int READY = 1;
    private static final long NO_TOPIC = -1;
    /** What became of a message whose payload or topic could not be read, for {@link MemoryFaults#unreadable}. */
    private static final String NOTHING_TAKEN = "nothing was taken: the sender goes on";
    /**
     * The longest topic given as a segment: an array topic's longest, so that a slot's topic and
     * payload bytes add up without overflow (a claim's at most {@link #MAX_CLAIM_BYTES} plus this),
     * whichever form the topic comes in.
     */
    static final long MAX_TOPIC_BYTES = Integer.MAX_VALUE;

    private final ZmqSocket socket;
    private final NativeBufferPool pool;
    private final FrameOptions frames;
    private final int mask;
    private final int capacity;
    private final long maxInFlightBytes;
    private final long inlineBelowBytes;
    private final long inlineAfterIdleNanos;
    /** When the caller's previous take began (System.nanoTime); the caller's thread only. */
    private long lastTakeNanos;
    /** The caller's compressor and frame memory for inline sends; null when inlineBelowBytes is 0. */
    private final ZstdCompressor inlineCompressor;
    /** The caller's check of incompressible payloads for inline sends; null when either is off. */
    private final IncompressibleCheck inlineIncompressible;
    /** The inline frame's memory; its arena is the {@link Crew}'s to close. */
    private final MemorySegment inlineFrame;
    /** Where an array payload sent inline is copied to be compressed; in the inline frame's arena. */
    private final MemorySegment inlineStaging;
    /** Reads ByteBuffer payloads, keeping the last direct buffer's segment; the caller's thread only. */
    private final BufferPayload bufferView = new BufferPayload(
            (array, segment, offset, length, flags) -> takeOwned(null, null, array, segment, offset, length, flags));
    /** Payload and topic bytes of the messages taken and not yet sent. */
    private final AtomicLong inFlightBytes = new AtomicLong();

    // The ring. Slot i holds sequence s with i == s & mask. A slot's input buffer holds the payload
    // at offset 0 and the topic, if any, right after it (so claimed memory starts with the payload).
    // The caller fills a slot's input fields and publishes it by advancing tail; a worker that
    // claims it writes its output fields and marks it READY; the send-lock holder sends it,
    // empties it and advances head.
    private final PooledBuffer[] inputs;
    private final long[] topicBytes;
    private final long[] payloadBytes;
    private final PooledBuffer[] outputs;
    private final long[] frameBytes;
    /** Whether the slot's worker rented a frame buffer (published by READY). */
    private final boolean[] frameRented;
    /** Whether the slot's frame is of raw blocks (published by READY). */
    private final boolean[] frameRaw;
    private final AtomicIntegerArray states;

    /** Next sequence the caller publishes; written by the caller only. */
    private final AtomicLong tail = new AtomicLong();
    /** Next sequence a worker claims. */
    private final AtomicLong claimed = new AtomicLong();
    /** Next sequence to send; written by the send-lock holder only. */
    private final AtomicLong head = new AtomicLong();
    private final AtomicInteger sendLock = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** The caller's thread while it waits for head to reach {@link #waitTarget}, else null. */
    private volatile Thread waiter;
    /** Where head must be for the waiting caller to go on; written before {@link #waiter}. */
    private volatile long waitTarget = Long.MAX_VALUE;
    /** Set by close(): a send that times out now drops its message instead of retrying. */
    private volatile boolean closing;
    /**
     * Set by the send-lock holder when the socket refused a send after close() began: every message
     * still waiting is dropped without another attempt, so close() waits one send timeout, not one
     * per message. Written under the send lock only; read by workers too, which then compress
     * nothing more (before 2026-11-26 they compressed every message only for it to be dropped).
     */
    private volatile boolean abandoned;
    /** The socket's send timeout ends the stream (a failure) instead of being retried. */
    private final boolean failOnSendTimeout;
    /** Set by close() once the ring is empty: workers exit. */
    private volatile boolean stopping;

    private final Worker[] workers;
    /** Stops the workers and frees the inline memory of a sender dropped unclosed; see {@link Crew}. */
    private final Crew crew;
    private final CallGuard owner = new CallGuard("ParallelCompressingSender", null, "a callback");
    /** Written by the send-lock holder only. */
    private final Counters counters = new Counters();
    /** The caller's would-blocks (ring full under DONTWAIT); written by the caller only. */
    private volatile long refused;
    /**
     * Rents of claimed buffers that never reached a worker (aborted, dropped, sent inline); written
     * by the caller only. Rents of claims handed to a worker are counted where the slot is sent.
     */
    private volatile long callerRents;
    /** The open claim's maxLength. */
    private long claimedLength;
    /** The open claim's topic (read at commit), or null for a single-part message. */
    private byte[] claimedTopic;
    /** The open claim's topic when given as a segment (read at commit), else null. */
    private MemorySegment claimedTopicSegment;
    /** Whether the open claim came after a pause (for an inline send at commit). */
    private boolean claimedIdle;
    private boolean closed;
    /**
     * {@link #closed} for {@link #isClosed()}, which any thread may call: the send path reads the
     * plain field, written only by the owner's close().
     */
    private volatile boolean closeBegun;

    /** Options for a sender. */
    public static final class Builder extends SenderBuilder<Builder> {
        private int workers = DEFAULT_WORKERS;
        private int inFlight = DEFAULT_IN_FLIGHT;
        private long inFlightBytes = DEFAULT_IN_FLIGHT_BYTES;
        private long inlineBelowBytes = DEFAULT_INLINE_BELOW_BYTES;
        private long inlineAfterIdleNanos = DEFAULT_INLINE_AFTER_IDLE_NANOS;
        private boolean failOnSendTimeout;
        private ThreadFactory threadFactory;

        private Builder(ZmqSocket socket) {
            super(socket);
        }

        @Override
        Builder self() {
            return this;
        }

        /**
         * Compressing threads (default {@link #DEFAULT_WORKERS}: processors + 1, at most 16), 1 to
         * 256.
         *
         * @param workers the number of worker threads, 1 to 256
         * @return this builder
         * @throws IllegalArgumentException when {@code workers} is outside 1 to 256
         */
        public Builder workers(int workers) {
            if (workers < 1 || workers > 256) {
                throw new IllegalArgumentException("workers must be 1 to 256: workers=" + workers);
            }
            this.workers = workers;
            return this;
        }

        /**
         * Messages taken from the caller and not yet in libzmq, at most (rounded up to a power of
         * two; default {@value #DEFAULT_IN_FLIGHT}). Each holds its payload and its frame in pooled
         * buffers; {@link #inFlightBytes} bounds their bytes.
         *
         * @param messages the ring's size in messages, 1 to 1048576 (2<sup>20</sup>)
         * @return this builder
         * @throws IllegalArgumentException when {@code messages} is outside 1 to 1048576
         */
        public Builder inFlight(int messages) {
            if (messages < 1 || messages > (1 << 20)) {
                throw new IllegalArgumentException("inFlight must be 1 to 1048576: inFlight=" + messages);
            }
            this.inFlight = messages;
            return this;
        }

        /**
         * Payload bytes (topics included) taken from the caller and not yet in libzmq, at most
         * (default {@value #DEFAULT_IN_FLIGHT_BYTES}); a larger message is taken when nothing else is
         * in flight.
         *
         * @param bytes the bound in bytes, at least 1
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is below 1
         */
        public Builder inFlightBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("inFlightBytes must be positive: inFlightBytes=" + bytes);
            }
            this.inFlightBytes = bytes;
            return this;
        }

        /**
         * Payloads shorter than this are compressed and sent on the caller's thread when they come at
         * least {@link #inlineAfterIdleNanos} after the previous send, nothing is in flight and the
         * socket takes them at once (default {@value #DEFAULT_INLINE_BELOW_BYTES}: never). For streams
         * where a message's latency matters while the rate is low; 4096 is a sensible value. At most
         * {@value #MAX_INLINE_BELOW_BYTES}.
         *
         * @param bytes the payload length in bytes below which a message may go inline, 0 (off) to
         *     {@value #MAX_INLINE_BELOW_BYTES}
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is outside 0 to
         *     {@value #MAX_INLINE_BELOW_BYTES}
         */
        public Builder inlineBelowBytes(long bytes) {
            if (bytes < 0 || bytes > MAX_INLINE_BELOW_BYTES) {
                throw new IllegalArgumentException("inlineBelowBytes must be 0 to " + MAX_INLINE_BELOW_BYTES
                        + ": inlineBelowBytes=" + bytes);
            }
            this.inlineBelowBytes = bytes;
            return this;
        }

        /**
         * The pause before a small message after which the caller's thread sends it itself (default
         * {@value #DEFAULT_INLINE_AFTER_IDLE_NANOS} ns); 0 sends every small message inline whenever
         * nothing is in flight, which at a high rate of small messages keeps them on the caller's
         * thread (a {@link CompressingSender}'s rate). The first message counts as coming after a
         * pause of any length (nothing came before it), so with {@link Long#MAX_VALUE} only the
         * first small message goes inline. A pause above 2<sup>62</sup> ns (146 years) acts as
         * 2<sup>62</sup>.
         *
         * @param nanos the pause in nanoseconds, 0 to {@link Long#MAX_VALUE}
         * @return this builder
         * @throws IllegalArgumentException when {@code nanos} is negative
         */
        public Builder inlineAfterIdleNanos(long nanos) {
            this.inlineAfterIdleNanos = Settings.atLeastZero("inlineAfterIdleNanos", nanos);
            return this;
        }

        /**
         * What a worker does when the socket's send timeout ({@link ZmqSocket#sendTimeoutMs}) expires
         * before the socket takes a message. {@code false} (the default): it tries again, for as long
         * as it takes, so a timeout set for other reasons loses nothing (with a send timeout of 0,
         * which refuses at once, it pauses between tries, 10 µs at first and up to 1 ms, rather
         * than keep a core busy). {@code true}: the sender
         * fails as on a socket error, with a {@link java.util.concurrent.TimeoutException} as the
         * cause: that message and every one after it not yet sent are dropped and counted, and the
         * caller's next {@code send}, {@code flush} or {@code close} throws. For a caller that wants
         * "no peer took a message within T" to end the stream (the command-line tool's
         * {@code --timeout}). Either way, once {@link #close()} has begun, the first timeout drops
         * every message still waiting. A frame the socket refuses after its topic went in is no such
         * timeout, with either setting: libzmq has dropped that message, topic included, so it is
         * counted as dropped, neither tried again nor a failure.
         *
         * @param fail true to fail the sender when the send timeout expires, false to retry
         * @return this builder
         */
        public Builder failOnSendTimeout(boolean fail) {
            this.failOnSendTimeout = fail;
            return this;
        }

        /**
         * Makes the worker threads (default: daemon platform threads named zmqzstd-compress-N).
         * Give platform threads: a worker compresses without yielding and may block in the
         * socket's send, and a virtual thread in native code holds its carrier all that time. The
         * threads run until {@link ParallelCompressingSender#close()}: a worker clears an interrupt
         * and goes on, so interrupting them does not stop them.
         *
         * @param threadFactory makes one new, unstarted thread per worker, at build time, which
         *     the sender starts; not null
         * @return this builder
         */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            return this;
        }

        /**
         * A new sender with its workers started; the caller owns it and closes it before the
         * socket. It takes the settings as they are now: the builder may be changed and built
         * again, and changing it does not change the senders already built.
         *
         * @return the new sender
         * @throws IllegalArgumentException when the settings contradict each other or the
         *     socket, as for {@link CompressingSender.Builder#build()}
         * @throws IllegalStateException when the socket or the dictionary is closed, the socket is
         *     held by another open {@code ParallelCompressingSender} (the sender holds it from here
         *     until its close returns, or until it is collected unclosed) or used by an open
         *     {@link CompressingSender} (one until its close, or until it is collected unclosed;
         *     the message says how many), or the thread factory
         *     returns null, a thread already started, or one thread for two workers (the message
         *     names it; the threads it started are stopped)
         */
        public ParallelCompressingSender build() {
            return new ParallelCompressingSender(this, resolveFrames());
        }
    }

    /**
     * Options for a sender on {@code socket}: level 3, no checksum, no dictionary,
     * {@link #DEFAULT_WORKERS} workers.
     *
     * @param socket the socket to send on; borrowed, and used only by the sender while it is open
     * @return a new builder
     */
    public static Builder builder(ZmqSocket socket) {
        return new Builder(socket);
    }

    private ParallelCompressingSender(Builder b, FrameOptions frames) {
        this.socket = b.socket;
        this.pool = socket.context().bufferPool();
        this.frames = frames;
        this.maxInFlightBytes = b.inFlightBytes;
        this.capacity = b.inFlight <= 1 ? 1 : Integer.highestOneBit(b.inFlight - 1) << 1;
        this.mask = capacity - 1;
        this.inputs = new PooledBuffer[capacity];
        this.topicBytes = new long[capacity];
        this.frameRaw = new boolean[capacity];
        this.payloadBytes = new long[capacity];
        this.outputs = new PooledBuffer[capacity];
        this.frameBytes = new long[capacity];
        this.frameRented = new boolean[capacity];
        this.states = new AtomicIntegerArray(capacity);
        this.workers = new Worker[b.workers];
        this.inlineBelowBytes = b.inlineBelowBytes;
        this.inlineAfterIdleNanos = Math.min(b.inlineAfterIdleNanos, MAX_INLINE_AFTER_IDLE_NANOS);
        this.failOnSendTimeout = b.failOnSendTimeout;
        this.lastTakeNanos = System.nanoTime() - inlineAfterIdleNanos;
        ThreadFactory factory = b.threadFactory != null ? b.threadFactory : ParallelCompressingSender::newDaemon;
        ZstdCompressor inline = null;
        Arena arena = null;
        MemorySegment frame = null;
        MemorySegment staging = null;
        int started = 0;
        SocketCheck.hold(socket); // the builder checked it too, but two builds may race
        try {
            if (inlineBelowBytes > 0) {
                arena = Arena.ofShared(); // the caller may hand the sender to another thread
                long largest = inlineBelowBytes - 1;
                frame = arena.allocate(Math.max(FrameOptions.bound(largest, true), FrameOptions.bound(largest, false)), 64);
                staging = arena.allocate(Math.max(1, largest), 64);
                inline = frames.newCompressor();
            }
            WeakReference<ParallelCompressingSender> self = new WeakReference<>(this);
            for (int w = 0; w < workers.length; w++) {
                workers[w] = new Worker(self, frames.newCompressor(), frames.newIncompressibleCheck());
            }
            for (Worker w : workers) {
                w.thread = factory.newThread(w);
                if (w.thread == null) {
                    throw new IllegalStateException("threadFactory returned null");
                }
                if (w.thread.getState() != Thread.State.NEW) {
                    // Thread.start would throw a bare IllegalThreadStateException, and a thread the
                    // factory started runs its worker already (Thread::startVirtualThread, say).
                    throw new IllegalStateException("threadFactory returned a thread already started: thread=" + w.thread
                            + ", state=" + w.thread.getState() + " (it must return unstarted threads, which the sender"
                            + " starts: Thread.ofPlatform().factory(), not Thread.ofPlatform()::start)");
                }
            }
            for (int w = 1; w < workers.length; w++) {
                for (int earlier = 0; earlier < w; earlier++) {
                    if (workers[w].thread == workers[earlier].thread) {
                        // The second start would throw a bare IllegalThreadStateException (no
                        // message, and an IllegalArgumentException), the first worker running
                        // (before 2026-11-29); refused here, before any thread is started.
                        throw new IllegalStateException("threadFactory returned one thread for two workers: thread="
                                + workers[w].thread + ", workers " + earlier + " and " + w
                                + " (it must return a new thread for each call)");
                    }
                }
            }
            this.inlineCompressor = inline;
            this.inlineIncompressible = inline != null ? frames.newIncompressibleCheck() : null;
            this.inlineFrame = frame;
            this.inlineStaging = staging;
            for (; started < workers.length; started++) {
                workers[started].thread.start();
            }
            this.crew = new Crew(socket, workers, inline, arena);
            crew.cleanable = OwnerCleaner.CLEANER.register(this, crew);
        } catch (RuntimeException | Error e) {
            // Anything from a compressor that could not be made to a Thread.start that failed (no
            // native thread left, a factory's thread not startable): stop the workers running,
            // those started here and those whose thread the factory started itself, and close
            // every compressor made so far (a worker closes its own as it exits; closing is
            // idempotent). Until 2026-11-27 only the first started were stopped: each thread a
            // factory had started stayed parked for good (ErrorPathLeakTest).
            stopWorkers(workers.length);
            for (Worker w : workers) {
                if (w != null) {
                    w.compressor.close();
                }
            }
            if (inline != null) {
                inline.close();
            }
            if (arena != null) {
                arena.close();
            }
            SocketCheck.release(socket);
            throw e;
        }
    }

    /**
     * Stops the first {@code started} workers (each closes its own compressor as it exits) and
     * joins them through interrupts, restoring an interrupt once all are joined (restored at the
     * first, it would make every later join fail at once). A worker not made yet, or without a
     * thread, is skipped; so is a thread never started (its join returns at once) and, from a
     * failed build, a factory's thread that is the caller's own.
     */
    private void stopWorkers(int started) {
        stopping = true;
        boolean interrupted = false;
        for (int w = 0; w < started; w++) {
            Thread t = workers[w] == null ? null : workers[w].thread;
            if (t == null || t == Thread.currentThread()) {
                continue;
            }
            LockSupport.unpark(t);
            interrupted |= Threads.joinUninterruptibly(t);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static final AtomicInteger THREAD_NUMBER = new AtomicInteger();

    private static Thread newDaemon(Runnable r) {
        Thread t = new Thread(r, "zmqzstd-compress-" + THREAD_NUMBER.incrementAndGet());
        t.setDaemon(true);
        return t;
    }

    /**
     * Frames of at least this many bytes are sent zero-copy: the builder's
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
     * Compressing threads.
     *
     * @return the number of worker threads
     */
    public int workers() {
        return workers.length;
    }

    /**
     * Messages that may be taken and not yet sent (a power of two).
     *
     * @return the ring's size in messages: the builder's {@code inFlight} rounded up to a power of
     *     two
     */
    public int inFlightCapacity() {
        return capacity;
    }

    /**
     * Messages taken and not yet in libzmq right now (racy; for monitoring).
     *
     * @return the number of such messages, at most {@link #inFlightCapacity()}
     */
    public long inFlight() {
        return tail.get() - head.get();
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
     * Takes all of {@code payload} for sending; see the class comment for the outcome.
     *
     * @param payload the bytes to send, copied; the caller's again when this returns
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}
     * @return true when the message was taken; false only with DONTWAIT when
     *     {@link #inFlightCapacity()} messages, or the in-flight byte bound, are already waiting:
     *     nothing was taken
     * @throws IllegalArgumentException when {@code flags} has a bit other than DONTWAIT
     * @throws IllegalStateException when the payload cannot be read (its arena closed, or a fault
     *     in a mapping of a file shortened since it was mapped, named: "… could not be read: …";
     *     nothing is taken), after a compression or send failed (its cause attached), when closed,
     *     while a claim is open, or when used by two threads at once
     */
    public boolean send(MemorySegment payload, int flags) {
        return take(null, null, null, payload, 0, payload.byteSize(), flags);
    }

    /**
     * Copies {@code payload[offset, offset + length)} and queues it to go out as one compressed
     * single-part message. {@code flags}: 0 or {@link ZmqSocket#DONTWAIT}. The segment is the
     * caller's again when this returns. Allocation-free.
     *
     * @param payload the segment that holds the bytes to send
     * @param offset where the bytes start in {@code payload}
     * @param length how many bytes to send; 0 sends the frame of an empty payload
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}
     * @return true when the message was taken; false only with DONTWAIT when
     *     {@link #inFlightCapacity()} messages, or the in-flight byte bound, are already waiting:
     *     nothing was taken
     * @throws IndexOutOfBoundsException when {@code offset} or {@code length} is negative or the
     *     range passes the end of {@code payload}
     * @throws IllegalArgumentException when {@code flags} has a bit other than DONTWAIT
     * @throws IllegalStateException when the payload cannot be read (its arena closed, or a fault
     *     in a mapping of a file shortened since it was mapped, named: "… could not be read: …";
     *     nothing is taken), after a compression or send failed (its cause attached), when closed,
     *     while a claim is open, or when used by two threads at once
     */
    public boolean send(MemorySegment payload, long offset, long length, int flags) {
        return take(null, null, null, Objects.requireNonNull(payload, "payload"), offset, length, flags);
    }

    /**
     * {@link #send(MemorySegment, int)} for an array, copied straight from the array into native
     * memory (a pooled buffer, or for a message sent inline the sender's own memory of
     * {@code inlineBelowBytes}). Allocation-free.
     *
     * @param payload the bytes to send, all of the array; stays the caller's
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}
     * @return true when the message was taken; false only with DONTWAIT when
     *     {@link #inFlightCapacity()} messages, or the in-flight byte bound, are already waiting:
     *     nothing was taken
     * @throws IllegalArgumentException when {@code flags} has a bit other than DONTWAIT
     * @throws IllegalStateException after a compression or send failed (its cause attached),
     *     when closed, while a claim is open, or when used by two threads at once
     */
    public boolean send(byte[] payload, int flags) {
        Objects.requireNonNull(payload, "payload");
        return take(null, null, payload, null, 0, payload.length, flags);
    }

    /**
     * {@link #send(MemorySegment, int)} for a buffer's bytes from position to limit (left
     * unchanged). A heap buffer is copied from its array as {@link #send(byte[], int)} copies;
     * a direct buffer through a segment over the whole buffer that the sender makes at the first
     * call with that buffer and keeps: the sender refers to the last direct buffer sent (and so
     * keeps its memory from being freed) until another direct buffer comes or the sender is
     * closed, and sending the same buffer again allocates nothing. A read-only heap buffer, whose
     * array is not accessible, is wrapped in a {@code MemorySegment}, one small heap object per
     * call.
     *
     * @param payload the buffer whose remaining bytes are sent; stays the caller's
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}
     * @return true when the message was taken; false only with DONTWAIT when
     *     {@link #inFlightCapacity()} messages, or the in-flight byte bound, are already waiting:
     *     nothing was taken
     * @throws IllegalArgumentException when {@code flags} has a bit other than DONTWAIT
     * @throws IllegalStateException when the payload cannot be read (its arena closed, or a fault
     *     in a mapping of a file shortened since it was mapped, named: "… could not be read: …";
     *     nothing is taken), after a compression or send failed (its cause attached), when closed,
     *     while a claim is open, or when used by two threads at once
     */
    public boolean send(ByteBuffer payload, int flags) {
        Objects.requireNonNull(payload, "payload");
        owner.enter();
        try {
            ensureOpen();
            checkFlags(flags);
            return bufferView.send(payload, flags);
        } finally {
            owner.exit(this);
        }
    }

    /**
     * {@code topic} uncompressed, then {@code payload} compressed, as one two-part message (as
     * {@link CompressingSender#publish}): PUB/SUB subscriptions filter on the topic. Both are copied.
     *
     * @param topic the first part, sent uncompressed as it is; not null
     * @param payload the second part, all of the segment, compressed
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}
     * @return true when the message was taken; false only with DONTWAIT when
     *     {@link #inFlightCapacity()} messages, or the in-flight byte bound, are already waiting:
     *     nothing was taken
     * @throws IllegalArgumentException when {@code flags} has a bit other than DONTWAIT
     * @throws IllegalStateException when the payload cannot be read (its arena closed, or a fault
     *     in a mapping of a file shortened since it was mapped, named: "… could not be read: …";
     *     nothing is taken), after a compression or send failed (its cause attached), when closed,
     *     while a claim is open, or when used by two threads at once
     */
    public boolean publish(byte[] topic, MemorySegment payload, int flags) {
        return publish(topic, payload, 0, payload.byteSize(), flags);
    }

    /**
     * {@link #publish(byte[], MemorySegment, int)} of {@code payload[offset, offset + length)}.
     *
     * @param topic the first part, sent uncompressed as it is; not null
     * @param payload the segment that holds the second part
     * @param offset where the second part starts in {@code payload}
     * @param length the second part's length in bytes
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}
     * @return true when the message was taken; false only with DONTWAIT when
     *     {@link #inFlightCapacity()} messages, or the in-flight byte bound, are already waiting:
     *     nothing was taken
     * @throws IndexOutOfBoundsException when {@code offset} or {@code length} is negative or the
     *     range passes the end of {@code payload}
     * @throws IllegalArgumentException when {@code flags} has a bit other than DONTWAIT
     * @throws IllegalStateException when the payload cannot be read (its arena closed, or a fault
     *     in a mapping of a file shortened since it was mapped, named: "… could not be read: …";
     *     nothing is taken), after a compression or send failed (its cause attached), when closed,
     *     while a claim is open, or when used by two threads at once
     */
    public boolean publish(byte[] topic, MemorySegment payload, long offset, long length, int flags) {
        Objects.requireNonNull(topic, "topic");
        return take(topic, null, null, Objects.requireNonNull(payload, "payload"), offset, length, flags);
    }

    /**
     * {@link #publish(byte[], MemorySegment, int)} for an array payload, copied straight from the
     * array as {@link #send(byte[], int)} copies it. Allocation-free.
     *
     * @param topic the first part, sent uncompressed as it is; not null
     * @param payload the second part, all of the array, compressed
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}
     * @return true when the message was taken; false only with DONTWAIT when
     *     {@link #inFlightCapacity()} messages, or the in-flight byte bound, are already waiting:
     *     nothing was taken
     * @throws IllegalArgumentException when {@code flags} has a bit other than DONTWAIT
     * @throws IllegalStateException after a compression or send failed (its cause attached),
     *     when closed, while a claim is open, or when used by two threads at once
     */
    public boolean publish(byte[] topic, byte[] payload, int flags) {
        Objects.requireNonNull(payload, "payload");
        return take(Objects.requireNonNull(topic, "topic"), null, payload, null, 0, payload.length, flags);
    }

    /**
     * {@link #publish(byte[], MemorySegment, int)} for a topic in a segment (native memory, a
     * mapped file, or on the heap): copied with the payload when the message is taken, so the
     * segment is the caller's again when this returns. Allocation-free.
     *
     * @param topic the first part, all of the segment, sent uncompressed as it is; not null, at most
     *     {@link Integer#MAX_VALUE} bytes (an array topic's limit); its arena open and the segment
     *     usable from this thread
     * @param payload the second part, all of the segment, compressed
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}
     * @return true when the message was taken; false only with DONTWAIT when
     *     {@link #inFlightCapacity()} messages, or the in-flight byte bound, are already waiting:
     *     nothing was taken
     * @throws IllegalArgumentException when {@code flags} has a bit other than DONTWAIT, or the
     *     topic is longer than {@link Integer#MAX_VALUE} bytes; nothing is taken
     * @throws IllegalStateException when the topic or the payload cannot be read (its arena closed,
     *     or a fault in a mapping of a file shortened since it was mapped, named: "… could not be
     *     read: …"; nothing is taken), after a compression or send failed (its cause attached),
     *     when closed, while a claim is open, or when used by two threads at once
     * @throws WrongThreadException when the topic is confined to another thread; nothing is taken
     */
    public boolean publish(MemorySegment topic, MemorySegment payload, int flags) {
        return publish(topic, payload, 0, payload.byteSize(), flags);
    }

    /**
     * {@link #publish(MemorySegment, MemorySegment, int)} of {@code payload[offset, offset + length)}.
     *
     * @param topic the first part, all of the segment, sent uncompressed as it is; as for
     *     {@link #publish(MemorySegment, MemorySegment, int)}
     * @param payload the segment that holds the second part
     * @param offset where the second part starts in {@code payload}
     * @param length the second part's length in bytes
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}
     * @return true when the message was taken; false only with DONTWAIT when
     *     {@link #inFlightCapacity()} messages, or the in-flight byte bound, are already waiting:
     *     nothing was taken
     * @throws IndexOutOfBoundsException when {@code offset} or {@code length} is negative or the
     *     range passes the end of {@code payload}
     * @throws IllegalArgumentException when {@code flags} has a bit other than DONTWAIT, or the
     *     topic is too long, as for {@link #publish(MemorySegment, MemorySegment, int)}
     * @throws IllegalStateException when the topic or the payload cannot be read (its arena closed,
     *     or a fault in a mapping of a file shortened since it was mapped, named: "… could not be
     *     read: …"; nothing is taken), after a compression or send failed (its cause attached),
     *     when closed, while a claim is open, or when used by two threads at once
     * @throws WrongThreadException when the topic is confined to another thread; nothing is taken
     */
    public boolean publish(MemorySegment topic, MemorySegment payload, long offset, long length, int flags) {
        MemorySegment checked = checkTopic(topic);
        return take(null, checked, null, Objects.requireNonNull(payload, "payload"), offset, length, flags);
    }

    /**
     * {@link #publish(MemorySegment, MemorySegment, int)} for an array payload, copied straight from
     * the array as {@link #send(byte[], int)} copies it. Allocation-free.
     *
     * @param topic the first part, all of the segment, sent uncompressed as it is; as for
     *     {@link #publish(MemorySegment, MemorySegment, int)}
     * @param payload the second part, all of the array, compressed
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}
     * @return true when the message was taken; false only with DONTWAIT when
     *     {@link #inFlightCapacity()} messages, or the in-flight byte bound, are already waiting:
     *     nothing was taken
     * @throws IllegalArgumentException when {@code flags} has a bit other than DONTWAIT, or the
     *     topic is too long, as for {@link #publish(MemorySegment, MemorySegment, int)}
     * @throws IllegalStateException when the topic cannot be read (its arena closed, or a fault in
     *     a mapping of a file shortened since it was mapped, named: "… could not be read: …";
     *     nothing is taken), after a compression or send failed (its cause attached), when closed,
     *     while a claim is open, or when used by two threads at once
     * @throws WrongThreadException when the topic is confined to another thread; nothing is taken
     */
    public boolean publish(MemorySegment topic, byte[] payload, int flags) {
        Objects.requireNonNull(payload, "payload");
        return take(null, checkTopic(topic), payload, null, 0, payload.length, flags);
    }

    /**
     * Refuses a segment topic that is longer than an array topic can be, or that cannot be read
     * from this thread (its arena closed, confined to another thread), naming it, before anything
     * is taken; returns it.
     */
    private static MemorySegment checkTopic(MemorySegment topic) {
        Objects.requireNonNull(topic, "topic");
        if (topic.byteSize() > MAX_TOPIC_BYTES) {
            throw new IllegalArgumentException("topic longer than an array topic can be: topicBytes=" + topic.byteSize()
                    + ", limit=" + MAX_TOPIC_BYTES);
        }
        RawSegments.checkUsable(topic, "topic");
        return topic;
    }

    /**
     * Waits until every message taken so far is in libzmq (sent, or dropped after a failure).
     *
     * @throws IllegalStateException when a compression or send failed (its cause attached), when
     *     closed, or when used by two threads at once
     */
    public void flush() {
        owner.enter();
        try {
            ensureOpen();
            awaitHead(tail.get(), Long.MAX_VALUE);
            throwIfFailed();
        } finally {
            owner.exit(this);
        }
    }

    /**
     * As {@link #flush()}, waiting at most {@code timeoutMs}.
     *
     * @param timeoutMs the longest wait, in milliseconds; 0 or less (down to
     *     {@link Long#MIN_VALUE}) does not wait
     * @return true when every message taken is in libzmq, false when the time ran out first
     * @throws IllegalStateException when a compression or send failed (its cause attached), when
     *     closed, or when used by two threads at once
     */
    public boolean flush(long timeoutMs) {
        owner.enter();
        try {
            ensureOpen();
            // From 0: a timeout saturating at Long.MIN_VALUE ns made the time left overflow to
            // 292 years, and flush waited for ever (before 2026-11-26)
            boolean done = awaitHead(tail.get(), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs)));
            throwIfFailed();
            return done;
        } finally {
            owner.exit(this);
        }
    }

    /**
     * A snapshot of the counters (allocates): messages and bytes as sent by the workers, would-blocks
     * of the caller's DONTWAIT sends and of the socket's send timeout, dropped messages, and the
     * socket context pool's hits and misses (pool-wide). {@code poolRents} counts two rents per
     * message handed to a worker (its payload copy or claimed buffer, and its frame), none for one
     * sent inline from {@code send} ({@code inlineMessages}), one for a claim sent inline, aborted or
     * dropped. Callable from any thread; may be slightly behind, and while messages go out its
     * counters need not agree with each other (README, "Threading").
     *
     * @return a new snapshot
     */
    public PipelineStats stats() {
        return counters.snapshot(pool, refused, callerRents);
    }

    /**
     * Takes the payload {@code array[offset, offset + length)}, or when {@code array} is null
     * {@code segment[offset, offset + length)}, behind {@code topic}, else {@code topicSegment}, if
     * either is not null.
     */
    private boolean take(byte[] topic, MemorySegment topicSegment, byte[] array, MemorySegment segment, long offset,
                         long length, int flags) {
        Objects.checkFromIndexSize(offset, length, array != null ? array.length : segment.byteSize());
        owner.enter();
        try {
            return takeOwned(topic, topicSegment, array, segment, offset, length, flags);
        } finally {
            owner.exit(this);
        }
    }

    /** {@link #take} once the range is checked, on the thread inside the sender. */
    private boolean takeOwned(byte[] topic, MemorySegment topicSegment, byte[] array, MemorySegment segment, long offset,
                              long length, int flags) {
        // Closed is said before a bad flag, as CompressingSender says it (before 2026-11-29 the flag
        // was refused first, an IllegalArgumentException that did not say the sender was closed)
        ensureOpen();
        checkFlags(flags);
        ensureNoClaim();
        throwIfFailed();
        long t = tail.get();
        boolean idle = inlineBelowBytes > 0 && idleSinceLastTake();
        if (idle && length < inlineBelowBytes && tryInline(topic, topicSegment, array, segment, offset, length)) {
            return true;
        }
        long bytes = topicLength(topic, topicSegment) + length;
        if (!awaitRoom(t, bytes, flags)) {
            return false;
        }
        PooledBuffer in = pool.rent(bytes);
        try {
            copyPayload(array, segment, offset, length, in.segment());
            copyTopic(in, topic, topicSegment, length, NOTHING_TAKEN);
        } catch (RuntimeException | Error e) {
            in.release();
            throw e;
        }
        publish(t, in, topic, topicSegment, length);
        return true;
    }

    /**
     * Claims room for the next message and returns native memory to write its payload into, so a
     * caller that produces the payload (serialises an event, say) writes it where the workers
     * compress it from, and the copy that {@link #send(MemorySegment, int)} makes is not made.
     * Write the payload at offset 0, then {@link #commit(long)} its length, or {@link #abort()}.
     * The segment has at least {@code maxLength} bytes (it may have more; a commit may not pass
     * {@code maxLength}). It is the sender's again at commit or abort, and then the caller must
     * not touch it: it belongs to a pooled buffer that is compressed on another thread and then
     * rented again.
     *
     * <p>Room is taken as by {@code send}: without DONTWAIT this waits while the ring is full or
     * {@code maxLength} more bytes would pass {@code inFlightBytes}; with DONTWAIT it returns null
     * instead, and nothing was claimed. Between claim and commit the sender takes no other
     * message ({@code send} and {@code publish} throw); {@code flush} waits for the messages
     * before the claim. Allocation-free.
     *
     * @param maxLength the longest payload the caller may commit, 0 to {@link #MAX_CLAIM_BYTES};
     *     at most the pool's largest buffer for an allocation-free claim (larger ones are
     *     unpooled; with a topic, {@code maxLength} and the topic together), and the frame of the
     *     payload committed is pooled when its frame bound fits that buffer (the class comment)
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}
     * @return the payload's memory, or null with DONTWAIT when there is no room
     * @throws IllegalArgumentException when {@code maxLength} is negative or above
     *     {@link #MAX_CLAIM_BYTES}, or {@code flags} has a bit other than DONTWAIT; nothing is
     *     claimed
     * @throws IllegalStateException when a claim is already open, after a failure (its cause
     *     attached), or when closed
     * @throws OutOfMemoryError when the JVM cannot allocate {@code maxLength} bytes of native
     *     memory (its direct-memory limit, {@code -XX:MaxDirectMemorySize}, is by default the
     *     heap's maximum); nothing is claimed and the sender goes on
     */
    public MemorySegment claim(long maxLength, int flags) {
        return claimRoom(null, null, maxLength, flags);
    }

    /**
     * {@link #claim(long, int)} for a message that {@link #commit} sends as {@link #publish} does:
     * {@code topic} uncompressed, then the payload compressed, one two-part message that PUB/SUB
     * subscriptions filter on the topic. The payload is written at offset 0 as for a claim without
     * a topic; the bytes past {@code maxLength} are the sender's. {@code topic} is read at commit
     * (copied then), so it must not change before commit returns. Allocation-free.
     *
     * @param topic the first part, sent uncompressed as it is; not null, read at commit
     * @param maxLength the longest payload the caller may commit, in bytes, as for
     *     {@link #claim(long, int)}: 0 to {@link #MAX_CLAIM_BYTES}
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}
     * @return the payload's memory, or null with DONTWAIT when there is no room for the topic and
     *     {@code maxLength} payload bytes
     * @throws IllegalArgumentException when {@code maxLength} is negative or above
     *     {@link #MAX_CLAIM_BYTES}, or {@code flags} has a bit other than DONTWAIT; nothing is
     *     claimed
     * @throws IllegalStateException when a claim is already open, after a failure (its cause
     *     attached), or when closed
     * @throws OutOfMemoryError as for {@link #claim(long, int)}; nothing is claimed and the
     *     sender goes on
     */
    public MemorySegment claim(byte[] topic, long maxLength, int flags) {
        return claimRoom(Objects.requireNonNull(topic, "topic"), null, maxLength, flags);
    }

    /**
     * {@link #claim(byte[], long, int)} for a topic in a segment, which is read at commit (copied
     * then), so it must not change, nor its arena close, before commit returns. Allocation-free.
     *
     * @param topic the first part, all of the segment, sent uncompressed as it is; not null, at
     *     most {@link Integer#MAX_VALUE} bytes, read at commit
     * @param maxLength the longest payload the caller may commit, in bytes, as for
     *     {@link #claim(long, int)}: 0 to {@link #MAX_CLAIM_BYTES}
     * @param flags 0 or {@link ZmqSocket#DONTWAIT}
     * @return the payload's memory, or null with DONTWAIT when there is no room for the topic and
     *     {@code maxLength} payload bytes
     * @throws IllegalArgumentException when {@code maxLength} is negative or above
     *     {@link #MAX_CLAIM_BYTES}, {@code flags} has a bit other than DONTWAIT, or the topic is
     *     longer than {@link Integer#MAX_VALUE} bytes; nothing is claimed
     * @throws IllegalStateException when the topic's arena is closed, a claim is already open,
     *     after a failure (its cause attached), or when closed
     * @throws WrongThreadException when the topic is confined to another thread; nothing is
     *     claimed
     * @throws OutOfMemoryError as for {@link #claim(long, int)}; nothing is claimed and the
     *     sender goes on
     */
    public MemorySegment claim(MemorySegment topic, long maxLength, int flags) {
        return claimRoom(null, checkTopic(topic), maxLength, flags);
    }

    private MemorySegment claimRoom(byte[] topic, MemorySegment topicSegment, long maxLength, int flags) {
        if (maxLength < 0 || maxLength > MAX_CLAIM_BYTES) {
            // Before 2026-11-26 only a negative one was refused here: a claim past the frame bound
            // reached the allocation, whose OutOfMemoryError (without a message at Long.MAX_VALUE)
            // said nothing of the limit
            throw new IllegalArgumentException("maxLength outside 0 to the largest payload a zstd frame bound covers: maxLength="
                    + maxLength + ", limit=" + MAX_CLAIM_BYTES);
        }
        owner.enter();
        try {
            ensureOpen();
            checkFlags(flags);
            ensureNoClaim();
            throwIfFailed();
            boolean idle = inlineBelowBytes > 0 && idleSinceLastTake();
            // at most MAX_CLAIM_BYTES + MAX_TOPIC_BYTES: no overflow
            long bytes = maxLength + topicLength(topic, topicSegment);
            if (!awaitRoom(tail.get(), bytes, flags)) {
                return null;
            }
            PooledBuffer in = pool.rent(bytes);
            crew.openClaim = in;
            claimedTopic = topic;
            claimedTopicSegment = topicSegment;
            claimedLength = maxLength;
            claimedIdle = idle;
            return in.segment();
        } finally {
            owner.exit(this);
        }
    }

    /**
     * Sends the claimed segment's first {@code length} bytes as one compressed single-part message,
     * or after the claim's topic as a two-part message (or, with {@code inlineBelowBytes} set and the conditions of the class comment met, compresses
     * and sends it on this thread). Always taken, the room being reserved by {@link #claim}, unless
     * the sender has failed since: then the commit is refused as a {@code send} after a failure is.
     *
     * @param length the payload's length in bytes, 0 to the claim's {@code maxLength}
     * @throws IllegalStateException without an open claim, or after a compression or send failed
     *     (its cause attached): the claimed message is then not taken, as a {@code send} after a
     *     failure takes nothing, so it is not sent and not counted in
     *     {@link PipelineStats#droppedMessages()}, its buffer is back in the pool and the claim is
     *     closed; or when the claim's topic segment ({@link #claim(MemorySegment, long, int)})
     *     is no longer alive, or faults as a mapping of a file shortened since it was mapped
     *     ("topic could not be read: …", the JDK's {@link InternalError} as the cause): the claim
     *     stays open
     * @throws WrongThreadException when the claim's topic segment is confined to another thread
     *     (the claim stays open)
     * @throws IndexOutOfBoundsException when {@code length} is negative or passes the claim's
     *     {@code maxLength} (the claim stays open)
     */
    public void commit(long length) {
        owner.enter();
        try {
            ensureOpen();
            PooledBuffer in = crew.openClaim;
            if (in == null) {
                throw new IllegalStateException("commit() without an open claim()");
            }
            if (length < 0 || length > claimedLength) {
                throw new IndexOutOfBoundsException("commit length outside the claim: length=" + length
                        + ", maxLength=" + claimedLength);
            }
            Throwable failed = failure.get();
            if (failed != null) {
                // Refused as a send after the failure is (before 2026-11-29 the javadoc said the
                // claimed message was dropped, as if taken and counted, and the exception did not say)
                releaseClaim();
                throw new IllegalStateException(FAILED + failed + " (the claimed message was not taken, as a send"
                        + " after a failure takes nothing: not sent, not counted in droppedMessages, its buffer back"
                        + " in the pool)", failed);
            }
            byte[] topic = claimedTopic;
            MemorySegment topicSegment = claimedTopicSegment;
            if (topicSegment != null) {
                RawSegments.checkUsable(topicSegment, "topic"); // thrown with the claim still open
            }
            if (claimedIdle && length < inlineBelowBytes && tryInline(topic, topicSegment, null, in.segment(), 0, length)) {
                releaseClaim();
                return;
            }
            copyTopic(in, topic, topicSegment, length, "the claim stays open"); // and so it does
            crew.openClaim = null;
            claimedTopic = null;
            claimedTopicSegment = null;
            publish(tail.get(), in, topic, topicSegment, length);
        } finally {
            owner.exit(this);
        }
    }

    /** Gives an open claim's memory back; nothing is sent. Does nothing without an open claim. */
    public void abort() {
        owner.enter();
        try {
            releaseClaim();
        } finally {
            owner.exit(this);
        }
    }

    /** Returns an open claim's buffer to the pool (counted: it never reached a worker). */
    private void releaseClaim() {
        PooledBuffer in = crew.openClaim;
        if (in != null) {
            crew.openClaim = null;
            claimedTopic = null;
            claimedTopicSegment = null;
            in.release();
            callerRents++;
        }
    }

    private void ensureNoClaim() {
        if (crew.openClaim != null) {
            throw new IllegalStateException("a claimed message is open: commit() or abort() it first");
        }
    }

    private static void checkFlags(int flags) {
        if ((flags & ~ZmqSocket.DONTWAIT) != 0) {
            throw new IllegalArgumentException("flags other than DONTWAIT: flags=" + flags
                    + " (a ParallelCompressingSender sends single-part messages; publish() for a topic)");
        }
    }

    /**
     * With nothing in flight (head only moves up to tail, which only the caller moves) and the
     * send lock free, sends the message on the caller's thread, in order; false when it did not.
     */
    private boolean tryInline(byte[] topic, MemorySegment topicSegment, byte[] array, MemorySegment segment, long offset,
                              long length) {
        // A topic in a mapping goes through the ring, whose copy throws a fault in it (a file
        // shortened since it was mapped) to the caller, nothing taken; inline, the socket's read
        // of it failed the sender (before 2026-11-29). Too long to be copied into inline memory.
        if (head.get() != tail.get() || topicSegment != null && topicSegment.isMapped()
                || !sendLock.compareAndSet(0, 1)) {
            return false;
        }
        try {
            return sendInline(topic, topicSegment, array, segment, offset, length);
        } finally {
            sendLock.set(0);
        }
    }

    /**
     * Waits, unless DONTWAIT, until one more message of {@code bytes} fits the ring and the byte
     * bound, with {@code t} the current tail; false (counted) when DONTWAIT finds no room.
     */
    private boolean awaitRoom(long t, long bytes, int flags) {
        if (t - head.get() >= capacity || overBytes(t, bytes)) {
            if ((flags & ZmqSocket.DONTWAIT) != 0) {
                refused++;
                return false;
            }
            if (t - head.get() >= capacity) {
                // Wait until half the ring is free, not one slot: the caller is then woken once
                // per capacity/2 messages instead of once per message (a futex wake and a
                // context switch each, which at 1 KiB cost more than handing the message over).
                awaitHead(t - capacity + Math.max(1, capacity / 2), Long.MAX_VALUE);
            }
            while (overBytes(t, bytes)) {
                // At most t: the last message in flight may have gone out since overBytes read
                // head, and head never passes the tail (before 2026-11-26 the caller then waited
                // for head to reach t + 1, which only the caller itself could bring about).
                awaitHead(Math.min(head.get() + 1, t), Long.MAX_VALUE);
                throwIfFailed();
            }
            throwIfFailed();
        }
        return true;
    }

    /**
     * {@link BufferPayload#copy}, a fault in the caller's memory named: the payload's, into the
     * ring's buffer or the inline memory, nothing taken yet.
     */
    private static void copyPayload(byte[] array, MemorySegment segment, long offset, long length, MemorySegment dst) {
        try {
            BufferPayload.copy(array, segment, offset, length, dst);
        } catch (InternalError e) { // only a segment's copy faults: an array is the JVM's own memory
            throw MemoryFaults.unreadable("payload", segment, offset, length, NOTHING_TAKEN, e);
        }
    }

    /**
     * Writes the topic ({@code topic}, else {@code topicSegment}), if any, right after the payload
     * of {@code length} bytes in {@code in}: where {@link #publish(long, PooledBuffer, byte[],
     * MemorySegment, long)} expects it. A segment topic can fail to be read (its arena closed by
     * another thread since it was checked, a fault in a mapping): before the buffer is handed over,
     * so the caller still owns it; {@code consequence} says what became of the message.
     */
    private static void copyTopic(PooledBuffer in, byte[] topic, MemorySegment topicSegment, long length,
                                  String consequence) {
        if (topic != null) {
            MemorySegment.copy(topic, 0, in.segment(), ValueLayout.JAVA_BYTE, length, topic.length);
        } else if (topicSegment != null) {
            try {
                MemorySegment.copy(topicSegment, 0, in.segment(), length, topicSegment.byteSize());
            } catch (InternalError e) {
                throw MemoryFaults.unreadable("topic", topicSegment, 0, topicSegment.byteSize(), consequence, e);
            }
        }
    }


    /**
     * Puts the buffer, holding the payload and after it the topic ({@link #copyTopic}), if any, into
     * slot {@code t} and hands it to the workers.
     */
    private void publish(long t, PooledBuffer in, byte[] topic, MemorySegment topicSegment, long length) {
        int i = (int) (t & mask);
        long topicLength = topicLength(topic, topicSegment);
        inputs[i] = in;
        topicBytes[i] = topic == null && topicSegment == null ? NO_TOPIC : topicLength;
        payloadBytes[i] = length;
        inFlightBytes.getAndAdd(topicLength + length);
        tail.set(t + 1); // publishes the slot's fields to the worker that claims it
        wakeOneWorker();
    }

    /** The topic's length in bytes ({@code topic}, else {@code topicSegment}), 0 for none. */
    private static long topicLength(byte[] topic, MemorySegment topicSegment) {
        return topic != null ? topic.length : topicSegment != null ? topicSegment.byteSize() : 0;
    }

    /** Whether at least inlineAfterIdleNanos passed since the previous take began; notes this one. */
    private boolean idleSinceLastTake() {
        long now = System.nanoTime();
        long idle = now - lastTakeNanos;
        lastTakeNanos = now;
        return idle >= inlineAfterIdleNanos;
    }

    /**
     * Compresses and sends one message on the caller's thread, under the send lock, with nothing in
     * flight. Returns false, having sent nothing, when the socket would block: the message then
     * goes through the ring, so that the outcome is the ring's (taken, or refused only when the
     * ring is full). A payload that cannot be read (its arena closed, another thread's confined
     * memory, a page of a mapping past the end of a file shortened since it was mapped: a mapping
     * is copied into the inline memory first, as an array is) throws to the caller before anything
     * is sent, nothing taken and the sender unchanged, as the ring's copy of it does in
     * {@link #take}; a topic in a mapping goes through the ring ({@link #tryInline}). A failure to compress or send is handled as a
     * worker's: recorded, the message dropped and counted, and rethrown by the caller's next call;
     * so the caller sees the same whichever thread the message went through. (Before 2026-11-26 a
     * failed compression was thrown at once and left the sender unfailed, and a commit's claim
     * open with its buffer rented, where a worker's failed the sender and returned the buffer.)
     */
    private boolean sendInline(byte[] topic, MemorySegment topicSegment, byte[] array, MemorySegment segment, long offset,
                               long length) {
        MemorySegment payload = segment;
        long from = offset;
        if (array != null || segment.isMapped()) {
            // copied as the ring copies it, straight from the array (length < inlineBelowBytes); a
            // mapping too, by Java, whose copy reports a page past the end of a file shortened since
            // it was mapped as an exception to the caller, nothing taken, as the ring's copy does.
            // libzstd reading it in place took SIGBUS and ended the JVM (before 2026-11-29).
            copyPayload(array, segment, offset, length, inlineStaging);
            payload = inlineStaging;
            from = 0;
        } else {
            // Checked before compressing, so that whatever the compression throws is its own failure,
            // not the caller's unreadable payload (the checks the ring's copy makes in take())
            RawSegments.checkUsable(segment, "payload");
        }
        try {
            boolean raw = frames.raw(inlineIncompressible, payload, from, length);
            long n = FrameOptions.encode(inlineCompressor, inlineIncompressible, raw, payload, from, length,
                    inlineFrame, FrameOptions.bound(length, raw));
            int frameFlags = ZmqSocket.DONTWAIT;
            boolean withTopic = topic != null || topicSegment != null;
            if (withTopic) {
                int topicFlags = ZmqSocket.DONTWAIT | ZmqSocket.SNDMORE;
                boolean topicSent;
                try {
                    topicSent = topic != null ? socket.send(topic, 0, topic.length, topicFlags)
                            : socket.send(topicSegment, 0, topicSegment.byteSize(), topicFlags);
                } catch (ZmqException e) {
                    if (!unroutable(e)) {
                        throw e;
                    }
                    counters.droppedMessages++; // taken and dropped, as the ring drops it (sendTopic)
                    return true;
                }
                if (!topicSent) {
                    return false;
                }
                counters.envelopeParts++;
                frameFlags = 0; // libzmq takes the rest of a message whose first part it took
            }
            boolean frameSent;
            try {
                frameSent = socket.send(inlineFrame, 0, n, frameFlags);
            } catch (RuntimeException | Error e) {
                frameFailed(e, withTopic);
                throw e;
            }
            if (!frameSent) {
                if (!withTopic) {
                    return false;
                }
                // Refused after its topic went in: libzmq dropped the message, topic included
                // (see sendPart). Counted as dropped, as the ring counts it, rather than handed to
                // the ring to be sent again, so that the outcome does not depend on the thread that
                // sent it (before 2026-11-27 the ring sent it again, its topic counted twice).
                counters.droppedMessages++;
                return true;
            }
            counters.frameSent(length, n, false, raw);
            counters.messages++;
            counters.inlineMessages++;
        } catch (RuntimeException | Error e) {
            fail(e);
            counters.droppedMessages++;
        }
        return true;
    }

    /** Whether taking {@code bytes} more would pass the byte bound while other messages are in flight. */
    private boolean overBytes(long t, long bytes) {
        return t > head.get() && inFlightBytes.get() + bytes > maxInFlightBytes;
    }

    /**
     * Waits until head reaches {@code target} or the deadline passes; parks, woken by the send-lock
     * holder each time head moves. An interrupt does not end the wait; it is kept for the caller.
     */
    private boolean awaitHead(long target, long deadlineNs) {
        if (head.get() >= target) {
            return true;
        }
        boolean interrupted = false;
        waitTarget = target;
        waiter = Thread.currentThread();
        try {
            while (head.get() < target) {
                if (deadlineNs == Long.MAX_VALUE) {
                    LockSupport.park(this);
                } else {
                    long left = deadlineNs - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    LockSupport.parkNanos(this, left);
                }
                if (Thread.interrupted()) {
                    interrupted = true;
                }
            }
            return true;
        } finally {
            waiter = null;
            waitTarget = Long.MAX_VALUE;
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void wakeOneWorker() {
        for (Worker w : workers) {
            if (w.parked) {
                w.parked = false;
                w.handedOver = this; // strongly reachable until the woken worker holds it itself
                // (a worker that holds nothing is always "parked": starting, parked, or woken by
                // chance, so a message taken while no worker holds the sender is always handed over)
                LockSupport.unpark(w.thread);
                return;
            }
        }
    }

    /**
     * One compressing thread. It reaches its sender only through a weak reference, and holds it only
     * while it works or has been woken for work ({@link #handedOver}): a parked worker does not keep
     * the sender reachable, so a sender dropped unclosed is collected once nothing is in flight, and
     * its {@link Crew} then wakes the workers, which find the reference cleared and exit. (Before 2026-11-25 the workers were inner objects of the sender, so a
     * sender dropped unclosed was never collected and its threads ran until the JVM exited.)
     */
    private static final class Worker implements Runnable {
        private final WeakReference<ParallelCompressingSender> sender;
        /**
         * The sender, set by whoever wakes this worker for work and taken at its next round: from
         * the wake until the worker holds the sender on its stack, the sender must not be collected
         * (a producer may drop it right after its last send, and the work must still be done).
         */
        volatile ParallelCompressingSender handedOver;
        final ZstdCompressor compressor;
        /** This worker's check of incompressible payloads; null when off. */
        final IncompressibleCheck incompressible;
        Thread thread;
        /**
         * True while this worker holds no strong reference to the sender: before its first round,
         * parked, or woken without a hand-over (by chance, or by the cleaner) and not yet holding
         * it. A producer that publishes work and finds it true hands the sender over. False only
         * from a hand-over, or while the worker holds the sender on its stack and will look at the
         * ring before it parks; so some worker always holds, or is handed, the sender of a message
         * in flight. (Until 2026-11-25 it began false and a wake-up cleared it: a message taken
         * before a worker's first round, or while the only workers were waking by chance, left the
         * sender collectable, and the message was lost.)
         */
        volatile boolean parked = true;

        Worker(WeakReference<ParallelCompressingSender> sender, ZstdCompressor compressor, IncompressibleCheck incompressible) {
            this.sender = sender;
            this.compressor = compressor;
            this.incompressible = incompressible;
        }

        @Override
        public void run() {
            try {
                while (workUntilIdle()) {
                    LockSupport.park(this);
                    // An interrupt does not stop a worker (close() does, and a sender dropped
                    // unclosed stops its own): cleared, since with it set park returns at once and
                    // the worker would spin. (Before 2026-11-26 it was left set, and an interrupted
                    // worker burnt a core until the sender was closed.)
                    Thread.interrupted();
                }
            } finally {
                compressor.close();
            }
        }

        /**
         * Works while there is work; true to park, false to exit (the sender is closing, or was
         * collected). In a method of its own so that no reference to the sender is left on the
         * worker's stack while it is parked.
         */
        private boolean workUntilIdle() {
            ParallelCompressingSender s = (ParallelCompressingSender) HANDED_OVER.getAndSet(this, null);
            if (s == null) {
                s = sender.get();
                if (s == null) {
                    return false; // collected: nothing was in flight
                }
            }
            parked = false; // holds the sender now, and looks at the ring before it parks again
            return s.workUntilIdle(this);
        }

        private static final VarHandle HANDED_OVER;

        static {
            try {
                HANDED_OVER = MethodHandles.lookup().findVarHandle(Worker.class, "handedOver", ParallelCompressingSender.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    /**
     * Claims slots in order, compresses each, then tries to send, until none is left to claim:
     * true when the worker should park, false when it should exit ({@link #stopping}).
     */
    private boolean workUntilIdle(Worker w) {
        while (true) {
            long s = claimed.get();
            if (s < tail.get()) {
                if (claimed.compareAndSet(s, s + 1)) {
                    if (s + 1 < tail.get()) {
                        wakeOneWorker(); // more work than this one: bring a sleeping worker in
                    }
                    compress(w, (int) (s & mask));
                    sendReady();
                }
                continue;
            }
            if (stopping) {
                return false;
            }
            // Park only after announcing it and seeing no work: the caller publishes tail,
            // then reads parked; one of the two sees the other.
            w.parked = true;
            if (claimed.get() < tail.get() || stopping) {
                w.parked = false;
                continue;
            }
            return true;
        }
    }

    private void compress(Worker w, int i) {
        PooledBuffer out = null;
        try {
            if (failure.get() == null && !abandoned) { // else dropped unsent: not worth compressing
                long length = payloadBytes[i];
                MemorySegment in = inputs[i].segment();
                boolean raw = frames.raw(w.incompressible, in, 0, length);
                long bound = FrameOptions.bound(length, raw);
                out = pool.rent(bound);
                frameRented[i] = true;
                frameRaw[i] = raw;
                frameBytes[i] = FrameOptions.encode(w.compressor, w.incompressible, raw, in, 0, length, out.segment(), bound);
                outputs[i] = out;
                out = null;
            }
        } catch (RuntimeException | Error e) {
            fail(e);
        } finally {
            if (out != null) {
                out.release();
            }
            states.set(i, READY); // publishes the output fields to the send-lock holder
        }
    }

    /**
     * What a sender leaves to stop and free, held apart from it so that the cleaner can reach it
     * without reaching the sender: the socket it holds, its workers (each closes its own
     * compressor as it exits), the inline compressor and its frame and staging memory, and the buffer of a claim left open. Runs
     * once: from close(), after the workers have been joined, or on the thread {@code zmqzstd-cleaner} once the
     * sender is unreachable, with the pipeline's warning for an owner dropped unclosed. Unreachable,
     * the sender has nothing in flight: a message in flight keeps a worker working, and a working
     * worker holds the sender.
     */
    private static final class Crew implements Runnable {
        /** The socket the sender holds ({@link SocketCheck#hold}), given back first. */
        private final ZmqSocket socket;
        private final Worker[] workers;
        private final ZstdCompressor inlineCompressor;
        private final Arena inlineArena;
        /** Set by close() before it cleans; unset when the cleaner runs this. */
        boolean closedByOwner;
        /**
         * The open claim's payload buffer, else null; the caller's thread only. Kept here, not in
         * the sender, so that the cleaner returns it for a sender dropped with a claim open (before
         * 2026-11-26 it stayed rented for ever). The caller's last write happens-before the
         * cleaner's read: each call ends with a reachability fence on the sender.
         */
        PooledBuffer openClaim;
        Cleaner.Cleanable cleanable;

        Crew(ZmqSocket socket, Worker[] workers, ZstdCompressor inlineCompressor, Arena inlineArena) {
            this.socket = socket;
            this.workers = workers;
            this.inlineCompressor = inlineCompressor;
            this.inlineArena = inlineArena;
        }

        /**
         * Stops and frees, then warns when the sender was dropped unclosed: the warning goes to the
         * application's logging, which may throw (before 2026-11-27 it came first, and a warning
         * that threw left the workers parked for ever, the claim's buffer rented and the inline
         * memory allocated).
         */
        @Override
        public void run() {
            // From close() the workers have exited; from the cleaner nothing was in flight, and
            // the workers, woken below, touch the socket no more
            SocketCheck.release(socket);
            try {
                if (!closedByOwner) {
                    for (Worker w : workers) {
                        LockSupport.unpark(w.thread); // wakes to a cleared reference, and exits
                    }
                    if (openClaim != null) {
                        openClaim.release(); // nothing of it was taken
                        openClaim = null;
                    }
                }
                if (inlineCompressor != null) {
                    inlineCompressor.close();
                    inlineArena.close();
                }
            } finally {
                if (!closedByOwner) {
                    Unclosed.reportUnclosed("ParallelCompressingSender", "its compressing threads were stopped and its native memory was");
                }
            }
        }
    }

    /**
     * Sends every slot from head on that is READY, in order, if no other thread is doing so. The
     * re-check after unlocking catches a slot that became READY while the lock was held and whose
     * worker therefore found it taken.
     */
    private void sendReady() {
        while (sendLock.compareAndSet(0, 1)) {
            try {
                long h = head.get();
                while (h < tail.get() && states.get((int) (h & mask)) == READY) {
                    sendSlot((int) (h & mask));
                    head.set(++h); // frees the slot for the caller
                    Thread w = waiter;
                    if (w != null && h >= waitTarget) {
                        LockSupport.unpark(w);
                    }
                }
            } finally {
                sendLock.set(0);
            }
            long h = head.get();
            if (h >= tail.get() || states.get((int) (h & mask)) != READY) {
                return;
            }
        }
    }

    /** Sends one slot's topic and frame, then empties the slot. Called under the send lock. */
    private void sendSlot(int i) {
        PooledBuffer in = inputs[i];
        PooledBuffer out = outputs[i];
        inputs[i] = null;
        outputs[i] = null;
        try {
            if (out == null || failure.get() != null || abandoned) {
                counters.droppedMessages++;
                return;
            }
            long topic = topicBytes[i];
            if (topic != NO_TOPIC) {
                if (!sendTopic(in.segment(), payloadBytes[i], topic)) {
                    counters.droppedMessages++;
                    return;
                }
                counters.envelopeParts++;
            }
            long n = frameBytes[i];
            boolean zeroCopy = n >= frames.zeroCopyThreshold(socket);
            // After a topic went in, libzmq takes the rest of the message without blocking, or
            // refuses it only having dropped the message (see sendPart).
            try {
                if (!sendPart(out.segment(), 0, n, 0, zeroCopy ? out : null, topic != NO_TOPIC)) {
                    counters.droppedMessages++;
                    return;
                }
            } catch (RuntimeException | Error e) {
                frameFailed(e, topic != NO_TOPIC);
                throw e;
            }
            if (zeroCopy) {
                out = null; // libzmq owns it now and hands it back to the pool
            }
            counters.frameSent(payloadBytes[i], n, zeroCopy, frameRaw[i]);
            counters.messages++;
        } catch (RuntimeException | Error e) {
            fail(e);
            counters.droppedMessages++;
        } finally {
            if (out != null) {
                out.release();
            }
            if (in != null) {
                in.release();
            }
            counters.poolRents += frameRented[i] ? 2 : 1; // its payload copy, and its frame if rented
            frameRented[i] = false;
            inFlightBytes.getAndAdd(-(payloadBytes[i] + Math.max(topicBytes[i], 0)));
            states.set(i, EMPTY);
        }
    }

    /**
     * {@link #sendPart} of a message's topic, its first part: false, the message not sent, also
     * when a ROUTER under ZMQ_ROUTER_MANDATORY or a STREAM refuses the topic, its routing id, as
     * unroutable ({@link #unroutable}).
     */
    private boolean sendTopic(MemorySegment data, long offset, long length) {
        try {
            return sendPart(data, offset, length, ZmqSocket.SNDMORE, null, false);
        } catch (ZmqException e) {
            if (!unroutable(e)) {
                throw e;
            }
            return false;
        }
    }

    /**
     * A message's frame failed with {@code e}, which the caller records as the sender's failure.
     * When its topic went out before it and {@code e} is not libzmq's ({@link ZmqException}:
     * libzmq has then dropped the message itself) but another thread in a call on the socket
     * meanwhile, or the pool closed under the sender, libzmq still holds the topic with SNDMORE:
     * the message is ended with a 0-byte part, which a zmq-zstd receiver refuses as {@code EMPTY},
     * as {@link CompressingSender} ends a message it abandons, so that the next message sent on
     * the socket starts on its own. Before 2026-11-27 it was left open, and the next message sent
     * on the socket went out as the stray topic's second part. If the 0-byte part fails too (the
     * other thread still in its call; a socket closed meanwhile, which discards the unfinished
     * message as it closes), that failure is attached to {@code e} as suppressed.
     */
    private void frameFailed(Throwable e, boolean afterTopic) {
        if (afterTopic && !(e instanceof ZmqException)) {
            CompressingSender.endWithEmptyPart(socket, e);
        }
    }

    /**
     * Whether the socket refused a message's first part because it routes by it, a ROUTER under
     * ZMQ_ROUTER_MANDATORY or a STREAM (which always refuses), and no peer of it has that routing
     * id (it never connected, or it is gone): nothing of the message went out, and the socket goes
     * on. That message's outcome alone, dropped and counted, not a failure of the sender: a
     * server's peers come and go, and before 2026-11-27 one reply to a peer gone failed the sender
     * on a ROUTER, dropping every reply behind it to the peers still there, and before 2026-11-28
     * so on a STREAM, one frame to a plain TCP client gone. Only a topic can be refused
     * so: a single-part message on either, whose frame libzmq takes for the routing id, libzmq
     * 4.3.4 checks against no peer and drops silently, and it counts as sent.
     */
    private boolean unroutable(ZmqException e) {
        return e.errno() == LibZmq.EHOSTUNREACH
                && (socket.type() == SocketType.ROUTER || socket.type() == SocketType.STREAM);
    }

    /**
     * A blocking send of one part (zero-copy when {@code pooled} is given). A socket with a send
     * timeout may refuse: retried, unless the sender fails on timeouts or close() has begun (then
     * false: the message is dropped, and after close() every one behind it too). A frame refused
     * {@code afterTopic} is not retried either (false): libzmq refuses a part inside a message only
     * when the peer went away in the middle of it (PUSH, DEALER, REQ), having dropped the message,
     * topic included; sent again, the frame would go out alone, as a message of its own (see
     * ZmqSocket's class comment). With a send timeout other than 0 libzmq drops such a message
     * silently and the send succeeds, so only a timeout of 0 can show it (and not when the socket
     * had already taken the end of that pipe from libzmq's command queue: dropped silently too).
     */
    private boolean sendPart(MemorySegment data, long offset, long length, int flags, PooledBuffer pooled,
                             boolean afterTopic) {
        long pauseNanos = MIN_RETRY_PAUSE_NANOS;
        while (true) {
            boolean sent = pooled != null ? socket.sendPooled(pooled, length, flags) : socket.send(data, offset, length, flags);
            if (sent) {
                return true;
            }
            if (afterTopic) {
                return false;
            }
            counters.wouldBlock++;
            if (failOnSendTimeout) {
                fail(new TimeoutException("send timed out: the socket took no message within its send timeout of "
                        + socket.sendTimeoutMs() + " ms (sent=" + counters.messages + ")"));
                return false;
            }
            if (closing) {
                abandoned = true;
                return false;
            }
            if (socket.sendTimeoutMs() == 0) {
                // A send timeout of 0 refuses at once: without a pause the retries would keep a core
                // busy for as long as the peer is slow or away (before 2026-11-26 they did)
                LockSupport.parkNanos(pauseNanos);
                // Only a worker retries (sendReady), and an interrupt does not stop a worker: cleared
                // here as in its park (Worker.run), or every later pause would return at once and
                // the retries spin until a peer came (they did before 2026-11-27)
                Thread.interrupted();
                pauseNanos = Math.min(pauseNanos * 2, MAX_RETRY_PAUSE_NANOS);
            }
        }
    }

    /** The first and the longest pause between a worker's retries on a socket whose send timeout is 0. */
    private static final long MIN_RETRY_PAUSE_NANOS = 10_000, MAX_RETRY_PAUSE_NANOS = 1_000_000;

    private void fail(Throwable e) {
        failure.compareAndSet(null, e);
    }

    /** How the producer's calls after a failure begin: the messages taken and not sent were dropped. */
    private static final String FAILED = "compressing or sending failed, messages not yet sent were dropped: ";

    private void throwIfFailed() {
        Throwable f = failure.get();
        if (f != null) {
            throw new IllegalStateException(FAILED + f, f);
        }
    }

    /**
     * True once {@link #close()} has begun: no message is taken from then on. The close may still
     * be running on the owner's thread (waiting for the messages in flight to reach libzmq, then
     * for the workers to stop); it is over when that call returns. Any thread may ask.
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
     * Waits until every message taken is in libzmq, then stops the workers and frees their
     * compressors; the socket stays open (it is the caller's). If the peer does not read, this
     * waits as a blocking send would: give the socket a send timeout to bound it (once close() has
     * begun, the first send the timeout ends drops that message and every one still waiting, each
     * counted, so close() waits about one timeout). Rethrows a worker's failure after
     * cleaning up. Idempotent.
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
            closing = true;
            releaseClaim(); // an open claim is dropped: nothing of it was taken
            bufferView.clear(); // the last direct buffer is no longer referred to
            awaitHead(tail.get(), Long.MAX_VALUE);
            stopWorkers(workers.length);
            crew.closedByOwner = true;
            crew.cleanable.clean(); // frees the inline compressor and memory; the workers have exited
            throwIfFailed();
        } finally {
            owner.exit(this);
        }
    }
}
