package io.zmqzstd.transport;

import io.zmqzstd.transport.MonitorEvent.Type;
import io.zmqzstd.transport.internal.LibZmq;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZMTP heartbeats against a peer that stops answering: a tcp relay between the two sockets that,
 * once frozen, passes nothing on (the connection stays open, as with a peer whose host hangs).
 * Each wait is for a monitor event, bounded by a timeout that fails the test.
 */
@Timeout(60)
class HeartbeatTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    /** With an interval and the default timeout (-1: the interval), the silent peer is dropped. */
    @Test
    void shouldDisconnectAPeerThatStopsAnswering() throws IOException {
        try (ZmqContext ctx = new ZmqContext(); Relay relay = new Relay(ctx)) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.heartbeatIvlMs(100);
            assertEquals(-1, push.heartbeatTimeoutMs(), "the default: the interval serves as timeout");
            try (SocketMonitor monitor = push.monitor(EnumSet.of(Type.HANDSHAKE_SUCCEEDED, Type.DISCONNECTED))) {
                push.connect(relay.endpoint());
                awaitEvent(monitor, Type.HANDSHAKE_SUCCEEDED);
                relay.freeze();
                MonitorEvent gone = awaitEvent(monitor, Type.DISCONNECTED);
                assertEquals(relay.endpoint(), gone.endpoint());
            }
        }
    }

    /**
     * A timeout of 0 is no timeout, not "use the interval" (libzmq 4.3.4's zmtp_engine only arms
     * the timer for a timeout above 0): of two sockets whose peers go silent together, the one
     * with a 1 s timeout is dropped, the one with 0 is still connected after it.
     */
    @Test
    void shouldNeverTimeOutWithATimeoutOfZero() throws IOException {
        try (ZmqContext ctx = new ZmqContext(); Relay toZero = new Relay(ctx); Relay toOne = new Relay(ctx)) {
            ZmqSocket zero = ctx.socket(SocketType.PUSH);
            zero.heartbeatIvlMs(100);
            zero.heartbeatTimeoutMs(0);
            assertEquals(0, zero.heartbeatTimeoutMs());
            ZmqSocket oneSecond = ctx.socket(SocketType.PUSH);
            oneSecond.heartbeatIvlMs(100);
            oneSecond.heartbeatTimeoutMs(1000);
            EnumSet<Type> events = EnumSet.of(Type.HANDSHAKE_SUCCEEDED, Type.DISCONNECTED);
            try (SocketMonitor zeroEvents = zero.monitor(events); SocketMonitor oneEvents = oneSecond.monitor(events)) {
                zero.connect(toZero.endpoint());
                oneSecond.connect(toOne.endpoint());
                awaitEvent(zeroEvents, Type.HANDSHAKE_SUCCEEDED);
                awaitEvent(oneEvents, Type.HANDSHAKE_SUCCEEDED);
                toZero.freeze();
                toOne.freeze();
                awaitEvent(oneEvents, Type.DISCONNECTED);
                assertNull(zeroEvents.tryReceive(), "a timeout of 0 dropped the connection");
            }
            assertEquals(LibZmq.EINVAL, assertThrows(ZmqException.class, () -> zero.heartbeatTimeoutMs(-1)).errno(),
                    "the default cannot be set again");
        }
    }

    /**
     * libzmq reads the TTL of a PING as 16-bit tenths of a second times 100 in 16 bits: sent
     * 65,600 ms (656 tenths), the peer reads 64 ms and drops a healthy connection between two
     * PINGs 100 ms apart. Set behind the socket's back here (raw zmq_setsockopt) to show why
     * {@link ZmqSocket#heartbeatTtlMs} refuses it; 65,500 ms, the largest it takes, arrives whole.
     */
    @Test
    void shouldRefuseATtlThatALibzmqPeerReadsWrapped() throws Throwable {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            String endpoint = Endpoints.bindAny(pull, "tcp");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> push.heartbeatTtlMs(65_600));
            assertEquals("ZMQ_HEARTBEAT_TTL must be at most 65599 ms: ZMQ_HEARTBEAT_TTL=65600 (a libzmq peer multiplies the"
                    + " tenths of a second it receives by 100 in 16 bits: it would read 64 ms)", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> push.setIntOption(LibZmq.ZMQ_HEARTBEAT_TTL, 1_638_400));
            assertEquals(0, push.heartbeatTtlMs(), "refused values leave the option as it was");

            push.heartbeatIvlMs(100);
            try (Arena arena = Arena.ofConfined(); SocketMonitor peer = pull.monitor(EnumSet.of(Type.ACCEPTED, Type.DISCONNECTED))) {
                MemorySegment value = arena.allocateFrom(ValueLayout.JAVA_INT, 65_600);
                MemorySegment capture = arena.allocate(LibZmq.CAPTURE_LAYOUT);
                int rc = (int) LibZmq.zmq_setsockopt.invokeExact(capture, push.handle(), LibZmq.ZMQ_HEARTBEAT_TTL, value, 4L);
                assertEquals(0, rc, "libzmq itself takes it");
                push.connect(endpoint);
                awaitEvent(peer, Type.ACCEPTED);
                assertNotNull(awaitEvent(peer, Type.DISCONNECTED), "the peer dropped a healthy connection");
            }
        }
    }

    private static MonitorEvent awaitEvent(SocketMonitor monitor, Type type) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        for (;;) {
            long left = deadline - System.nanoTime();
            MonitorEvent event = left > 0 ? monitor.receive(Duration.ofNanos(left)) : null;
            if (event == null) {
                throw new AssertionError("no " + type + " within " + WAIT);
            }
            if (event.type() == type) {
                return event;
            }
        }
    }

    /**
     * Forwards each tcp connection to a bound PULL of its own context's making, both ways, until
     * frozen: from then on it reads and drops what either side sends, so the connection stays up
     * and says nothing (no PONG comes back).
     */
    private static final class Relay implements AutoCloseable {

        private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final String target;
        private final List<Socket> open = new CopyOnWriteArrayList<>();
        private volatile boolean frozen;

        Relay(ZmqContext ctx) throws IOException {
            target = Endpoints.bindAny(ctx.socket(SocketType.PULL), "tcp");
            Thread.ofVirtual().start(this::accept);
        }

        String endpoint() {
            return "tcp://127.0.0.1:" + listener.getLocalPort();
        }

        void freeze() {
            frozen = true;
        }

        private void accept() {
            try {
                while (true) {
                    Socket client = listener.accept();
                    int port = Integer.parseInt(target.substring(target.lastIndexOf(':') + 1));
                    Socket server = new Socket(InetAddress.getLoopbackAddress(), port);
                    open.add(client);
                    open.add(server);
                    Thread.ofVirtual().start(() -> pump(client, server));
                    Thread.ofVirtual().start(() -> pump(server, client));
                }
            } catch (IOException closed) {
                // the relay was closed
            }
        }

        private void pump(Socket from, Socket to) {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0;) {
                    if (!frozen) {
                        out.write(buffer, 0, n);
                    }
                }
            } catch (IOException closed) {
                // either side went away
            }
        }

        @Override
        public void close() {
            try {
                listener.close();
                for (Socket s : open) {
                    s.close();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
