package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Closing;
import io.zmqzstd.benchmark.CreditedSender;
import io.zmqzstd.benchmark.LoopThread;
import io.zmqzstd.benchmark.PayloadCheck;
import io.zmqzstd.benchmark.Stamp;
import io.zmqzstd.benchmark.ZstdJniCodec;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * {@code jeromqZstdjniParallel}: JeroMQ + zstd-jni with one stream's compression spread over several
 * threads, as a user of those libraries would spread it with the JDK's executors, so that
 * {@code zmqzstd} with a {@code ParallelCompressingSender} meets a parallel peer, not a one-thread one.
 * The producer (the benchmark's sender thread) copies each stamped payload and submits its compression
 * to a fixed pool of {@code workers} threads, each with its own zstd-jni context; at most
 * {@value #IN_FLIGHT} messages wait to be sent (the parallel sender's default ring), so with the one
 * the producer has submitted but not yet queued and the one being sent, 66 are in flight. One sending thread
 * takes the results in order and sends them on the JeroMQ PUSH socket, which only it touches. The
 * receiver is {@code jeromqZstdjni}'s: a new array per frame and per payload.
 */
public final class JeromqZstdJniParallelContestant implements PipelineContestant {

    /**
     * Compressions queued for the sending thread, at most: the size of the parallel sender's default ring
     * (the producer submits before it takes a place, so one more may be compressing, and one is being sent).
     */
    static final int IN_FLIGHT = 64;

    private final byte[] message;
    private final PayloadCheck check;
    private final ZstdJniCodec receiverCodec;
    private final int level;
    private final byte[] dictionary;
    private final List<ZstdJniCodec> workerCodecs = new CopyOnWriteArrayList<>();
    private final ThreadLocal<ZstdJniCodec> workerCodec;
    private final ExecutorService compressors;
    private final ArrayBlockingQueue<Future<byte[]>> inFlight = new ArrayBlockingQueue<>(IN_FLIGHT);
    private final ZContext context = new ZContext(PipelineContestants.IO_THREADS);
    private final ZMQ.Socket push;
    private final ZMQ.Socket pull;
    private final LoopThread sending;
    private final CreditedSender producer;
    /** {@code hop=proxy}: the proxy between {@link #push} and {@link #pull}; null for {@code none}. */
    private final ProxyHop hop;
    private volatile boolean closing;
    private long nextSequence;
    /** The sending thread's running total, read for the log's ratio line once the messages arrived. */
    private long compressedBytes;

    /**
     * {@code transport} tcp or inproc; {@code dictionary} raw bytes or null; {@code workers} at least 1;
     * {@code proxied} puts JeroMQ's {@code ZMQ.proxy} between the sending thread and the receiver
     * ({@link ProxyHop}).
     */
    public JeromqZstdJniParallelContestant(byte[] payload, String transport, int level, byte[] dictionary, int workers,
            boolean proxied) {
        if (workers < 1) {
            throw new IllegalArgumentException("jeromqZstdjniParallel needs compressionThreads above 0: " + workers);
        }
        try {
            this.message = payload.clone();
            this.check = new PayloadCheck(payload);
            this.level = level;
            this.dictionary = dictionary;
            this.receiverCodec = new ZstdJniCodec(level, dictionary);
            this.workerCodec = ThreadLocal.withInitial(this::newWorkerCodec);
            this.compressors = Executors.newFixedThreadPool(workers,
                    Thread.ofPlatform().name("jeromq-compress-", 0).daemon(true).factory());
            PushPull<ZMQ.Socket> ends = PushPull.jeromq(context, transport, proxied);
            push = ends.push();
            pull = ends.pull();
            hop = ends.hop();
            sending = new LoopThread("sending thread", "jeromq-parallel-send", this::sendNext);
            producer = new CreditedSender("jeromq-parallel-producer", this::submit);
        } catch (RuntimeException | Error e) {
            // a failure partway (a bad endpoint, a refused setting): what was opened is closed; close()
            // takes the fields not yet assigned (null here)
            Closing.afterFailure(e, this);
            throw e;
        }
    }

    private ZstdJniCodec newWorkerCodec() {
        ZstdJniCodec codec = new ZstdJniCodec(level, dictionary);
        workerCodecs.add(codec);
        return codec;
    }

    /** The producer: message {@code sequence} copied, stamped and handed to the pool, in order. */
    private void submit(long sequence) throws InterruptedException {
        byte[] copy = message.clone();
        Stamp.write(copy, sequence);
        Future<byte[]> frame = compressors.submit(() -> workerCodec.get().compress(copy));
        while (!inFlight.offer(frame, 100, TimeUnit.MILLISECONDS)) {
            if (closing) {
                return;
            }
        }
    }

    /** The sending thread: the oldest message, once compressed, onto the socket. */
    private void sendNext() throws Exception {
        Future<byte[]> next = inFlight.poll(100, TimeUnit.MILLISECONDS);
        if (next == null) {
            return;
        }
        byte[] frame = next.get();
        compressedBytes += frame.length;
        if (!push.send(frame, 0)) {
            throw new IllegalStateException("JeroMQ send failed: errno=" + push.errno());
        }
    }

    @Override
    public void grant(int count) {
        producer.grant(count);
    }

    @Override
    public void receive(int count) {
        for (int i = 0; i < count; i++) {
            receiveOne();
        }
    }

    private void receiveOne() {
        byte[] frame;
        while ((frame = pull.recv(0)) == null) {
            producer.checkHealthy();
            sending.checkHealthy();
            if (hop != null) {
                hop.checkHealthy();
            }
        }
        byte[] decompressed = receiverCodec.decompress(frame);
        check.check(decompressed, decompressed.length, nextSequence++);
    }

    @Override
    public void checkEveryByte(boolean on) {
        check.everyByte(on);
    }

    @Override
    public int senderThreadId() {
        return producer.nativeThreadId();
    }

    @Override
    public String receiverEndpoint() {
        return pull.getLastEndpoint();
    }

    @Override
    public long compressedBytes() {
        return compressedBytes;
    }

    @Override
    public void close() {
        closing = true;
        try {
            if (producer != null) { // each null only when the constructor failed before making it
                producer.close();
            }
            if (sending != null) {
                sending.close();
            }
        } finally {
            if (compressors != null) {
                compressors.shutdownNow();
                try {
                    compressors.awaitTermination(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            closeTransport();
        }
    }

    /** The proxy (stopped and joined while the context is open), then the sockets, context and codecs. */
    private void closeTransport() {
        ProxyHop.closeThen(hop, () -> {
            if (push != null) {
                push.close();
            }
            if (pull != null) {
                pull.close();
            }
            context.close();
            if (receiverCodec != null) {
                receiverCodec.close();
            }
            workerCodecs.forEach(ZstdJniCodec::close);
        });
    }
}
