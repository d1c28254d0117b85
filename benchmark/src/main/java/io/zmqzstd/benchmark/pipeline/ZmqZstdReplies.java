package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Endpoints;
import io.zmqzstd.benchmark.LoopThread;
import io.zmqzstd.benchmark.Stamp;
import io.zmqzstd.benchmark.Thresholds;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * {@code way=zmqzstd}: the pipeline README's replies on several cores (DEALER/ROUTER). A ROUTER frontend and a
 * DEALER backend joined by this project's {@code ZmqProxy} ({@link LibzmqProxyHop}); each client a DEALER with a
 * {@link CompressingSender} and a {@link DecompressingReceiver}; each worker a DEALER with a
 * {@link DecompressingReceiver} built with {@code envelopeParts(1)} (the routing id the ROUTER put in front) and a
 * {@link CompressingSender} whose {@code reply} sends the reply behind that id. Payloads in native segments,
 * stamped in place; every request and reply compressed (no raw-block frames, as the peer); the library's zero-copy
 * thresholds; the pool without leak detection, as {@link ZmqZstdContestant}'s. Nothing is allocated per request.
 *
 * <p>{@link #close()} checks, once the context has ended (libzmq has handed back every buffer it held), that the
 * pool has no buffer out, and fails naming its counters otherwise.
 */
final class ZmqZstdReplies extends ReplyRig {

    private final NativeBufferPool pool;
    private final ZmqContext context;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment request;
    private final ZmqSocket[] clients = new ZmqSocket[CLIENTS];
    private final CompressingSender[] asking = new CompressingSender[CLIENTS];
    private final DecompressingReceiver[] answers = new DecompressingReceiver[CLIENTS];
    private final ZmqSocket[] workerSockets;
    private final DecompressingReceiver[] requests;
    private final CompressingSender[] replies;
    private final MemorySegment[] replyPayloads;
    /** The pool's {@code outstanding} once the context had ended, or -1 before {@link #close()}. */
    private long outstandingAtClose = -1;

    ZmqZstdReplies(int workers, int size, String backendTransport, int level) {
        super(ZMQZSTD, size, level, workers);
        workerSockets = new ZmqSocket[workers];
        requests = new DecompressingReceiver[workers];
        replies = new CompressingSender[workers];
        replyPayloads = new MemorySegment[workers];
        try {
            pool = ZmqZstdContestant.pool(Thresholds.LIBRARY_DEFAULT);
            context = ZmqContext.builder().bufferPool(pool).ioThreads(PipelineContestants.IO_THREADS).build();
            request = segmentOf(requestPayload(size));
            ZmqSocket frontend = socket(SocketType.ROUTER, 0);
            frontend.bind(Endpoints.bindable(Endpoints.TCP));
            ZmqSocket backend = socket(SocketType.DEALER, 0);
            backend.bind(Endpoints.bindable(backendTransport));
            String backendEndpoint = backend.lastEndpoint(); // before the proxy's thread owns the socket
            hop(new LibzmqProxyHop(frontend, backend));
            start("zmqzstd", backendEndpoint);
        } catch (RuntimeException | Error e) {
            closeAfterFailure(e);
            throw e;
        }
    }

    @Override
    protected LoopThread.Step worker(int w, String backendEndpoint) {
        workerSockets[w] = socket(SocketType.DEALER, WORKER_POLL_MS);
        workerSockets[w].connect(backendEndpoint);
        requests[w] = DecompressingReceiver.builder(workerSockets[w]).envelopeParts(1).build();
        replies[w] = CompressingSender.builder(workerSockets[w]).level(level).rawFrameBelowBytes(0).build();
        replyPayloads[w] = segmentOf(replyPayload(size));
        return () -> serve(w);
    }

    @Override
    protected void client(int c, String frontendEndpoint) {
        clients[c] = socket(SocketType.DEALER, CLIENT_WAIT_MS);
        clients[c].connect(frontendEndpoint);
        asking[c] = CompressingSender.builder(clients[c]).level(level).rawFrameBelowBytes(0).build();
        answers[c] = DecompressingReceiver.builder(clients[c]).build();
    }

    private ZmqSocket socket(SocketType type, int receiveTimeoutMs) {
        ZmqSocket s = context.socket(type);
        s.lingerMs(0);
        if (receiveTimeoutMs > 0) {
            s.receiveTimeoutMs(receiveTimeoutMs);
        }
        return s;
    }

    private MemorySegment segmentOf(byte[] payload) {
        MemorySegment s = arena.allocate(payload.length, 64);
        s.copyFrom(MemorySegment.ofArray(payload));
        return s;
    }

    @Override
    protected void sendRequest(int client, long sequence) {
        Stamp.write(request, sequence);
        if (!asking[client].send(request, 0)) {
            throw new IllegalStateException("blocking send returned would-block: client=" + client + ", sequence=" + sequence);
        }
    }

    @Override
    protected long receiveReply(int client) {
        DecompressingReceiver receiver = answers[client];
        int status = receiver.receive(0);
        if (status == DecompressingReceiver.WOULD_BLOCK) {
            return NO_REPLY;
        }
        if (status != DecompressingReceiver.RECEIVED) {
            throw new IllegalStateException("bad reply: client=" + client + ", " + receiver.lastErrorMessage());
        }
        ReceivedMessage m = receiver.message();
        if (m.parts() != 1) {
            throw new IllegalStateException("unexpected reply: client=" + client + ", parts=" + m.parts());
        }
        return replyCheck.checkAnySequenceAt(m.segment(0).address() + m.partOffset(0), m.partSize(0));
    }

    /** Worker {@code w}: one request received, checked and answered, or nothing when the receive timed out. */
    private void serve(int w) {
        DecompressingReceiver receiver = requests[w];
        int status = receiver.receive(0);
        if (status == DecompressingReceiver.WOULD_BLOCK) {
            return;
        }
        if (status != DecompressingReceiver.RECEIVED) {
            throw new IllegalStateException("bad request: worker=" + w + ", " + receiver.lastErrorMessage());
        }
        ReceivedMessage m = receiver.message();
        if (m.parts() != 2) { // the routing id, then the request
            throw new IllegalStateException("unexpected request: worker=" + w + ", parts=" + m.parts());
        }
        long sequence = checkRequestAt(w, m.segment(1).address() + m.partOffset(1), m.partSize(1));
        Stamp.write(replyPayloads[w], sequence);
        answered(w); // before the reply: see answered
        if (!replies[w].reply(m, replyPayloads[w], 0)) {
            throw new IllegalStateException("blocking reply returned would-block: worker=" + w + ", sequence=" + sequence);
        }
    }

    /**
     * Senders and receivers (the workers' and the clients'), the context (its sockets closed, libzmq's
     * buffers handed back), the pool's check, the pool, the payloads.
     */
    @Override
    protected AutoCloseable[] ownedInCloseOrder() {
        int n = workerSockets.length;
        AutoCloseable[] out = new AutoCloseable[2 * n + 2 * CLIENTS + 4];
        int i = 0;
        for (int w = 0; w < n; w++) {
            out[i++] = replies[w];
            out[i++] = requests[w];
        }
        for (int c = 0; c < CLIENTS; c++) {
            out[i++] = asking[c];
            out[i++] = answers[c];
        }
        out[i++] = context;
        out[i++] = pool == null ? null : this::checkPool;
        out[i++] = pool;
        out[i] = arena;
        return out;
    }

    private void checkPool() {
        outstandingAtClose = pool.outstanding();
        if (outstandingAtClose != 0) {
            throw new IllegalStateException("pool buffers not returned once the context ended: outstanding="
                    + outstandingAtClose + ", " + pool.stats());
        }
    }

    @Override
    protected String poolState() {
        return outstandingAtClose < 0 ? "poolOutstanding=unchecked (open)" : "poolOutstanding=" + outstandingAtClose;
    }
}
