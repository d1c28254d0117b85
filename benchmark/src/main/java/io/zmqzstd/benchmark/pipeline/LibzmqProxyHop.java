package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Endpoints;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqProxy;
import io.zmqzstd.transport.ZmqSocket;
import io.zmqzstd.transport.internal.LibZmq;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * {@code hop=proxy} and {@code hop=libzmqProxy} for this project's contestants: a {@link ZmqProxy} in their
 * context, or libzmq's own {@code zmq_proxy_steerable} on the same sockets, steered through a PAIR pair of
 * the hop's own (what other bindings run as their proxy, and what {@code ZmqProxy} ran until 2026-11-28).
 */
public final class LibzmqProxyHop extends ProxyHop {

    private static final byte[] TERMINATE = "TERMINATE".getBytes(StandardCharsets.US_ASCII);

    private final ZmqSocket frontend;
    /** Read before the proxy starts: from then on its thread owns the frontend. */
    private final String senderEndpoint;
    private final ZmqSocket backend;
    /** This project's proxy; null with libzmq's. */
    private final ZmqProxy proxy;
    /** libzmq's proxy: its control socket and ours, connected; null with this project's. */
    private final ZmqSocket controlIn;
    private final ZmqSocket controlOut;

    /**
     * A running proxy in {@code sender}'s context, before {@code sender} connects: its backend connected to
     * {@code receiver}'s bound endpoint, its frontend bound on {@code transport}; libzmq's own proxy when
     * {@code libzmqLoop}, else a {@link ZmqProxy}.
     */
    public LibzmqProxyHop(String transport, ZmqSocket sender, ZmqSocket receiver, boolean libzmqLoop) {
        ZmqContext context = sender.context();
        frontend = context.socket(SocketType.PULL);
        backend = context.socket(SocketType.PUSH);
        ZmqSocket in = null;
        ZmqSocket out = null;
        try {
            for (ZmqSocket s : new ZmqSocket[] {frontend, backend}) {
                s.lingerMs(0);
                s.sendHwm(sender.sendHwm());
                s.receiveHwm(receiver.receiveHwm());
            }
            frontend.bind(Endpoints.bindable(transport));
            senderEndpoint = frontend.lastEndpoint();
            backend.connect(receiver.lastEndpoint());
            if (libzmqLoop) {
                in = context.socket(SocketType.PAIR);
                out = context.socket(SocketType.PAIR);
                in.lingerMs(0);
                out.lingerMs(0);
                in.bind(Endpoints.bindable("inproc"));
                out.connect(in.lastEndpoint());
                proxy = null;
            } else {
                proxy = new ZmqProxy(frontend, backend, null);
            }
        } catch (RuntimeException e) {
            for (ZmqSocket s : new ZmqSocket[] {frontend, backend, in, out}) {
                if (s != null) {
                    s.close();
                }
            }
            throw e;
        }
        controlIn = in;
        controlOut = out;
        start(libzmqLoop ? "libzmq-proxy" : "zmqzstd-proxy");
    }

    /**
     * This project's {@link ZmqProxy} between {@code frontend} and {@code backend}, sockets of one context the
     * caller made, set and bound or connected (a ROUTER and a DEALER, say); from here the proxy's thread owns
     * them, and {@link #close()} closes them.
     */
    public LibzmqProxyHop(ZmqSocket frontend, ZmqSocket backend) {
        this.frontend = frontend;
        this.backend = backend;
        senderEndpoint = frontend.lastEndpoint();
        proxy = new ZmqProxy(frontend, backend, null);
        controlIn = null;
        controlOut = null;
        start("zmqzstd-proxy");
    }

    @Override
    protected void forward() {
        if (proxy != null) {
            proxy.run();
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(LibZmq.CAPTURE_LAYOUT);
            for (;;) {
                int rc = (int) LibZmq.zmq_proxy_steerable.invokeExact(errno, frontend.handle(), backend.handle(),
                        MemorySegment.NULL, controlIn.handle());
                if (rc == 0) {
                    return; // TERMINATE
                }
                int e = LibZmq.errno(errno);
                if (e != LibZmq.EINTR) {
                    throw new IllegalStateException("zmq_proxy_steerable failed: errno=" + e);
                }
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    @Override
    protected void stop() {
        if (proxy != null) {
            proxy.terminate();
        } else if (!controlOut.send(TERMINATE, 0)) {
            throw new IllegalStateException("libzmq proxy TERMINATE not sent");
        }
    }

    @Override
    protected void closeSockets() {
        if (proxy != null) {
            proxy.close();
        } else {
            controlIn.close();
            controlOut.close();
        }
        frontend.close();
        backend.close();
    }

    @Override
    public String senderEndpoint() {
        return senderEndpoint;
    }
}
