package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Closing;
import io.zmqzstd.benchmark.LoopThread;
import io.zmqzstd.benchmark.PayloadCheck;
import io.zmqzstd.benchmark.Payloads;
import io.zmqzstd.benchmark.Stamp;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code ReplyBenchmark}'s topology, the same for every way: {@value #CLIENTS} DEALER clients on the measuring
 * thread, connected over tcp to a ROUTER frontend; a proxy on a thread of its own between that ROUTER and a
 * DEALER backend; {@code workers} threads, each with a DEALER socket of its own connected to the backend, that
 * receive a compressed request, decompress and check it, and answer it behind the request's routing id with a
 * compressed reply. Subclasses supply sockets, codec and the worker's step.
 *
 * <p>Requests and replies are the pipeline's telemetry payload of {@code size} bytes (the reply from another
 * seed), each carrying the request's sequence number in its stamp. Request {@code s} goes out on client
 * {@code s % CLIENTS}. A worker checks each request's length (every byte while {@link #checkEveryByte} is on)
 * and stamps its reply with the request's sequence; the measuring thread checks each reply's length (and
 * bytes), and that its sequence is one of that client's requests of the batch not answered yet: with two
 * workers replies overtake each other, so order is not checked, but every request is answered exactly once, on
 * the client that asked.
 *
 * <p>Owned by the measuring thread; each worker's socket, codec and payload by its worker from the start of its
 * thread until {@link #close()} has joined it.
 */
public abstract class ReplyRig implements AutoCloseable {

    /** The way of this project's sockets, {@code ZmqProxy}, {@code CompressingSender} and {@code DecompressingReceiver}. */
    public static final String ZMQZSTD = PipelineContestants.ZMQZSTD;
    /** The way of JeroMQ's sockets and {@code ZMQ.proxy} with zstd-jni on {@code byte[]}. */
    public static final String JEROMQ_ZSTDJNI = PipelineContestants.JEROMQ_ZSTDJNI;
    /** Every way {@link #create} takes. */
    public static final List<String> WAYS = List.of(ZMQZSTD, JEROMQ_ZSTDJNI);

    /** DEALER clients on the measuring thread. */
    public static final int CLIENTS = 2;
    /**
     * Most requests in flight ({@link #run}): well inside every high-water mark on the way (1000, libzmq's and
     * JeroMQ's default, on each client, the proxy's two sockets and each worker), so no send waits on a full
     * pipe and the ROUTER never drops a reply.
     */
    public static final int MAX_BATCH = 500;
    /** Seed of the reply payload; requests have {@link PipelineContestants#PAYLOAD_SEED}. */
    static final long REPLY_SEED = PipelineContestants.PAYLOAD_SEED + 1;
    /** How long a worker's receive waits before it looks whether it should stop. */
    static final int WORKER_POLL_MS = 100;
    /** How long a client's receive waits before it looks whether a worker or the proxy failed. */
    static final int CLIENT_WAIT_MS = 1000;
    /** How long the measuring thread waits for one reply before it fails the run. */
    static final int REPLY_TIMEOUT_MS = 10_000;
    /** What {@link #receiveReply} returns when its receive timed out. */
    protected static final long NO_REPLY = Long.MIN_VALUE;

    private final String way;
    protected final int size;
    protected final int level;
    /** The clients' check of the replies; measuring thread only. */
    protected final PayloadCheck replyCheck;
    /** Each worker's check of its requests; that worker's thread only. */
    private final PayloadCheck[] requestChecks;
    private final int[] perClient = new int[CLIENTS];
    private final boolean[] seen = new boolean[MAX_BATCH];
    private final AtomicLongArray answered;
    private final LoopThread[] workers;
    private ProxyHop hop;
    private volatile boolean everyByte;
    private long sent;

    protected ReplyRig(String way, int size, int level, int workers) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be 1 or more: workers=" + workers);
        }
        this.way = way;
        this.size = size;
        this.level = level;
        this.replyCheck = new PayloadCheck(replyPayload(size));
        this.requestChecks = new PayloadCheck[workers];
        byte[] requestSource = requestPayload(size);
        for (int w = 0; w < workers; w++) {
            requestChecks[w] = new PayloadCheck(requestSource);
        }
        this.answered = new AtomicLongArray(workers);
        this.workers = new LoopThread[workers];
    }

    /**
     * A connected rig of {@code way} ({@link #WAYS}) with {@code workers} workers behind a backend on
     * {@code backend} ({@code tcp} or {@code inproc}), requests and replies of {@code size} bytes (at least
     * {@link Stamp#BYTES}) compressed at {@code level}. Its workers may not all have
     * connected yet: {@link #joinWorkers()} waits for them. The caller owns it and closes it.
     */
    public static ReplyRig create(String way, int workers, int size, String backend, int level) {
        if (size < Stamp.BYTES) {
            throw new IllegalArgumentException("size below the stamp's " + Stamp.BYTES
                    + " bytes: size=" + size);
        }
        return switch (way) {
            case ZMQZSTD -> new ZmqZstdReplies(workers, size, backend, level);
            case JEROMQ_ZSTDJNI -> new JeromqZstdJniReplies(workers, size, backend, level);
            default -> throw new IllegalArgumentException("unknown way: way=" + way + ", expected one of " + WAYS);
        };
    }

    /** The request payload: the pipeline's (a fresh copy). */
    static byte[] requestPayload(int size) {
        return PipelineContestants.payload(size);
    }

    /** The reply payload: the same kind from {@link #REPLY_SEED} (a fresh copy). */
    static byte[] replyPayload(int size) {
        return Payloads.generate(PipelineContestants.PAYLOAD_KIND, size, REPLY_SEED);
    }

    /** The running proxy, kept to be stopped at close (or when the constructor fails); call once it is made. */
    protected final void hop(ProxyHop hop) {
        this.hop = hop;
    }

    /**
     * Makes each worker's socket and codec ({@link #worker}) and each client's ({@link #client}), connected to
     * {@code backendEndpoint} and to the proxy's frontend, then starts the workers' threads; call at the end of
     * the subclass constructor, once the proxy runs ({@link #hop}). {@code name} prefixes the threads' names.
     */
    protected final void start(String name, String backendEndpoint) {
        LoopThread.Step[] steps = new LoopThread.Step[workers.length];
        for (int w = 0; w < workers.length; w++) {
            steps[w] = worker(w, backendEndpoint);
        }
        for (int c = 0; c < CLIENTS; c++) {
            client(c, hop.senderEndpoint());
        }
        for (int w = 0; w < workers.length; w++) {
            workers[w] = new LoopThread("worker " + w, name + "-worker-" + w, steps[w]);
        }
    }

    /**
     * Makes worker {@code w}'s socket, connected to {@code backendEndpoint}, and its codec and payload; returns
     * its step, which serves one request or returns when its receive timed out, and calls {@link #answered(int)} before
     * each reply it sends. The step runs on the worker's thread, which owns what it uses from then on.
     */
    protected abstract LoopThread.Step worker(int w, String backendEndpoint);

    /** Makes client {@code c}'s socket, connected to {@code frontendEndpoint}, and its codec. */
    protected abstract void client(int c, String frontendEndpoint);

    /**
     * Checks the request worker {@code w} received, {@code message[0, length)}: its length, and every byte while
     * {@link #checkEveryByte} is on; returns the sequence its stamp carries, for the reply. On that worker's thread.
     */
    protected final long checkRequest(int w, byte[] message, int length) {
        PayloadCheck check = requestChecks[w];
        check.everyByte(everyByte);
        return check.checkAnySequence(message, length);
    }

    /** {@link #checkRequest(int, byte[], int)} of the {@code length} bytes at native {@code address}. */
    protected final long checkRequestAt(int w, long address, long length) {
        PayloadCheck check = requestChecks[w];
        check.everyByte(everyByte);
        return check.checkAnySequenceAt(address, length);
    }

    /**
     * Worker {@code worker} is about to send one more reply; on that worker's thread, before the send (a send that
     * fails ends the worker with an exception). Counted after the send, the client could have the last reply before
     * the count did: a fresh-clone CI run read 1,999 replies of 2,000 in {@code ReplyBenchmarkTest} (2026-11-29).
     */
    protected final void answered(int worker) {
        answered.setRelease(worker, answered.getPlain(worker) + 1);
    }

    /** Stamps request {@code sequence}, compresses it and sends it on client {@code client}; measuring thread. */
    protected abstract void sendRequest(int client, long sequence);

    /**
     * Receives one reply on client {@code client}, decompresses it and checks it with {@link #replyCheck}: the
     * sequence its stamp carries, or {@link #NO_REPLY} when the receive timed out; measuring thread.
     */
    protected abstract long receiveReply(int client);

    /** The pool's state as {@link #summary()} ends: {@code poolOutstanding=N} as {@link #close()} found it. */
    protected abstract String poolState();

    /** Closes what the subclass owns, in order, once the workers and the proxy have stopped. */
    protected abstract AutoCloseable[] ownedInCloseOrder();

    /**
     * Sends {@code batch} requests (at most {@link #MAX_BATCH}), spread over the clients in turn, then receives
     * and checks every reply; returns the requests sent so far, each answered and checked.
     */
    public final long run(int batch) {
        if (batch < 1 || batch > MAX_BATCH) {
            throw new IllegalArgumentException("batch must be 1 to " + MAX_BATCH + ": batch=" + batch);
        }
        long first = sent;
        Arrays.fill(perClient, 0);
        for (int i = 0; i < batch; i++) {
            int client = (int) (sent % CLIENTS);
            sendRequest(client, sent);
            perClient[client]++;
            sent++;
        }
        Arrays.fill(seen, 0, batch, false);
        for (int client = 0; client < CLIENTS; client++) {
            for (int k = perClient[client]; k > 0; k--) {
                takeReply(client, first, batch);
            }
        }
        return sent;
    }

    /** One reply on {@code client}, checked as an answer to one of its requests of the batch, once. */
    private void takeReply(int client, long first, int batch) {
        long sequence;
        int waitedMs = 0;
        while ((sequence = receiveReply(client)) == NO_REPLY) {
            checkHealthy();
            waitedMs += CLIENT_WAIT_MS;
            if (waitedMs >= REPLY_TIMEOUT_MS) {
                throw new IllegalStateException("no reply within " + REPLY_TIMEOUT_MS + " ms: client=" + client
                        + ", batchFirst=" + first + ", batch=" + batch + ", answered=" + answered);
            }
        }
        long at = sequence - first;
        if (at < 0 || at >= batch || sequence % CLIENTS != client || seen[(int) at]) {
            throw new IllegalStateException("unexpected reply: client=" + client + ", sequence=" + sequence
                    + ", batchFirst=" + first + ", batch=" + batch + ", answeredBefore=" + (at >= 0 && at < batch && seen[(int) at]));
        }
        seen[(int) at] = true;
    }

    /**
     * Runs checked batches, every byte of every request and reply compared with its source, until each worker
     * has answered at least one request (the backend DEALER deals requests only to the workers connected when
     * they leave, so a worker that joined late would sit out the first batches); fails after 10 s.
     */
    public final void joinWorkers() {
        checkEveryByte(true);
        long deadline = System.nanoTime() + 10_000_000_000L;
        do {
            run(MAX_BATCH);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("a worker answered nothing within 10 s: answered=" + answered);
            }
        } while (!everyWorkerAnswered());
        checkEveryByte(false);
    }

    private boolean everyWorkerAnswered() {
        for (int w = 0; w < answered.length(); w++) {
            if (answered.get(w) == 0) {
                return false;
            }
        }
        return true;
    }

    /** Turns the check of every byte of requests and replies on or off; measuring thread, between batches. */
    public final void checkEveryByte(boolean on) {
        everyByte = on;
        replyCheck.everyByte(on);
    }

    /** Requests sent so far, every one answered and checked once {@link #run} returned. */
    public final long requests() {
        return sent;
    }

    /** Replies each worker has sent (allocates). */
    public final long[] answeredPerWorker() {
        long[] out = new long[answered.length()];
        for (int w = 0; w < out.length; w++) {
            out[w] = answered.get(w);
        }
        return out;
    }

    /**
     * One line for the log (allocates): the way, requests sent (each answered and checked), replies per worker,
     * and the pool's state, which {@link #close()} checked when it has run.
     */
    public final String summary() {
        return "# replies: way=" + way + ", workers=" + workers.length + ", size=" + size + ", requests=" + sent
                + ", answeredPerWorker=" + answered + ", " + poolState();
    }

    /** Throws what stopped a worker or the proxy, if anything did: called when a reply is late. */
    private void checkHealthy() {
        for (LoopThread worker : workers) {
            worker.checkHealthy();
        }
        if (hop != null) {
            hop.checkHealthy();
        }
    }

    /**
     * Closes the workers (joined), the proxy (stopped, joined, its sockets closed) and then what the subclass
     * owns in its order, each even when an earlier close fails; throws the first failure. Also what a subclass
     * constructor that failed calls, fields not yet made being null.
     */
    @Override
    public final void close() {
        AutoCloseable[] owned = ownedInCloseOrder();
        AutoCloseable[] all = Arrays.copyOf(workers, workers.length + 1 + owned.length, AutoCloseable[].class);
        all[workers.length] = hop;
        System.arraycopy(owned, 0, all, workers.length + 1, owned.length);
        Closing.inOrder(all);
    }

    /** Closes what a subclass constructor opened before it failed with {@code failure}; the subclass rethrows it. */
    protected final void closeAfterFailure(Throwable failure) {
        Closing.afterFailure(failure, this);
    }
}
