package io.zmqzstd.benchmark.pipeline;

import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * {@code jeromqZstdjni}: JeroMQ (pure-Java ZeroMQ) PUSH to PULL with zstd-jni {@code byte[]} compression,
 * new arrays per message; {@code jeromqZstdjniReused}: the same with reused arrays (see
 * {@link ZstdJniBytesPipeline}). PUSH blocks at the high-water mark, so no message is dropped.
 */
public final class JeromqZstdJniContestant extends ZstdJniBytesPipeline {

    private final ZContext context = new ZContext(PipelineContestants.IO_THREADS);
    private final ZMQ.Socket push;
    private final ZMQ.Socket pull;

    /**
     * {@code transport} is {@code tcp} or {@code inproc}; {@code dictionary} raw bytes or null; {@code proxied}
     * puts JeroMQ's {@code ZMQ.proxy} between the sender and the receiver ({@link ProxyHop}).
     */
    public JeromqZstdJniContestant(byte[] payload, String transport, int level, byte[] dictionary, boolean reuse,
            boolean proxied) {
        super(payload, level, dictionary, reuse);
        PushPull<ZMQ.Socket> ends = null;
        try {
            ends = PushPull.jeromq(context, transport, proxied);
            push = ends.push();
            pull = ends.pull();
            start("jeromq-sender", ends.hop());
        } catch (RuntimeException | Error e) {
            closeAfterFailure(e, ends == null ? null : ends.hop()); // the context closes the sockets it made
            throw e;
        }
    }

    @Override
    protected void sendFrame(byte[] frame, int length) {
        if (!push.send(frame, 0, length, 0)) {
            throw new IllegalStateException("JeroMQ send failed: errno=" + push.errno());
        }
    }

    @Override
    protected byte[] receiveFrame() {
        return pull.recv(0);
    }

    /**
     * The frame's full length, as libzmq's {@code zmq_recv} gives it: JeroMQ's
     * {@code recv(byte[], int, int, int)} returns only what it copied, so a frame longer than the
     * buffer came back cut to the buffer and looked whole. The same work as that call (its body is
     * these two calls), with the message's own size kept.
     */
    @Override
    protected int receiveFrame(byte[] buffer) {
        zmq.Msg frame = pull.base().recv(0);
        if (frame == null) {
            return -1;
        }
        frame.getBytes(0, buffer, 0, buffer.length);
        return frame.size();
    }

    @Override
    public String receiverEndpoint() {
        return pull.getLastEndpoint();
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
