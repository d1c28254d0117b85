package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Endpoints;
import io.zmqzstd.benchmark.LoopThread;
import io.zmqzstd.benchmark.Stamp;
import io.zmqzstd.benchmark.ZstdJniCodec;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * {@code way=jeromqZstdjni}: the same topology in JeroMQ, what users run today. A ROUTER frontend and a DEALER
 * backend joined by JeroMQ's own {@code ZMQ.proxy} ({@link JeromqProxyHop}); clients and workers are JeroMQ
 * DEALERs; zstd-jni compresses and decompresses {@code byte[]} on the same threads as the {@code jeromqZstdjni}
 * pipeline contestant does ({@link ZstdJniCodec}, one per thread, contexts kept): a new frame per
 * {@code compress}, a new array per receive and per {@code decompress}. A worker receives the routing id and the
 * request as two arrays and sends the id back with {@code SNDMORE} in front of its reply. It has no native pool:
 * {@link #summary()} says {@code pool=none}.
 */
final class JeromqZstdJniReplies extends ReplyRig {

    private final ZContext context = new ZContext(PipelineContestants.IO_THREADS);
    private final ZstdJniCodec clientCodec;
    private final byte[] request;
    private final ZMQ.Socket[] clients = new ZMQ.Socket[CLIENTS];
    private final ZMQ.Socket[] workerSockets;
    private final ZstdJniCodec[] workerCodecs;
    private final byte[][] replyPayloads;

    JeromqZstdJniReplies(int workers, int size, String backendTransport, int level) {
        super(JEROMQ_ZSTDJNI, size, level, workers);
        workerSockets = new ZMQ.Socket[workers];
        workerCodecs = new ZstdJniCodec[workers];
        replyPayloads = new byte[workers][];
        request = requestPayload(size);
        try {
            clientCodec = new ZstdJniCodec(level, null);
            ZMQ.Socket frontend = socket(SocketType.ROUTER, 0);
            frontend.bind(Endpoints.bindable(Endpoints.TCP));
            ZMQ.Socket backend = socket(SocketType.DEALER, 0);
            backend.bind(Endpoints.bindable(backendTransport));
            String backendEndpoint = backend.getLastEndpoint(); // before the proxy's thread owns the socket
            hop(new JeromqProxyHop(context, frontend, backend));
            start("jeromq", backendEndpoint);
        } catch (RuntimeException | Error e) {
            closeAfterFailure(e); // the context closes the sockets it made
            throw e;
        }
    }

    @Override
    protected LoopThread.Step worker(int w, String backendEndpoint) {
        workerSockets[w] = socket(SocketType.DEALER, WORKER_POLL_MS);
        workerSockets[w].connect(backendEndpoint);
        workerCodecs[w] = new ZstdJniCodec(level, null);
        replyPayloads[w] = replyPayload(size);
        return () -> serve(w);
    }

    @Override
    protected void client(int c, String frontendEndpoint) {
        clients[c] = socket(SocketType.DEALER, CLIENT_WAIT_MS);
        clients[c].connect(frontendEndpoint);
    }

    private ZMQ.Socket socket(SocketType type, int receiveTimeoutMs) {
        ZMQ.Socket s = context.createSocket(type);
        s.setLinger(0);
        if (receiveTimeoutMs > 0) {
            s.setReceiveTimeOut(receiveTimeoutMs);
        }
        return s;
    }

    @Override
    protected void sendRequest(int client, long sequence) {
        Stamp.write(request, sequence);
        if (!clients[client].send(clientCodec.compress(request), 0)) {
            throw new IllegalStateException("JeroMQ send failed: client=" + client + ", errno=" + clients[client].errno());
        }
    }

    @Override
    protected long receiveReply(int client) {
        byte[] frame = clients[client].recv(0);
        if (frame == null) {
            return NO_REPLY;
        }
        if (clients[client].hasReceiveMore()) {
            throw new IllegalStateException("unexpected reply: client=" + client + ", more than one part");
        }
        byte[] reply = clientCodec.decompress(frame);
        return replyCheck.checkAnySequence(reply, reply.length);
    }

    /** Worker {@code w}: one request received, checked and answered, or nothing when the receive timed out. */
    private void serve(int w) {
        ZMQ.Socket socket = workerSockets[w];
        byte[] id = socket.recv(0);
        if (id == null) {
            return;
        }
        byte[] frame = socket.hasReceiveMore() ? socket.recv(0) : null; // the routing id, then the request
        if (frame == null || socket.hasReceiveMore()) {
            throw new IllegalStateException("unexpected request: worker=" + w + ", not a routing id and one part");
        }
        ZstdJniCodec codec = workerCodecs[w];
        byte[] decompressed = codec.decompress(frame);
        long sequence = checkRequest(w, decompressed, decompressed.length);
        byte[] reply = replyPayloads[w];
        Stamp.write(reply, sequence);
        answered(w); // before the reply: see answered
        if (!socket.sendMore(id) || !socket.send(codec.compress(reply), 0)) {
            throw new IllegalStateException("JeroMQ reply failed: worker=" + w + ", errno=" + socket.errno());
        }
    }

    @Override
    protected String poolState() {
        return "pool=none";
    }

    /** The codecs, then the context, which closes every socket it made. */
    @Override
    protected AutoCloseable[] ownedInCloseOrder() {
        AutoCloseable[] out = new AutoCloseable[workerCodecs.length + 2];
        System.arraycopy(workerCodecs, 0, out, 0, workerCodecs.length);
        out[workerCodecs.length] = clientCodec;
        out[workerCodecs.length + 1] = context;
        return out;
    }
}
