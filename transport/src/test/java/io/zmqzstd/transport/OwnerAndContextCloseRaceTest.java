package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Sockets' own {@link ZmqSocket#close()} racing their context's {@link ZmqContext#close()}, both of
 * which may run a socket's native close: over tcp, ipc and inproc, with calls blocked in receives
 * and in sends at the high-water mark, with socket monitors (one receive blocked on each) closed on
 * threads of their own, with pooled zero-copy messages queued in libzmq, with a {@link ZmqProxy}
 * running, and with {@link ZmqContext#shutdown()} first or not. Each round checks that every close
 * ends within {@value #ROUND_LIMIT_MS} ms, that libzmq has every socket closed, that every call
 * ended with ETERM or "closed" and nothing else (a socket freed under a call gives EFAULT,
 * ENOTSOCK, or an abort), and that the pool has every buffer back. It runs in a child JVM, so that
 * an abort in libzmq fails the test instead of ending the test run.
 */
class OwnerAndContextCloseRaceTest {

    private static final long ROUND_LIMIT_MS = 20_000;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void socketsClosedByTheirOwnersAndTheirContextAtOnceAreClosedOnceWithNothingLeft() throws Exception {
        String rounds = System.getProperty("closeRace.rounds", "60");
        String seed = System.getProperty("closeRace.seed", Long.toString(System.nanoTime()));
        String out = ForkedJvm.run(Duration.ofMinutes(2), OwnerAndContextCloseRaceTest.class, List.of(), rounds, seed);
        assertTrue(out.contains("rounds=" + rounds + " ok"), "the child did not finish its rounds: " + out);
    }

    /** The child: {@code args[0]} rounds from seed {@code args[1]}. */
    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        long seed = Long.parseLong(args[1]);
        Path dir = Files.createTempDirectory("close-race");
        NativeBufferPool pool = new NativeBufferPool();
        try {
            for (int r = 0; r < rounds; r++) {
                new Round(pool, new Random(seed + r), dir, r).run();
            }
        } catch (Throwable t) {
            System.out.println("seed=" + seed);
            throw t;
        }
        pool.close();
        System.out.println("seed=" + seed + " rounds=" + rounds + " ok");
        System.exit(0);
    }

    /** One context, its sockets and the threads that use and close them. */
    private static final class Round {
        private final NativeBufferPool pool;
        private final Random rnd;
        private final Path dir;
        private final int round;
        private final List<ZmqSocket> sockets = new ArrayList<>();
        private final List<SocketMonitor> monitors = new ArrayList<>();
        private final List<Thread> workers = new ArrayList<>();
        private final List<Thread> closers = new ArrayList<>();
        private final Queue<String> failures = new ConcurrentLinkedQueue<>();
        private final CountDownLatch go = new CountDownLatch(1);
        private final StringBuilder plan = new StringBuilder();

        Round(NativeBufferPool pool, Random rnd, Path dir, int round) {
            this.pool = pool;
            this.rnd = rnd;
            this.dir = dir;
            this.round = round;
        }

        void run() throws Exception {
            ZmqContext ctx = ZmqContext.builder().bufferPool(pool).defaultLinger(Duration.ofMillis(rnd.nextInt(3) * 50)).build();
            int pairs = 2 + rnd.nextInt(4);
            for (int i = 0; i < pairs; i++) {
                pair(ctx, i);
            }
            ZmqProxy proxy = rnd.nextInt(3) == 0 ? proxy(ctx) : null;
            settle();
            boolean shutdownFirst = rnd.nextInt(4) == 0;
            plan.append(" shutdownFirst=").append(shutdownFirst);
            if (shutdownFirst) {
                ctx.shutdown();
            }
            for (ZmqSocket s : sockets) {
                if (rnd.nextInt(4) != 0) {
                    closer("close-" + s, s::close);
                }
            }
            for (SocketMonitor m : monitors) {
                if (rnd.nextBoolean()) {
                    closer("close-" + m, () -> {
                        try {
                            m.close();
                        } catch (IllegalStateException documented) {
                            // another thread is inside a call on the monitored socket: the monitor stays open
                        }
                    });
                }
            }
            if (proxy != null) {
                closer("close-proxy", proxy::close);
            }
            closer("close-context", ctx::close);
            if (rnd.nextInt(3) == 0) {
                plan.append(" secondContextClose");
                closer("close-context-again", ctx::close);
            }
            go.countDown();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ROUND_LIMIT_MS);
            List<Thread> all = new ArrayList<>(closers);
            all.addAll(workers);
            for (Thread t : all) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                if (t.isAlive()) {
                    hung(t);
                }
            }
            for (ZmqSocket s : sockets) {
                if (!s.isClosed() || !s.nativeClosed()) {
                    failures.add("socket not closed in libzmq: " + s + " nativeClosed=" + s.nativeClosed());
                }
            }
            for (SocketMonitor m : monitors) {
                m.close(); // the context closed its socket: closes only what is left
            }
            if (proxy != null) {
                proxy.close();
            }
            long outstanding = pool.outstanding();
            if (outstanding != 0) {
                failures.add("pool outstanding=" + outstanding + " after the context's close");
            }
            if (!failures.isEmpty()) {
                throw new AssertionError("round " + round + plan + ": " + failures);
            }
        }

        /** A PUSH and a PULL over one transport, with what this round puts on them. */
        private void pair(ZmqContext ctx, int i) {
            ZmqSocket pull = socket(ctx, SocketType.PULL);
            ZmqSocket push = socket(ctx, SocketType.PUSH);
            String transport = List.of("tcp", "ipc", "inproc").get(rnd.nextInt(3));
            String endpoint = switch (transport) {
                case "tcp" -> "tcp://127.0.0.1:*";
                case "ipc" -> "ipc://" + dir.resolve("r" + round + "-" + i + ".sock");
                default -> "inproc://close-race-" + round + "-" + i;
            };
            pull.receiveHwm(2);
            push.sendHwm(2);
            pull.bind(endpoint);
            push.connect(transport.equals("tcp") ? pull.lastEndpoint() : endpoint);
            plan.append(" [").append(transport);
            if (rnd.nextBoolean()) {
                monitor(push);
            }
            if (rnd.nextBoolean()) {
                monitor(pull);
            }
            switch (rnd.nextInt(4)) {
                case 0 -> {
                    plan.append(" receive");
                    worker("receive-" + i, () -> {
                        try {
                            for (;;) {
                                pull.receiveBytes(0); // no timeout: only the close ends it
                            }
                        } finally {
                            pull.close(); // the usual ending of a receive loop, racing the context's close of the socket
                        }
                    });
                }
                case 1 -> {
                    plan.append(" receiveMessage");
                    worker("receive-message-" + i, () -> {
                        try (ZmqMessage msg = new ZmqMessage()) { // holds the last frame, a pooled buffer over inproc
                            for (;;) {
                                pull.receive(msg, 0);
                            }
                        }
                    });
                }
                case 2 -> {
                    plan.append(" poll");
                    worker("poll-" + i, () -> {
                        try (ZmqPoller poller = new ZmqPoller(2)) {
                            poller.register(pull, ZmqPoller.POLLIN);
                            for (;;) {
                                poller.poll(-1); // no timeout: only the close ends it
                                pull.receiveBytes(ZmqSocket.DONTWAIT);
                            }
                        }
                    });
                }
                default -> plan.append(" idle");
            }
            if (rnd.nextInt(3) != 0) {
                plan.append(" sendPooled");
                worker("send-" + i, () -> sendPooledUntilClosed(push, 16384));
            }
            plan.append(']');
        }

        private ZmqSocket socket(ZmqContext ctx, SocketType type) {
            ZmqSocket s = ctx.socket(type);
            sockets.add(s);
            return s;
        }

        /** A monitor with a receive blocked on it for long on a thread of its own. */
        private void monitor(ZmqSocket s) {
            SocketMonitor m = s.monitor(MonitorEvent.Type.ALL);
            monitors.add(m);
            plan.append(" monitor");
            worker("monitor-" + s, () -> {
                for (;;) {
                    m.receive(Duration.ofSeconds(60));
                }
            });
        }

        /** A running proxy from an inproc PULL to a PUSH, fed by a PUSH and drained by nobody. */
        private ZmqProxy proxy(ZmqContext ctx) {
            ZmqSocket front = socket(ctx, SocketType.PULL);
            ZmqSocket back = socket(ctx, SocketType.PUSH);
            ZmqSocket feed = socket(ctx, SocketType.PUSH);
            ZmqSocket drain = socket(ctx, SocketType.PULL);
            front.bind("inproc://close-race-front-" + round);
            back.bind("inproc://close-race-back-" + round);
            feed.connect("inproc://close-race-front-" + round);
            drain.connect("inproc://close-race-back-" + round);
            drain.receiveHwm(1);
            ZmqProxy proxy = new ZmqProxy(front, back, null);
            plan.append(" proxy");
            worker("proxy", proxy::run);
            worker("proxy-feed", () -> sendPooledUntilClosed(feed, 4096));
            return proxy;
        }

        /** Zero-copy sends of pooled buffers, blocking at the high-water mark, until the close ends a call. */
        private void sendPooledUntilClosed(ZmqSocket s, int bytes) {
            for (;;) {
                PooledBuffer b = pool.rent(bytes);
                try {
                    b.segment().fill((byte) 7);
                    if (!s.sendPooled(b, bytes, 0)) {
                        b.release();
                    }
                } catch (RuntimeException e) {
                    b.release(); // a failed send leaves the buffer the caller's
                    throw e;
                }
            }
        }

        /** Lets the workers reach their blocking calls, more or less. */
        private void settle() throws InterruptedException {
            Thread.sleep(rnd.nextInt(30));
        }

        /** A thread using a socket until the close ends its call: with ETERM or "closed", nothing else. */
        private void worker(String name, Runnable body) {
            Thread t = Thread.ofPlatform().daemon().name(name).unstarted(() -> {
                try {
                    body.run();
                } catch (ZmqException e) {
                    if (!e.isContextTerminated()) {
                        failures.add(name + ": " + e);
                    }
                } catch (IllegalStateException e) {
                    String m = String.valueOf(e.getMessage());
                    // "closing it": a monitor's receive begun while its close (or its socket's) holds it, as documented;
                    // "two threads at once" naming a monitor's closer: a call begun on the socket while the monitor's
                    // close, itself a call on that socket (README, monitors: "Threading"), was inside it
                    boolean besideMonitorClose = m.contains("two threads at once") && m.contains("in a call on thread=close-SocketMonitor");
                    if (!m.contains("closed") && !m.contains("closing it") && !besideMonitorClose) {
                        failures.add(name + ": " + e);
                    }
                } catch (Throwable e) {
                    failures.add(name + ": " + e);
                }
            });
            workers.add(t);
            t.start();
        }

        /** A thread that runs {@code close} once the round says go, after a short random delay. */
        private void closer(String name, Runnable close) {
            int spins = rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(20_000);
            Thread t = Thread.ofPlatform().daemon().name(name).unstarted(() -> {
                try {
                    go.await();
                    for (int i = 0; i < spins; i++) {
                        Thread.onSpinWait();
                    }
                    close.run();
                } catch (Throwable e) {
                    failures.add(name + ": " + e);
                }
            });
            closers.add(t);
            t.start();
        }

        private void hung(Thread t) {
            StringBuilder dump = new StringBuilder("HUNG round " + round + plan + ": " + t.getName() + " still running after "
                    + ROUND_LIMIT_MS + " ms; failures=" + failures + "\n");
            for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                dump.append(e.getKey()).append(' ').append(e.getKey().getState()).append('\n');
                for (StackTraceElement f : e.getValue()) {
                    dump.append("    at ").append(f).append('\n');
                }
            }
            for (ZmqSocket s : sockets) {
                dump.append(s).append(" nativeClosed=").append(s.nativeClosed()).append(" inCall=").append(s.inCall()).append('\n');
            }
            System.out.println(dump);
            System.out.flush();
            Runtime.getRuntime().halt(3);
        }
    }
}
