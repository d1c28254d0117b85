package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import io.zmqzstd.transport.internal.LibZmq;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The option, endpoint and monitor calls of a socket (getsockopt and setsockopt behind them, and
 * zmq_bind, zmq_connect, zmq_unbind, zmq_disconnect, zmq_socket_monitor) made on one thread while
 * another thread receives or sends on the same socket, over inproc and tcp. libzmq sockets are not
 * thread-safe ({@code ZMQ_EVENTS} and {@code ZMQ_RCVMORE} read the socket's pipes and commands as a
 * receive does), so each of these calls must enter the socket's guard: refused naming both threads
 * while the other thread is inside a call, or made whole between its calls, the values right and
 * every message through in order. Run in a child JVM, as a call that reached libzmq beside a
 * receive could abort the process.
 */
class OptionCallsBesideTrafficTest {

    /** How long each side of the child's run sends. */
    private static final long TRAFFIC_NS = 500_000_000L;
    private static final int FRAME_BYTES = 16;
    private static final long END = -1;

    @Test
    void shouldRefuseOrCompleteEveryOptionCallBesideTrafficOverInproc() throws Exception {
        runChild("inproc");
    }

    @Test
    void shouldRefuseOrCompleteEveryOptionCallBesideTrafficOverTcp() throws Exception {
        runChild("tcp");
    }

    private static void runChild(String transport) throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(60), OptionCallsBesideTrafficTest.class,
                List.of("-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/hs_err_pid%p.log"), transport);
        assertTrue(out.contains("blocked receive: every call refused")
                && out.contains("receiving side: every message in order") && out.contains("sending side: every message in order"), out);
        System.out.println(out.strip());
    }

    /**
     * The child.
     *
     * @param args the transport, {@code inproc} or {@code tcp}
     * @throws Exception when a thread cannot be joined
     */
    public static void main(String[] args) throws Exception {
        String transport = args[0];
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pub = ctx.socket(SocketType.PUB);
            ZmqSocket sub = ctx.socket(SocketType.SUB);
            pub.sendHwm(0); // nothing dropped: every message must arrive
            sub.receiveHwm(0);
            String endpoint = Endpoints.bindAny(pub, transport);
            sub.subscribe(new byte[0]);
            sub.connect(endpoint);
            Endpoints.await("the subscription", () -> {
                pub.send(frame(-2), 0);
                return sub.receive(new byte[FRAME_BYTES], ZmqSocket.DONTWAIT) >= 0;
            });
            pub.send(frame(-3), 0); // after every probe still on its way: received, nothing is left queued
            byte[] b = new byte[FRAME_BYTES];
            do {
                sub.receive(b, 0);
            } while (ByteBuffer.wrap(b).getLong() != -3);
            blockedReceive(pub, sub, transport);
            beside("receiving side", pub, sub, sub, transport);
            beside("sending side", pub, sub, pub, transport);
        }
    }

    private static byte[] frame(long seq) {
        return ByteBuffer.allocate(FRAME_BYTES).putLong(seq).putLong(~seq).array();
    }

    /** A receive blocked inside libzmq: every call on its socket is refused, and the receive goes on. */
    private static void blockedReceive(ZmqSocket pub, ZmqSocket sub, String transport) throws Exception {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        byte[] got = new byte[FRAME_BYTES];
        Thread receiver = BlockedCalls.start("invokeFast", seen, () -> sub.receive(got, 0));
        List<String> notRefused = new ArrayList<>();
        List<Call> calls = calls(sub, transport, false);
        for (Call c : calls) {
            try {
                c.body.run();
                notRefused.add(c.name + " went through");
            } catch (IllegalStateException e) {
                if (!e.getMessage().contains("two threads at once") || !e.getMessage().contains(receiver.getName())) {
                    notRefused.add(c.name + ": " + e.getMessage());
                }
            }
        }
        pub.send(frame(7), 0);
        receiver.join(10_000);
        if (!notRefused.isEmpty() || seen.get() != null || receiver.isAlive() || ByteBuffer.wrap(got).getLong() != 7) {
            throw new AssertionError("beside a blocked receive: " + notRefused + ", receive threw " + seen.get()
                    + ", alive " + receiver.isAlive() + ", got " + ByteBuffer.wrap(got).getLong());
        }
        System.out.println("blocked receive: every call refused (" + calls.size() + " calls)");
    }

    /**
     * A thread sends on {@code pub} and another receives on {@code sub} for {@link #TRAFFIC_NS};
     * this thread meanwhile makes every call of {@link #calls} on {@code target} in a loop.
     */
    private static void beside(String side, ZmqSocket pub, ZmqSocket sub, ZmqSocket target, String transport)
            throws Exception {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        AtomicBoolean done = new AtomicBoolean();
        long[] received = new long[1];
        Thread receiver = Thread.ofPlatform().name("receiver").start(() -> {
            try {
                byte[] b = new byte[FRAME_BYTES];
                for (long expected = 0;; expected++) {
                    int[] got = new int[1];
                    retried(true, () -> got[0] = sub.receive(b, 0)); // refused while the other thread is in a call
                    int n = got[0];
                    ByteBuffer bb = ByteBuffer.wrap(b);
                    long seq = bb.getLong();
                    if (seq == END) {
                        break;
                    }
                    if (n != FRAME_BYTES || seq != expected || bb.getLong() != ~seq) {
                        throw new AssertionError("frame " + expected + ": length=" + n + ", seq=" + seq);
                    }
                    received[0] = expected + 1;
                }
            } catch (Throwable t) {
                failed.compareAndSet(null, t);
            } finally {
                done.set(true);
            }
        });
        Thread sender = Thread.ofPlatform().name("sender").start(() -> {
            try {
                long end = System.nanoTime() + TRAFFIC_NS;
                for (long seq = 0; System.nanoTime() < end && failed.get() == null; seq++) {
                    byte[] f = frame(seq);
                    retried(true, () -> pub.send(f, 0)); // refused while the other thread is in a call
                }
                retried(true, () -> pub.send(frame(END), 0));
            } catch (Throwable t) {
                failed.compareAndSet(null, t);
            }
        });
        List<Call> calls = calls(target, transport, true);
        Map<String, long[]> counts = new TreeMap<>(); // name -> {made, refused}
        while (!done.get() && failed.get() == null) {
            for (Call c : calls) {
                long[] count = counts.computeIfAbsent(c.name, k -> new long[2]);
                try {
                    c.body.run();
                    count[0]++;
                } catch (IllegalStateException e) {
                    if (!e.getMessage().contains("two threads at once")) {
                        failed.compareAndSet(null, e);
                    }
                    count[1]++;
                } catch (Throwable t) {
                    failed.compareAndSet(null, new AssertionError(c.name, t));
                }
            }
        }
        sender.join();
        receiver.join();
        if (failed.get() != null) {
            throw new AssertionError(side + " over " + transport + ", after " + received[0] + " messages", failed.get());
        }
        long made = counts.values().stream().mapToLong(c -> c[0]).sum();
        long refused = counts.values().stream().mapToLong(c -> c[1]).sum();
        if (made == 0 || refused == 0) {
            throw new AssertionError(side + ": the calls never overlapped the traffic, or never got in: " + made + " made, "
                    + refused + " refused");
        }
        StringBuilder s = new StringBuilder();
        counts.forEach((name, c) -> s.append(' ').append(name).append('=').append(c[0]).append('/').append(c[1]));
        System.out.println(side + ": every message in order (" + received[0] + "), calls made/refused:" + s);
    }

    private record Call(String name, Runnable body) {
    }

    /**
     * The calls made beside the traffic, each checking what it reads: an endpoint of the socket's
     * transport, a high-water mark of 0, events that are POLLIN and POLLOUT bits only, no more
     * parts (every message is one frame). A call that changes the socket (a subscription, an
     * endpoint, a monitor) undoes the change within the same entry, the undoing half made again
     * until it gets in ({@code retry}; without it, beside a blocked call, only the first half is
     * tried), so the socket is the same at each round.
     */
    private static List<Call> calls(ZmqSocket s, String transport, boolean retry) {
        boolean receives = s.type() == SocketType.SUB;
        List<Call> calls = new ArrayList<>();
        calls.add(new Call("events", () -> check("events", s.events(), e -> (e & ~(ZmqPoller.POLLIN | ZmqPoller.POLLOUT)) == 0)));
        calls.add(new Call("getIntOption(ZMQ_EVENTS)", () -> check("ZMQ_EVENTS", s.getIntOption(LibZmq.ZMQ_EVENTS),
                e -> (e & ~(ZmqPoller.POLLIN | ZmqPoller.POLLOUT)) == 0)));
        calls.add(new Call("lastEndpoint", () -> check("lastEndpoint", s.lastEndpoint(), e -> e.startsWith(transport + "://"))));
        calls.add(new Call("ipv6", () -> check("ipv6", s.ipv6(), v -> !v)));
        calls.add(new Call("getIntOption(ZMQ_TYPE)", () -> check("ZMQ_TYPE", s.getIntOption(LibZmq.ZMQ_TYPE), t -> t == s.type().code())));
        if (receives) {
            String nobody = transport.equals("tcp") ? "tcp://127.0.0.1:1" : "inproc://option-calls-nobody";
            calls.add(new Call("rcvmore", () -> check("rcvmore", s.rcvmore(), m -> !m)));
            calls.add(new Call("getIntOption(ZMQ_RCVMORE)", () -> check("ZMQ_RCVMORE", s.getIntOption(LibZmq.ZMQ_RCVMORE), m -> m == 0)));
            calls.add(new Call("receiveHwm", () -> check("receiveHwm", s.receiveHwm(), h -> h == 0)));
            calls.add(new Call("setIntOption(ZMQ_RCVHWM)", () -> s.setIntOption(LibZmq.ZMQ_RCVHWM, 0)));
            calls.add(new Call("subscribe+unsubscribe", () -> {
                s.subscribe("zz");
                retried(retry, () -> s.unsubscribe("zz"));
            }));
            calls.add(new Call("connect+disconnect", () -> {
                s.connect(nobody);
                retried(retry, () -> s.disconnect(nobody));
            }));
        } else {
            String second = transport.equals("tcp") ? "tcp://127.0.0.1:*" : "inproc://option-calls-second";
            calls.add(new Call("sendHwm", () -> check("sendHwm", s.sendHwm(), h -> h == 0)));
            calls.add(new Call("setIntOption(ZMQ_SNDHWM)", () -> s.setIntOption(LibZmq.ZMQ_SNDHWM, 0)));
            calls.add(new Call("bind+unbind", () -> {
                s.bind(second);
                String[] bound = {second};
                if (transport.equals("tcp")) {
                    retried(retry, () -> bound[0] = s.lastEndpoint());
                }
                retried(retry, () -> s.unbind(bound[0]));
            }));
        }
        calls.add(new Call("monitor+close", () -> {
            SocketMonitor m = s.monitor(MonitorEvent.Type.ALL);
            retried(retry, m::close);
        }));
        return calls;
    }

    /** Makes {@code r}, with {@code retry} until it is not refused for the other thread's call. */
    private static void retried(boolean retry, Runnable r) {
        for (;;) {
            try {
                r.run();
                return;
            } catch (IllegalStateException e) {
                if (!retry || !e.getMessage().contains("two threads at once")) {
                    throw e;
                }
                Thread.onSpinWait();
            }
        }
    }

    private static <T> void check(String what, T value, Predicate<T> right) {
        if (!right.test(value)) {
            throw new AssertionError(what + " read " + value + " beside traffic");
        }
    }
}
