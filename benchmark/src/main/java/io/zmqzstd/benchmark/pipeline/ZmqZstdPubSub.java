package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Closing;
import io.zmqzstd.benchmark.CreditedSender;
import io.zmqzstd.benchmark.Endpoints;
import io.zmqzstd.benchmark.PayloadCheck;
import io.zmqzstd.benchmark.Stamp;
import io.zmqzstd.benchmark.Thresholds;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Predicate;

/**
 * This project's {@link CompressingSender} (or {@link ParallelCompressingSender}) and
 * {@link DecompressingReceiver} over PUB to SUB: each message is a topic, sent uncompressed so that the
 * subscription filters on it, and the telemetry payload compressed, as a telemetry publisher sends. The
 * payload lives in a native segment (stamped in place, compressed straight from it; the parallel sender
 * copies it into its ring first); sender, receiver, sockets, context and pool are made once and reused, the
 * pool with leak detection disabled, as for {@link ZmqZstdContestant}.
 *
 * <p>{@code compression}: with no workers a {@link CompressingSender} publishes on the sender thread; with
 * workers a {@link ParallelCompressingSender} with the workers, in-flight ring and inline settings of that
 * {@link PipelineContestants.Parallel}, as {@link ZmqZstdContestant} builds it, whose workers send topic
 * and frame. Either sender is given the level only: the library's zero-copy threshold and raw-frame limit
 * (128 B, below {@code PublishBenchmark}'s default sizes). The receiving side is the same either way.
 *
 * <p>{@code topicForm} is how the topic is given: {@code bytes} as a {@code byte[]} to
 * {@link CompressingSender#publish(byte[], MemorySegment, int)}; {@code segment} as a native segment to
 * {@link CompressingSender#publish(MemorySegment, MemorySegment, int)} (or the
 * {@link ParallelCompressingSender}'s overloads of the same parameters). Either way one atomic publish per
 * message (before 2026-11-27 the {@code segment} form sent the topic with
 * {@link CompressingSender#sendEnvelope(MemorySegment, int)} ({@code SNDMORE}) and then the payload with
 * {@link CompressingSender#send(MemorySegment, int)}, two calls, publish taking its topic only as an
 * array). The receiver (SUB: part 0 is the topic) checks the topic's length and the payload's
 * length and sequence number of every message on arrival.
 *
 * <p>A PUB drops what it sends before the subscription has reached it, and drops at its high-water mark
 * instead of blocking. The constructor therefore sends numbered probes until one arrives and receives the
 * rest of them, so that message 0 is sent to a subscriber that has it (a bound SUB hands its subscription
 * to a new connection only when its own thread next calls into libzmq, here the probes' receives); and
 * both sockets have no
 * high-water mark: the credit ({@link CreditedSender}) bounds what is in flight, so no message is dropped
 * and every one is checked.
 */
public final class ZmqZstdPubSub implements PipelineContestant {

    /** {@code topicForm}: the topic as a {@code byte[]}, given to {@code publish}. */
    public static final String TOPIC_BYTES = "bytes";
    /** {@code topicForm}: the topic in a native segment, given to {@code publish}. */
    public static final String TOPIC_SEGMENT = "segment";
    /** The values of {@code topicForm}. */
    public static final List<String> TOPIC_FORMS = List.of(TOPIC_BYTES, TOPIC_SEGMENT);

    /** Every message's topic, and the subscriber's one subscription. */
    public static final String TOPIC_NAME = "telemetry.app-07";
    private static final byte[] TOPIC = TOPIC_NAME.getBytes(StandardCharsets.US_ASCII);

    /** How long the constructor waits for each probe before it sends another. */
    private static final int PROBE_WAIT_MS = 10;
    /** Probes before the constructor gives up: about 10 s of waits for the subscription. */
    private static final int MAX_PROBES = 1000;
    private static final int RECEIVE_TIMEOUT_MS = 1000;

    private final int size;
    private final PayloadCheck check;
    private final NativeBufferPool pool;
    private final ZmqContext context;
    private final ZmqSocket sub;
    private final Arena arena = Arena.ofShared();
    /** Exactly one of the two senders, by {@code compression.workers()}. */
    private final CompressingSender compressing;
    private final ParallelCompressingSender parallel;
    private final DecompressingReceiver receiver;
    private final CreditedSender sender;
    private long nextSequence;

    /**
     * {@code transport} is {@code tcp} or {@code inproc}; {@code topicForm} one of {@link #TOPIC_FORMS};
     * {@code compression} {@link PipelineContestants.Parallel#NONE} for a {@link CompressingSender}, or
     * workers for a {@link ParallelCompressingSender}. The SUB binds and the PUB connects to it, as the
     * pipeline's PULL and PUSH do. The caller owns the contestant and closes it.
     *
     * @throws IllegalArgumentException naming the value when {@code topicForm} is not one of {@link #TOPIC_FORMS}
     *     or {@code compression} has a negative number of workers, before anything is made
     */
    public ZmqZstdPubSub(byte[] payload, String transport, int level, String topicForm,
            PipelineContestants.Parallel compression) {
        this.size = payload.length;
        this.check = new PayloadCheck(payload);
        NativeBufferPool pool = null;
        ZmqContext context = null;
        CompressingSender compressing = null;
        ParallelCompressingSender parallel = null;
        DecompressingReceiver receiver = null;
        try {
            if (!TOPIC_FORMS.contains(topicForm)) {
                throw new IllegalArgumentException("unknown topic form: topicForm=" + topicForm + ", expected one of "
                        + TOPIC_FORMS);
            }
            if (compression.workers() < 0) {
                throw new IllegalArgumentException("compressing workers are 0 (one CompressingSender on the sender"
                        + " thread) or more: workers=" + compression.workers());
            }
            pool = ZmqZstdContestant.pool(Thresholds.LIBRARY_DEFAULT);
            context = ZmqContext.builder().bufferPool(pool).ioThreads(PipelineContestants.IO_THREADS).build();
            ZmqSocket sub = context.socket(SocketType.SUB);
            ZmqSocket pub = context.socket(SocketType.PUB);
            for (ZmqSocket s : List.of(sub, pub)) {
                s.lingerMs(0);
                s.sendHwm(0);
                s.receiveHwm(0);
            }
            sub.subscribe(TOPIC);
            sub.bind(Endpoints.bindable(transport));
            pub.connect(sub.lastEndpoint());

            MemorySegment message = arena.allocate(Math.max(size, 1), 64).asSlice(0, size);
            message.copyFrom(MemorySegment.ofArray(payload));
            MemorySegment topic = arena.allocate(TOPIC.length).copyFrom(MemorySegment.ofArray(TOPIC));
            receiver = DecompressingReceiver.builder(sub).build();
            boolean topicBytes = topicForm.equals(TOPIC_BYTES);
            Predicate<MemorySegment> send;
            if (compression.workers() > 0) {
                ParallelCompressingSender p = parallel = compression.builder(pub).level(level).build();
                send = topicBytes ? m -> p.publish(TOPIC, m, 0) : m -> p.publish(topic, m, 0);
            } else {
                CompressingSender c = compressing = CompressingSender.builder(pub).level(level).build();
                send = topicBytes ? m -> c.publish(TOPIC, m, 0) : m -> c.publish(topic, m, 0);
            }
            this.pool = pool;
            this.context = context;
            this.sub = sub;
            this.compressing = compressing;
            this.parallel = parallel;
            this.receiver = receiver;
            awaitSubscription(message, send);
            // The sender thread owns the sender and the payload segment from here until close() joins it.
            sender = new CreditedSender("zmqzstd-publisher", sequence -> {
                Stamp.write(message, sequence);
                if (!send.test(message)) {
                    throw new IllegalStateException("blocking send returned would-block");
                }
            });
        } catch (RuntimeException | Error e) {
            Closing.afterFailure(e, parallel, compressing, receiver, context, pool, arena);
            throw e;
        }
    }

    /**
     * Sends probes stamped 0, 1, 2, ... (on this thread, before the sender thread exists) until one
     * arrives; those before it were dropped, those after it are on their way and are received here too.
     */
    private void awaitSubscription(MemorySegment message, Predicate<MemorySegment> send) {
        sub.receiveTimeoutMs(PROBE_WAIT_MS);
        long sent = 0;
        long first = -1;
        while (first < 0) {
            if (sent == MAX_PROBES) {
                throw new IllegalStateException("the subscription did not reach the publisher: probes=" + sent
                        + ", endpoint=" + sub.lastEndpoint());
            }
            Stamp.write(message, sent++);
            send.test(message);
            if (receiveOrTimeOut()) {
                ReceivedMessage m = checkedMessage();
                first = Stamp.readAt(m.region().address() + m.partOffset(1));
            }
        }
        for (long probe = first + 1; probe < sent; probe++) {
            while (!receiveOrTimeOut()) {
                // the probe was sent after the subscription arrived: it comes
            }
            checkPayload(probe);
        }
        sub.receiveTimeoutMs(RECEIVE_TIMEOUT_MS);
    }

    @Override
    public void grant(int count) {
        sender.grant(count);
    }

    /**
     * Returns once {@code count} more messages have been received and checked (topic length, payload length
     * and sequence, in sequence order); throws when a message is wrong or the sender failed.
     */
    @Override
    public void receive(int count) {
        for (int i = 0; i < count; i++) {
            receiveOne();
        }
    }

    /** One receive and its check, in a method of its own, as {@link ZmqZstdContestant}'s. */
    private void receiveOne() {
        while (!receiveOrTimeOut()) {
            sender.checkHealthy();
            ZmqZstdContestant.checkWorkers(parallel);
        }
        checkPayload(nextSequence++);
    }

    /** True when a message arrived, false when the receive timed out; throws on a bad frame. */
    private boolean receiveOrTimeOut() {
        int status = receiver.receive(0);
        if (status == DecompressingReceiver.WOULD_BLOCK) {
            return false;
        }
        if (status != DecompressingReceiver.RECEIVED) {
            throw new IllegalStateException("bad frame: " + receiver.lastErrorMessage());
        }
        return true;
    }

    /** The message just received, once it is checked to be a topic and a payload of the sent lengths. */
    private ReceivedMessage checkedMessage() {
        ReceivedMessage m = receiver.message();
        if (m.parts() != 2 || m.partSize(0) != TOPIC.length) {
            throw new IllegalStateException("unexpected message: parts=" + m.parts() + ", topicBytes=" + m.partSize(0)
                    + ", expectedTopicBytes=" + TOPIC.length);
        }
        return m;
    }

    private void checkPayload(long sequence) {
        ReceivedMessage m = checkedMessage();
        check.checkAt(m.region().address() + m.partOffset(1), m.partSize(1), sequence);
    }

    /**
     * The endpoint the receiver's SUB is bound to. Over tcp a publisher of another context can connect to it
     * and deliver a message the sender never sent: how the tests show that {@link #receive} refuses it.
     */
    @Override
    public String receiverEndpoint() {
        return sub.lastEndpoint();
    }

    @Override
    public void checkEveryByte(boolean on) {
        check.everyByte(on);
    }

    @Override
    public int senderThreadId() {
        return sender.nativeThreadId();
    }

    /** Compressed payload bytes sent so far (the sender's count: zstd frames on the wire); allocates a snapshot. */
    @Override
    public long compressedBytes() {
        return senderStats().compressedBytes();
    }

    /** The compressing workers of the {@link ParallelCompressingSender} that publishes, 0 for a {@link CompressingSender}. */
    public int workers() {
        return parallel != null ? parallel.workers() : 0;
    }

    /** The sender's counters (zero-copy versus copied sends, pool hits); allocates a snapshot. */
    public PipelineStats senderStats() {
        return parallel != null ? parallel.stats() : compressing.stats();
    }

    /**
     * Stops the sender thread, then closes the sender (a parallel one sends what its ring holds and stops its
     * workers), the receiver, the context with its sockets before the pool (libzmq hands every in-flight
     * buffer back during termination) and the payload, each even when an earlier close fails.
     */
    @Override
    public void close() {
        Closing.inOrder(sender, parallel, compressing, receiver, context, pool, arena);
    }
}
