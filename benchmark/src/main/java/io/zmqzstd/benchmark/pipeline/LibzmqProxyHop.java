package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Endpoints;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqProxy;
import io.zmqzstd.transport.ZmqSocket;

/** {@code hop=proxy} for this project's contestants: a {@link ZmqProxy} in their context. */
final class LibzmqProxyHop extends ProxyHop {

    private final ZmqSocket frontend;
    /** Read before the proxy starts: from then on its thread owns the frontend. */
    private final String senderEndpoint;
    private final ZmqSocket backend;
    private final ZmqProxy proxy;

    /**
     * A running proxy in {@code sender}'s context, before {@code sender} connects: its backend connected to
     * {@code receiver}'s bound endpoint, its frontend bound on {@code transport}.
     */
    LibzmqProxyHop(String transport, ZmqSocket sender, ZmqSocket receiver) {
        ZmqContext context = sender.context();
        frontend = context.socket(SocketType.PULL);
        backend = context.socket(SocketType.PUSH);
        try {
            for (ZmqSocket s : new ZmqSocket[] {frontend, backend}) {
                s.lingerMs(0);
                s.sendHwm(sender.sendHwm());
                s.receiveHwm(receiver.receiveHwm());
            }
            frontend.bind(Endpoints.bindable(transport));
            senderEndpoint = frontend.lastEndpoint();
            backend.connect(receiver.lastEndpoint());
            proxy = new ZmqProxy(frontend, backend, null);
        } catch (RuntimeException e) {
            frontend.close();
            backend.close();
            throw e;
        }
        start("zmqzstd-proxy");
    }

    @Override
    protected void forward() {
        proxy.run();
    }

    @Override
    protected void stop() {
        proxy.terminate();
    }

    @Override
    protected void closeSockets() {
        proxy.close();
        frontend.close();
        backend.close();
    }

    @Override
    String senderEndpoint() {
        return senderEndpoint;
    }
}
