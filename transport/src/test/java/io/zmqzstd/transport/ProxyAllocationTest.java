package io.zmqzstd.transport;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ZmqProxy}'s loop allocates nothing on the Java heap per message, on its own thread, the
 * only one measured: rounds of {@value #ROUND} messages through a PULL/PUSH proxy after a warm-up,
 * until a round comes under 1 byte per message (the JIT may compile the loop late on a loaded
 * machine; a per-message allocation shows in every round). High-water marks of 100 make the proxy
 * wait for room and for messages over and over, so the ends of bursts (a receive that finds nothing,
 * a destination that is full) are measured with the forwarding. With a capture: a PUB nobody
 * subscribes to, so each frame is copied and sent there (and dropped by the PUB).
 */
class ProxyAllocationTest {

    private static final int WARMUP = 50_000;
    private static final int ROUND = 100_000;
    private static final int MAX_ROUNDS = 12;

    @ParameterizedTest(name = "{0} bytes over {1}, capture {2}")
    @CsvSource({"64, inproc, false", "1024, tcp, false", "64, inproc, true"})
    @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldAllocateNothingPerMessageOnTheProxyThread(int size, String transport, boolean captured) throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket frontend = ctx.socket(SocketType.PULL);
            ZmqSocket backend = ctx.socket(SocketType.PUSH);
            ZmqSocket producer = ctx.socket(SocketType.PUSH);
            ZmqSocket consumer = ctx.socket(SocketType.PULL);
            for (ZmqSocket s : new ZmqSocket[] {frontend, backend, producer, consumer}) {
                s.lingerMs(0);
                s.sendHwm(100);
                s.receiveHwm(100);
            }
            consumer.receiveTimeoutMs(10_000);
            producer.connect(Endpoints.bindAny(frontend, transport));
            consumer.connect(Endpoints.bindAny(backend, transport));
            int total = WARMUP + MAX_ROUNDS * ROUND;
            ZmqSocket capture = captured ? ctx.socket(SocketType.PUB) : null;
            if (capture != null) {
                capture.lingerMs(0);
                Endpoints.bindAny(capture, "inproc");
            }
            try (ZmqProxy proxy = new ZmqProxy(frontend, backend, capture)) {
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                Thread proxyThread = Thread.ofPlatform().name("proxy").start(() -> {
                    try {
                        proxy.run();
                    } catch (Throwable t) {
                        thrown.set(t);
                    }
                });
                CompletableFuture<Void> sending = BlockedCalls.async(() -> {
                    byte[] m = new byte[size];
                    for (int i = 0; i < total; i++) {
                        m[0] = (byte) i;
                        if (!producer.send(m, 0)) {
                            return; // the receiver is done: the context is shut down below
                        }
                    }
                });
                byte[] into = new byte[size];
                long[] rounds = new long[MAX_ROUNDS];
                int measured = 0;
                long before = 0;
                for (int i = 0; i < total; i++) {
                    if (i >= WARMUP && (i - WARMUP) % ROUND == 0) {
                        long now = mx.getThreadAllocatedBytes(proxyThread.threadId());
                        if (i > WARMUP) {
                            rounds[measured++] = now - before;
                            if (rounds[measured - 1] < ROUND) {
                                break;
                            }
                        }
                        before = now;
                    }
                    int n = consumer.receive(into, 0);
                    assertEquals(size, n, "message " + i + ": " + thrown.get());
                    assertEquals((byte) i, into[0], "message " + i + " out of order");
                }
                long[] recorded = Arrays.copyOf(rounds, measured);
                assertTrue(measured > 0 && recorded[measured - 1] < ROUND,
                        "the proxy's thread allocated in every round of " + ROUND + " messages, bytes: " + Arrays.toString(recorded));
                proxy.terminate();
                proxyThread.join(10_000);
                assertNull(thrown.get());
                ctx.shutdown(); // ends the producer's blocked send
                try {
                    sending.get(10, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    assertTrue(e.getCause() instanceof ZmqException z && z.isContextTerminated(), e.getCause()::toString);
                }
            }
        }
    }
}
