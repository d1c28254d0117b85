package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Endpoints;
import io.zmqzstd.transport.SocketType;
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
     * {@code transport} is {@code tcp} or {@code inproc}; {@code dictionary} raw bytes or null; {@code proxied}
     * puts a {@code ZmqProxy} between the sender and the receiver ({@link ProxyHop}).
     */
    public LibzmqBytesContestant(byte[] payload, String transport, int level, byte[] dictionary, boolean reuse,
            boolean proxied) {
        super(payload, level, dictionary, reuse);
        pull = context.socket(SocketType.PULL);
        push = context.socket(SocketType.PUSH);
        pull.lingerMs(0);
        push.lingerMs(0);
        pull.receiveTimeoutMs(1000);
        pull.bind(Endpoints.bindable(transport));
        ProxyHop hop = proxied ? new LibzmqProxyHop(transport, push, pull) : null;
        push.connect(hop == null ? pull.lastEndpoint() : hop.senderEndpoint());
        start("libzmq-bytes-sender", hop);
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
    protected void closeTransport() {
        push.close();
        pull.close();
        context.close();
    }
}
