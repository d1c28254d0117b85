package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

/**
 * {@code libzmqBytes}: this project's transport (libzmq through FFM) used the straightforward way, with
 * {@code byte[]} sends and receives and zstd-jni {@code byte[]} compression. Same libzmq as
 * {@code zmqzstd}, so the difference between the two is the heap traffic the pipeline removes.
 */
public final class LibzmqBytesContestant extends ZstdJniBytesPipeline {

    private final ZmqContext context = ZmqContext.builder().ioThreads(PipelineContestants.IO_THREADS).build();
    private final ZmqSocket push;
    private final ZmqSocket pull;

    /**
     * {@code transport} is {@code tcp} or {@code inproc}; {@code dictionary} raw bytes or null; {@code hop}
     * ({@link PipelineContestants#HOP_NONE} and the others) may put a {@code ZmqProxy}, or libzmq's own proxy,
     * between the sender and the receiver ({@link ProxyHop}).
     */
    public LibzmqBytesContestant(byte[] payload, String transport, int level, byte[] dictionary, boolean reuse,
            String hop) {
        super(payload, level, dictionary, reuse);
        PushPull<ZmqSocket> ends = null;
        try {
            ends = PushPull.libzmq(context, transport, hop);
            push = ends.push();
            pull = ends.pull();
            start("libzmq-bytes-sender", ends.hop());
        } catch (RuntimeException | Error e) {
            closeAfterFailure(e, ends == null ? null : ends.hop()); // the context closes the sockets it made
            throw e;
        }
    }

    @Override
    protected void sendFrame(byte[] frame, int length) {
        if (!push.send(frame, 0, length, 0)) {
            throw new IllegalStateException("blocking send returned would-block");
        }
    }

    @Override
    protected byte[] receiveFrame() {
        return pull.receiveBytes(0);
    }

    @Override
    protected int receiveFrame(byte[] buffer) {
        return pull.receive(buffer, 0);
    }

    @Override
    public String receiverEndpoint() {
        return pull.lastEndpoint();
    }

    @Override
    protected void closeTransport() {
        if (push != null) { // null when the constructor failed before making it
            push.close();
        }
        if (pull != null) {
            pull.close();
        }
        context.close();
    }
}
