package io.zmqzstd.benchmark.transport;

import io.zmqzstd.benchmark.Closing;
import io.zmqzstd.benchmark.Endpoints;
import io.zmqzstd.benchmark.Thresholds;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;
import java.nio.charset.StandardCharsets;

/**
 * Two ROUTER sockets on one context, connected and known to each other: {@code receiver} binds, {@code
 * sender} connects and addresses it by routing id {@link #RECEIVER_ID}. The sender has ROUTER_MANDATORY
 * set, so at the high-water mark it blocks instead of silently dropping, and an unknown peer is an error.
 */
public final class RouterPair implements AutoCloseable {

    public static final byte[] RECEIVER_ID = "receiver".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] SENDER_ID = "sender".getBytes(StandardCharsets.US_ASCII);

    private static final long CONNECT_TIMEOUT_NS = 10_000_000_000L;

    public final NativeBufferPool pool;
    public final ZmqContext context;
    public final ZmqSocket receiver;
    public final ZmqSocket sender;

    /**
     * {@code transport} is {@code tcp} (loopback, ephemeral port) or {@code inproc}; the context's pool has
     * the given zero-copy threshold (or the library's, {@link Thresholds#LIBRARY_DEFAULT}) and leak detection disabled (as in production: sampled detection
     * records a stack trace per sampled rent).
     */
    public RouterPair(String transport, long zeroCopyThresholdBytes) {
        this(transport, zeroCopyThresholdBytes, 1);
    }

    /**
     * As above, the context with {@code ioThreads} libzmq I/O threads: with one (the default), one I/O
     * thread serves both ends of a tcp connection, where two processes would have one each.
     */
    public RouterPair(String transport, long zeroCopyThresholdBytes, int ioThreads) {
        NativeBufferPool p = null;
        ZmqContext c = null;
        try {
            p = Thresholds.apply(NativeBufferPool.builder().leakDetection(NativeBufferPool.LeakDetection.DISABLED),
                    zeroCopyThresholdBytes).build();
            c = ZmqContext.builder().bufferPool(p).ioThreads(ioThreads).build();
            pool = p;
            context = c;
            receiver = context.socket(SocketType.ROUTER);
            sender = context.socket(SocketType.ROUTER);
            receiver.routingId(RECEIVER_ID);
            sender.routingId(SENDER_ID);
            sender.routerMandatory(true);
            receiver.lingerMs(0);
            sender.lingerMs(0);
            // Bounded blocking receive: a failed sender turns into an error, not a hung benchmark.
            receiver.receiveTimeoutMs(1000);
            String endpoint = Endpoints.bindable(transport);
            receiver.bind(endpoint);
            sender.connect(receiver.lastEndpoint());
            handshake();
        } catch (RuntimeException | Error e) {
            // a refused transport or setting, or no route within the deadline: the context (with the sockets it
            // owns) before the pool, as close() does
            Closing.afterFailure(e, c, p);
            throw e;
        }
    }

    /** Sends one hello until the route to the receiver exists, and receives it. */
    private void handshake() {
        long deadline = System.nanoTime() + CONNECT_TIMEOUT_NS;
        while (true) {
            try {
                if (sender.send(RECEIVER_ID, ZmqSocket.SNDMORE | ZmqSocket.DONTWAIT)) {
                    break;
                }
            } catch (ZmqException e) {
                // EHOSTUNREACH until the connection handshake is done: poll with a deadline.
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("receiver not reachable within 10 s: endpoint=" + receiver.lastEndpoint());
            }
            Thread.onSpinWait();
        }
        if (!sender.send(new byte[] {1}, 0)) {
            throw new IllegalStateException("hello not sent");
        }
        byte[] identity = receiver.receiveBytes(0);
        byte[] hello = receiver.receiveBytes(0);
        if (identity == null || hello == null || hello.length != 1) {
            throw new IllegalStateException("hello not received");
        }
    }

    /** The sockets, then the context before the pool (libzmq hands every in-flight buffer back during termination). */
    @Override
    public void close() {
        Closing.inOrder(receiver, sender, context, pool);
    }
}
