package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Endpoints;
import org.zeromq.SocketType;
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
        pull = context.createSocket(SocketType.PULL);
        push = context.createSocket(SocketType.PUSH);
        pull.setLinger(0);
        push.setLinger(0);
        pull.setReceiveTimeOut(1000);
        pull.bind(Endpoints.bindable(transport));
        ProxyHop hop = proxied ? new JeromqProxyHop(context, transport, push, pull) : null;
        push.connect(hop == null ? pull.getLastEndpoint() : hop.senderEndpoint());
        start("jeromq-sender", hop);
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

    @Override
    protected int receiveFrame(byte[] buffer) {
        return pull.recv(buffer, 0, buffer.length, 0);
    }

    @Override
    protected void closeTransport() {
        push.close();
        pull.close();
        context.close();
    }
}
