package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Closing;
import io.zmqzstd.benchmark.Endpoints;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * A contestant's two ends, the same for every library: the receiver's PULL bound on {@code transport} with
 * a 1 s receive timeout, the sender's PUSH connected to it, or to a proxy between them ({@code hop}, null
 * without one), both with linger 0. The sockets belong to the context, whose close closes them; a failure
 * after the proxy was made closes the proxy before it is rethrown.
 */
record PushPull<S>(S push, S pull, ProxyHop hop) {

    /**
     * libzmq's ends through this project's transport, with a {@link LibzmqProxyHop} unless {@code hop} is
     * {@link PipelineContestants#HOP_NONE}: running this project's {@code ZmqProxy} for
     * {@link PipelineContestants#HOP_PROXY}, libzmq's {@code zmq_proxy_steerable} for
     * {@link PipelineContestants#HOP_LIBZMQ_PROXY}.
     */
    static PushPull<ZmqSocket> libzmq(ZmqContext context, String transport, String hop) {
        ZmqSocket pull = context.socket(io.zmqzstd.transport.SocketType.PULL);
        ZmqSocket push = context.socket(io.zmqzstd.transport.SocketType.PUSH);
        pull.lingerMs(0);
        push.lingerMs(0);
        pull.receiveTimeoutMs(1000);
        pull.bind(Endpoints.bindable(transport));
        ProxyHop proxy = hop.equals(PipelineContestants.HOP_NONE) ? null
                : new LibzmqProxyHop(transport, push, pull, hop.equals(PipelineContestants.HOP_LIBZMQ_PROXY));
        try {
            push.connect(proxy == null ? pull.lastEndpoint() : proxy.senderEndpoint());
        } catch (RuntimeException | Error e) {
            Closing.afterFailure(e, proxy);
            throw e;
        }
        return new PushPull<>(push, pull, proxy);
    }

    /** JeroMQ's ends, with a {@link JeromqProxyHop} when {@code proxied}. */
    static PushPull<ZMQ.Socket> jeromq(ZContext context, String transport, boolean proxied) {
        ZMQ.Socket pull = context.createSocket(org.zeromq.SocketType.PULL);
        ZMQ.Socket push = context.createSocket(org.zeromq.SocketType.PUSH);
        pull.setLinger(0);
        push.setLinger(0);
        pull.setReceiveTimeOut(1000);
        pull.bind(Endpoints.bindable(transport));
        ProxyHop hop = proxied ? new JeromqProxyHop(context, transport, push, pull) : null;
        try {
            push.connect(hop == null ? pull.getLastEndpoint() : hop.senderEndpoint());
        } catch (RuntimeException | Error e) {
            Closing.afterFailure(e, hop);
            throw e;
        }
        return new PushPull<>(push, pull, hop);
    }
}
