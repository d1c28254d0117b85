package io.zmqzstd.benchmark.latency;

import io.zmqzstd.benchmark.Closing;
import io.zmqzstd.benchmark.LoopThread;
import io.zmqzstd.benchmark.Stamp;
import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * {@code zmqzstd}: a {@link CompressingSender} on the client's PAIR socket, a {@link DecompressingReceiver}
 * on the server's (with workers, a {@link ParallelCompressingSender} on a second PAIR pair that carries
 * the requests alone, since its workers send while the measuring thread receives on the first); the acknowledgements are 8-byte native segments sent and received with the transport's
 * copying calls. Every request is compressed, as the peers compress theirs: no raw-block frames for short
 * payloads (the library's default sends payloads below 128 B raw, without a compressor call), as
 * {@code PipelineBenchmark}'s {@code rawFrameBelowBytes} default of 0. Library defaults otherwise
 * (zero-copy threshold); the pool runs without leak detection, as in production. Nothing is allocated
 * per round trip.
 */
public final class ZmqZstdRoundTrip implements RoundTripContestant {

    private final int size;
    private final NativeBufferPool pool;
    private final ZmqContext context;
    private final ZmqSocket client;
    private final ZmqSocket server;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment request;
    private final MemorySegment clientAck;
    private final MemorySegment serverAck;
    /** Exactly one of the two. */
    private final CompressingSender sender;
    private final ParallelCompressingSender parallel;
    private final DecompressingReceiver receiver;
    private final LoopThread loop;
    /** The next sequence number the server expects; server thread only. */
    private long expected;

    /**
     * {@code transport} is {@code tcp} or {@code inproc}; {@code compression} with workers sends through a
     * {@link ParallelCompressingSender}. The caller owns the contestant and closes it.
     */
    public ZmqZstdRoundTrip(byte[] payload, String transport, int level, PipelineContestants.Parallel compression) {
        this.size = payload.length;
        try {
            pool = NativeBufferPool.builder().leakDetection(NativeBufferPool.LeakDetection.DISABLED).build();
            context = ZmqContext.builder().bufferPool(pool).build();
            RoundTrips.Sockets sockets = RoundTrips.pair(context, transport);
            server = sockets.server();
            client = sockets.client();
            // A parallel sender's workers send on its socket while the measuring thread waits for the
            // acknowledgement: a libzmq socket serves one thread at a time (ZmqSocket refuses a call that
            // overlaps another, and the worker's send failed), so its requests take a pair of their own.
            RoundTrips.Sockets requests = compression.workers() > 0 ? RoundTrips.pair(context, transport) : sockets;
            request = arena.allocate(Math.max(size, 1), 64).asSlice(0, size);
            request.copyFrom(MemorySegment.ofArray(payload));
            clientAck = arena.allocate(Stamp.BYTES);
            serverAck = arena.allocate(Stamp.BYTES);
            if (compression.workers() > 0) {
                sender = null;
                parallel = compression.builder(requests.client()).level(level).rawFrameBelowBytes(0).build();
            } else {
                sender = CompressingSender.builder(client).level(level).rawFrameBelowBytes(0).build();
                parallel = null;
            }
            receiver = DecompressingReceiver.builder(requests.server()).build();
            loop = new LoopThread("server", "zmqzstd-server", this::serveOne);
        } catch (RuntimeException | Error e) {
            closeAfterFailure(e);
            throw e;
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
     * What the contestant owns, in the order it is closed: the server thread, the sender, the receiver, the
     * context before the pool (libzmq hands every in-flight buffer back during termination) and the payloads.
     */
    private AutoCloseable[] inCloseOrder() {
        return new AutoCloseable[] {loop, sender, parallel, receiver, context, pool, arena};
    }

    @Override
    public void roundTrip(long sequence) {
        Stamp.write(request, sequence);
        if (!(sender != null ? sender.send(request, 0) : parallel.send(request, 0))) {
            throw new IllegalStateException("blocking send returned would-block");
        }
        long n;
        while ((n = client.receive(clientAck, 0)) < 0) {
            loop.checkHealthy();
            checkWorkers();
        }
        Stamp.checkAt(clientAck.address(), n, sequence, Stamp.BYTES);
    }

    /**
     * After an acknowledgement timed out: a parallel sender's worker that failed drops the request and
     * reports it only to the producer's next call, which waits for this acknowledgement; without this
     * check the round trip would wait forever. Allocates a snapshot, on the timeout path only.
     */
    private void checkWorkers() {
        if (parallel != null && parallel.stats().droppedMessages() > 0) {
            throw new IllegalStateException("the parallel sender dropped a request after a failure: "
                    + parallel.stats());
        }
    }

    /** The client's sender's counters (raw frames among them); allocates a snapshot. */
    public PipelineStats senderStats() {
        return sender != null ? sender.stats() : parallel.stats();
    }

    /** Serves one request, or returns when the receive timed out (so the loop can notice close). */
    private void serveOne() {
        int status = receiver.receive(0);
        if (status == DecompressingReceiver.WOULD_BLOCK) {
            return;
        }
        if (status != DecompressingReceiver.RECEIVED) {
            throw new IllegalStateException("bad frame: " + receiver.lastErrorMessage());
        }
        ReceivedMessage m = receiver.message();
        Stamp.checkAt(m.region().address() + m.partOffset(0), m.partSize(0), expected, size);
        Stamp.write(serverAck, expected++);
        if (!server.send(serverAck, 0, Stamp.BYTES, 0)) {
            throw new IllegalStateException("blocking acknowledgement send returned would-block");
        }
    }

    /** Closes everything in {@link #inCloseOrder()}'s order, each even when an earlier close fails. */
    @Override
    public void close() {
        Closing.inOrder(inCloseOrder());
    }
}
