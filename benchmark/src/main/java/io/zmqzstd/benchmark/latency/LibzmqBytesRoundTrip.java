package io.zmqzstd.benchmark.latency;

import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

/**
 * {@code libzmqBytes}: this project's transport used with {@code byte[]} sends and receives, zstd-jni
 * {@code byte[]} compression: the same libzmq as {@code zmqzstd}, with the heap traffic.
 */
public final class LibzmqBytesRoundTrip extends ZstdJniRoundTrip {

    private final ZmqContext context = new ZmqContext();
    private final ZmqSocket client;
    private final ZmqSocket server;

    /** {@code transport} is {@code tcp} or {@code inproc}. */
    public LibzmqBytesRoundTrip(byte[] payload, String transport, int level) {
        super(payload, level);
        try {
            RoundTrips.Sockets sockets = RoundTrips.pair(context, transport);
            server = sockets.server();
            client = sockets.client();
            start("libzmq-bytes-server");
        } catch (RuntimeException | Error e) {
            closeAfterFailure(e);
            throw e;
        }
    }

    @Override
    protected void clientSend(byte[] frame) {
        if (!client.send(frame, 0)) {
            throw new IllegalStateException("blocking send returned would-block");
        }
    }

    @Override
    protected byte[] clientReceive() {
        return client.receiveBytes(0);
    }

    @Override
    protected byte[] serverReceive() {
        return server.receiveBytes(0);
    }

    @Override
    protected void serverSend(byte[] ack) {
        if (!server.send(ack, 0)) {
            throw new IllegalStateException("blocking acknowledgement send returned would-block");
        }
    }

    @Override
    protected void closeTransport() {
        if (client != null) { // null when the constructor failed before making it
            client.close();
        }
        if (server != null) {
            server.close();
        }
        context.close();
    }
}
