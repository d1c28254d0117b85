package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Endpoints;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * {@code hop=proxy} for the JeroMQ contestants: JeroMQ's {@code ZMQ.proxy} with a control socket (a PAIR
 * over inproc) through which {@link #stop()} sends {@code TERMINATE}.
 */
final class JeromqProxyHop extends ProxyHop {

    private final ZMQ.Socket frontend;
    /** Read before the proxy starts: from then on its thread owns the frontend. */
    private final String senderEndpoint;
    private final ZMQ.Socket backend;
    private final ZMQ.Socket controlIn;
    private final ZMQ.Socket controlOut;

    /** As {@link LibzmqProxyHop}, in {@code context}, the context of {@code sender} and {@code receiver}. */
    JeromqProxyHop(ZContext context, String transport, ZMQ.Socket sender, ZMQ.Socket receiver) {
        ZMQ.Socket pull = context.createSocket(SocketType.PULL);
        ZMQ.Socket push = context.createSocket(SocketType.PUSH);
        for (ZMQ.Socket s : new ZMQ.Socket[] {pull, push}) {
            s.setLinger(0);
            s.setSndHWM(sender.getSndHWM());
            s.setRcvHWM(receiver.getRcvHWM());
        }
        pull.bind(Endpoints.bindable(transport));
        push.connect(receiver.getLastEndpoint());
        this(context, pull, push);
    }

    /**
     * JeroMQ's proxy between {@code frontend} and {@code backend}, sockets of {@code context} the caller made,
     * set and bound or connected (a ROUTER and a DEALER, say); from here the proxy's thread owns them, and
     * {@link #close()} closes them.
     */
    JeromqProxyHop(ZContext context, ZMQ.Socket frontend, ZMQ.Socket backend) {
        this.frontend = frontend;
        this.backend = backend;
        senderEndpoint = frontend.getLastEndpoint();
        controlIn = context.createSocket(SocketType.PAIR);
        controlOut = context.createSocket(SocketType.PAIR);
        controlIn.setLinger(0);
        controlOut.setLinger(0);
        String control = Endpoints.bindable(Endpoints.INPROC);
        controlIn.bind(control);
        controlOut.connect(control);
        start("jeromq-proxy");
    }

    @Override
    protected void forward() {
        ZMQ.proxy(frontend, backend, null, controlIn);
    }

    @Override
    protected void stop() {
        if (!controlOut.send(ZMQ.PROXY_TERMINATE, 0)) {
            throw new IllegalStateException("JeroMQ proxy TERMINATE not sent: errno=" + controlOut.errno());
        }
    }

    @Override
    protected void closeSockets() {
        controlOut.close();
        controlIn.close();
        frontend.close();
        backend.close();
    }

    @Override
    public String senderEndpoint() {
        return senderEndpoint;
    }
}
