package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Closing;
import io.zmqzstd.benchmark.CreditedSender;
import io.zmqzstd.benchmark.PayloadCheck;
import io.zmqzstd.benchmark.Stamp;
import io.zmqzstd.benchmark.Thresholds;
import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqProxy;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Predicate;

/**
 * {@code zmqzstd}: this project's {@link CompressingSender} and {@link DecompressingReceiver} over PUSH to
 * PULL. The payload lives in a native segment (stamped in place, compressed straight from it); the
 * sender, receiver, dictionary, context and pool are made once per trial and reused. The pool runs with
 * leak detection disabled, as in production: sampled detection records a stack trace per sampled rent.
 *
 * <p>Knobs for the switch-over measurements: {@code zeroCopyThresholdBytes} is given to both the sender
 * and the context's pool, so a frame goes zero-copy when the payload and its compressed frame both reach
 * it (0 = every frame zero-copy; a huge value = every frame copied by {@code zmq_send};
 * {@link Thresholds#LIBRARY_DEFAULT} = the library's defaults, by transport).
 * {@code rawFrameBelowBytes} sends shorter payloads as raw-block frames; it is ignored with a dictionary
 * (the sender refuses the combination: small parts are where a dictionary gains).
 *
 * <p>{@code -Dzmqzstd.bench.payloadForm=bytes} (or {@code direct}) hands the sender the payload as a
 * {@code byte[]} (or a direct {@code ByteBuffer}) instead of a native segment, stamped in place each
 * message, to measure those overloads ({@link #PAYLOAD_FORM}); the default is {@code segment}.
 * {@code -Dzmqzstd.bench.receiveForm=into} makes the receiver decompress each payload into a native
 * segment of the contestant's own ({@link DecompressingReceiver#receiveInto}) instead of its region
 * ({@link #RECEIVE_FORM}); the default is {@code region}.
 */
public final class ZmqZstdContestant implements PipelineContestant {

    /** The system property that sets {@link #PAYLOAD_FORM}. */
    public static final String PAYLOAD_FORM_PROPERTY = "zmqzstd.bench.payloadForm";

    /** The values {@link #PAYLOAD_FORM_PROPERTY} takes, the default first. */
    public static final List<String> PAYLOAD_FORMS = List.of("segment", "bytes", "direct");

    /** How the sender thread gives the payload to the sender: one of {@link #PAYLOAD_FORMS}. */
    public static final String PAYLOAD_FORM = System.getProperty(PAYLOAD_FORM_PROPERTY, PAYLOAD_FORMS.get(0));

    /** The system property that sets {@link #RECEIVE_FORM}. */
    public static final String RECEIVE_FORM_PROPERTY = "zmqzstd.bench.receiveForm";

    /** The values {@link #RECEIVE_FORM_PROPERTY} takes, the default first. */
    public static final List<String> RECEIVE_FORMS = List.of("region", "into");

    /** Where the receiver decompresses: one of {@link #RECEIVE_FORMS}. */
    public static final String RECEIVE_FORM = System.getProperty(RECEIVE_FORM_PROPERTY, RECEIVE_FORMS.get(0));

    /**
     * Buffers a size class may keep. Above the default 256: a granted batch can be queued at once at the
     * sender's high-water mark, and every queued zero-copy frame holds a pooled buffer.
     */
    private static final int POOLED_BUFFERS_PER_CLASS = 2048;

    private final int size;
    private final PayloadCheck check;
    private final NativeBufferPool pool;
    private final ZmqContext context;
    private final ZmqSocket push;
    private final ZmqSocket pull;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment message;
    private final ZstdDictionary dictionary;
    /** Exactly one of the two senders, by {@code compression.workers()}. */
    private final CompressingSender compressing;
    private final ParallelCompressingSender parallel;
    private final DecompressingReceiver receiver;
    /** {@code receiveForm=into}: the contestant's own memory the receiver decompresses into; else null. */
    private final MemorySegment into;
    private final CreditedSender sender;
    /**
     * The array or direct buffer {@link #PAYLOAD_FORM} gives the sender, viewed as a segment for the
     * stamp; null for {@code segment}.
     */
    private MemorySegment formed;
    /** {@code hop=proxy}: the proxy between {@link #push} and {@link #pull}; null for {@code none}. */
    private final ProxyHop hop;
    private long nextSequence;

    /**
     * {@code transport} is {@code tcp} or {@code inproc}; {@code dictionary} raw bytes or null;
     * {@code compression} with no workers for a {@link CompressingSender} on the sender thread, else a
     * {@link ParallelCompressingSender} with its settings (the sender thread then stamps and hands over
     * each message, or sends a small one itself); {@code hop} ({@link PipelineContestants#HOP_NONE} and the
     * others) may put a {@link ZmqProxy}, or libzmq's own proxy, between the sender and the receiver
     * ({@link ProxyHop}). The caller owns the contestant and closes it.
     */
    public ZmqZstdContestant(byte[] payload, String transport, int level, byte[] dictionary,
            long zeroCopyThresholdBytes, long rawFrameBelowBytes, PipelineContestants.Parallel compression,
            Boolean rawIncompressible, String hop) {
        this.size = payload.length;
        this.check = new PayloadCheck(payload);
        try {
            this.pool = pool(zeroCopyThresholdBytes);
            this.context = ZmqContext.builder().bufferPool(pool).ioThreads(PipelineContestants.IO_THREADS).build();
            PushPull<ZmqSocket> ends = PushPull.libzmq(context, transport, hop);
            push = ends.push();
            pull = ends.pull();
            this.hop = ends.hop();

            message = arena.allocate(Math.max(size, 1), 64);
            into = switch (RECEIVE_FORM) {
                case "region" -> null;
                case "into" -> arena.allocate(Math.max(size, 1), 64);
                default -> throw new IllegalArgumentException(
                        "-D" + RECEIVE_FORM_PROPERTY + " is one of " + RECEIVE_FORMS + ": " + RECEIVE_FORM);
            };
            message.copyFrom(MemorySegment.ofArray(payload));
            this.dictionary = dictionary == null ? null : ZstdDictionary.of(dictionary);
            DecompressingReceiver.Builder r = DecompressingReceiver.builder(pull);
            if (this.dictionary != null) {
                r.dictionary(this.dictionary);
            }
            receiver = r.build();
            MemorySegment out = message.asSlice(0, size);
            long raw = this.dictionary != null ? 0 : rawFrameBelowBytes; // the senders refuse raw frames with a dictionary
            // the library's default for a sender is the pool's (general) threshold, on every socket
            long senderThreshold = zeroCopyThresholdBytes == Thresholds.LIBRARY_DEFAULT ? pool.zeroCopyThresholdBytes()
                    : zeroCopyThresholdBytes;
            Predicate<MemorySegment> send;
            if (compression.workers() > 0) {
                compressing = null;
                ParallelCompressingSender.Builder b = compression.builder(push).level(level).zeroCopyThresholdBytes(senderThreshold)
                        .dictionary(this.dictionary).rawFrameBelowBytes(raw);
                if (rawIncompressible != null) {
                    b.rawIncompressible(rawIncompressible);
                }
                parallel = b.build();
                ParallelCompressingSender p = parallel;
                // m is the stamped payload: WRITE and CLAIM write all of it, stamp included, per message
                send = switch (compression.producer()) {
                    case STAMP -> inForm(m -> p.send(m, 0), a -> p.send(a, 0), d -> p.send(d, 0));
                    case WRITE -> {
                        // a serialiser writing into its own memory: the payload is written, then copied by send
                        MemorySegment own = arena.allocate(Math.max(size, 1), 64).asSlice(0, size);
                        yield m -> {
                            MemorySegment.copy(m, 0, own, 0, size);
                            return p.send(own, 0);
                        };
                    }
                    case CLAIM -> m -> {
                        // a serialiser writing into claimed memory: written once, not copied again
                        MemorySegment room = p.claim(size, 0);
                        MemorySegment.copy(m, 0, room, 0, size);
                        p.commit(size);
                        return true;
                    };
                };
            } else {
                parallel = null;
                CompressingSender.Builder b = CompressingSender.builder(push).level(level).zeroCopyThresholdBytes(senderThreshold)
                        .dictionary(this.dictionary).rawFrameBelowBytes(raw);
                if (rawIncompressible != null) {
                    b.rawIncompressible(rawIncompressible);
                }
                compressing = b.build();
                CompressingSender c = compressing;
                send = inForm(m -> c.send(m, 0), a -> c.send(a, 0), d -> c.send(d, 0));
            }
            // The sender thread owns the sender and the payload segment from here until close() joins it.
            MemorySegment stamped = formed == null ? out : formed;
            sender = new CreditedSender("zmqzstd-sender", sequence -> {
                Stamp.write(stamped, sequence);
                if (!send.test(out)) {
                    throw new IllegalStateException("blocking send returned would-block");
                }
            });
        } catch (RuntimeException | Error e) {
            closeAfterFailure(e);
            throw e;
        }
    }

    /**
     * A pool as the zmqzstd contestants use it: leak detection disabled, {@link #POOLED_BUFFERS_PER_CLASS}
     * buffers a class, {@code zeroCopyThresholdBytes} applied as {@link Thresholds#apply} does. The caller owns it.
     */
    static NativeBufferPool pool(long zeroCopyThresholdBytes) {
        return Thresholds.apply(NativeBufferPool.builder()
                .leakDetection(NativeBufferPool.LeakDetection.DISABLED)
                .maxBuffersPerClass(POOLED_BUFFERS_PER_CLASS), zeroCopyThresholdBytes)
                .build();
    }

    /**
     * The send of {@link #PAYLOAD_FORM}: {@code segment} as given; {@code bytes} and {@code direct} copy the
     * payload once into an array or a direct buffer ({@link #formed} views it for the stamp) and send that.
     */
    private Predicate<MemorySegment> inForm(Predicate<MemorySegment> segment, Predicate<byte[]> bytes,
            Predicate<ByteBuffer> direct) {
        switch (PAYLOAD_FORM) {
            case "segment" -> {
                return segment;
            }
            case "bytes" -> {
                byte[] a = message.asSlice(0, size).toArray(ValueLayout.JAVA_BYTE);
                formed = MemorySegment.ofArray(a);
                return m -> bytes.test(a);
            }
            case "direct" -> {
                ByteBuffer b = ByteBuffer.allocateDirect(size);
                formed = MemorySegment.ofBuffer(b);
                formed.copyFrom(message.asSlice(0, size));
                return m -> direct.test(b);
            }
            default -> throw new IllegalArgumentException(
                    "-D" + PAYLOAD_FORM_PROPERTY + " is one of " + PAYLOAD_FORMS + ": " + PAYLOAD_FORM);
        }
    }

    /**
     * A failure partway through the constructor (a bad endpoint, a refused setting) closes what was opened
     * before it, in close()'s order; the fields not yet assigned are null here.
     */
    private void closeAfterFailure(Throwable failure) {
        Closing.afterFailure(failure, inCloseOrder());
    }

    /**
     * What the contestant owns, in the order it is closed: the sender thread, then the sender, the proxy once
     * nothing sends any more (stopped and joined while the context is open), the receiver, the context before
     * the pool (libzmq hands every in-flight buffer back during termination), the dictionary and the payload.
     */
    private AutoCloseable[] inCloseOrder() {
        return new AutoCloseable[] {sender, parallel, compressing, hop, receiver, context, pool, dictionary, arena};
    }

    @Override
    public void grant(int count) {
        sender.grant(count);
    }

    @Override
    public void receive(int count) {
        for (int i = 0; i < count; i++) {
            receiveOne();
        }
    }

    /**
     * One receive and its check, in a method of its own: compiled whole rather than as the body of an
     * on-stack-replaced loop, where the JIT left about 40 B/message of allocation.
     */
    private void receiveOne() {
        int status;
        while ((status = into == null ? receiver.receive(0) : receiver.receiveInto(into, 0))
                == DecompressingReceiver.WOULD_BLOCK) {
            sender.checkHealthy();
            checkWorkers(parallel);
            if (hop != null) {
                hop.checkHealthy();
            }
        }
        if (status != DecompressingReceiver.RECEIVED) {
            throw new IllegalStateException("bad frame: " + receiver.lastErrorMessage());
        }
        ReceivedMessage m = receiver.message();
        if (m.parts() != 1) {
            throw new IllegalStateException("unexpected message: parts=" + m.parts());
        }
        check.checkAt(m.segment(0).address() + m.partOffset(0), m.partSize(0), nextSequence++);
    }

    /**
     * After a receive timed out: a parallel sender's worker that failed drops the message and reports
     * it only to the producer's next call, which never comes when the message was one of the last
     * granted; without this check the receiver would wait for it forever. Allocates a snapshot, on
     * the timeout path only; does nothing for a null {@code parallel} (a {@code CompressingSender}).
     * Also {@link ZmqZstdPubSub}'s.
     */
    static void checkWorkers(ParallelCompressingSender parallel) {
        if (parallel != null) {
            long dropped = parallel.stats().droppedMessages();
            if (dropped > 0) {
                throw new IllegalStateException("the parallel sender dropped messages after a failure: dropped=" + dropped);
            }
        }
    }

    @Override
    public void checkEveryByte(boolean on) {
        check.everyByte(on);
    }

    @Override
    public int senderThreadId() {
        return sender.nativeThreadId();
    }

    @Override
    public String receiverEndpoint() {
        return pull.lastEndpoint();
    }

    @Override
    public long compressedBytes() {
        return senderStats().compressedBytes();
    }

    /** The sender's counters (zero-copy versus copied sends, raw frames, pool hits); allocates a snapshot. */
    public PipelineStats senderStats() {
        return parallel != null ? parallel.stats() : compressing.stats();
    }

    /**
     * The pool's counters (allocates a snapshot): after {@link #close()}, {@code outstanding} 0 means every
     * buffer came back, those a proxy forwarded included.
     */
    public NativeBufferPool.Stats poolStats() {
        return pool.stats();
    }

    /** Closes everything in {@link #inCloseOrder()}'s order, each even when an earlier close fails. */
    @Override
    public void close() {
        Closing.inOrder(inCloseOrder());
    }
}
