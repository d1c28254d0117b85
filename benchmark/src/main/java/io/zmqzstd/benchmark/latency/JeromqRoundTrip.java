package io.zmqzstd.benchmark.latency;

import io.zmqzstd.benchmark.Endpoints;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/** {@code jeromqZstdjni}: JeroMQ PAIR sockets with zstd-jni {@code byte[]} compression. */
public final class JeromqRoundTrip extends ZstdJniRoundTrip {

    private final ZContext context = new ZContext(1);
    private final ZMQ.Socket client;
    private final ZMQ.Socket server;

    /** {@code transport} is {@code tcp} or {@code inproc}. */
    public JeromqRoundTrip(byte[] payload, String transport, int level) {
        super(payload, level);
        try {
            server = context.createSocket(SocketType.PAIR);
            client = context.createSocket(SocketType.PAIR);
            server.setLinger(0);
            client.setLinger(0);
            server.setReceiveTimeOut(RoundTrips.SERVER_POLL_MS);
            client.setReceiveTimeOut(RoundTrips.CLIENT_WAIT_MS);
            server.bind(Endpoints.bindable(transport));
            client.connect(server.getLastEndpoint());
            start("jeromq-server");
        } catch (RuntimeException | Error e) {
            closeAfterFailure(e);
            throw e;
        }
    }

    @Override
    protected void clientSend(byte[] frame) {
        if (!client.send(frame, 0)) {
            throw new IllegalStateException("JeroMQ send failed: errno=" + client.errno());
        }
    }

    @Override
    protected byte[] clientReceive() {
        return client.recv(0);
    }

    @Override
    protected byte[] serverReceive() {
        return server.recv(0);
    }

    @Override
    protected void serverSend(byte[] ack) {
        if (!server.send(ack, 0)) {
            throw new IllegalStateException("JeroMQ acknowledgement send failed: errno=" + server.errno());
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
