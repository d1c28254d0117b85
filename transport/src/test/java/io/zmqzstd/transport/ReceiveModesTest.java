package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.function.ToIntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The four receive strategies the benchmarks compare each deliver every message, in order. */
class ReceiveModesTest {

    private static final int N = 5000;

    private static void run(ToIntFunction<ZmqSocket[]> receiveAll) throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.receiveTimeoutMs(10_000);
            push.connect(Endpoints.bindAny(pull, "tcp"));
            Thread sender = Thread.ofPlatform().start(() -> {
                byte[] buf = new byte[64];
                for (int i = 0; i < N; i++) {
                    buf[0] = (byte) i;
                    buf[1] = (byte) (i >> 8);
                    push.send(buf, 0);
                }
            });
            assertEquals(N, receiveAll.applyAsInt(new ZmqSocket[] {pull}));
            sender.join();
        }
    }

    private static int check(ZmqMessage msg, int expected) {
        int v = (msg.data().get(ValueLayout.JAVA_BYTE, 0) & 0xFF) | ((msg.data().get(ValueLayout.JAVA_BYTE, 1) & 0xFF) << 8);
        assertEquals(expected & 0xFFFF, v);
        return expected + 1;
    }

    @Test
    void shouldDeliverEveryMessageWithBlockingReceive() throws Exception {
        run(s -> {
            int n = 0;
            try (ZmqMessage msg = new ZmqMessage()) {
                while (n < N && s[0].receive(msg, 0)) {
                    n = check(msg, n);
                }
            }
            return n;
        });
    }

    @Test
    void shouldDeliverEveryMessageWithBlockingThenDrain() throws Exception {
        run(s -> {
            int n = 0;
            try (ZmqMessage msg = new ZmqMessage()) {
                while (n < N && s[0].receive(msg, 0)) {
                    n = check(msg, n);
                    while (n < N && s[0].receive(msg, ZmqSocket.DONTWAIT)) {
                        n = check(msg, n);
                    }
                }
            }
            return n;
        });
    }

    @Test
    void shouldDeliverEveryMessageWithNonBlockingSpin() throws Exception {
        run(s -> {
            int n = 0;
            long deadline = System.nanoTime() + 20_000_000_000L;
            try (ZmqMessage msg = new ZmqMessage()) {
                while (n < N && System.nanoTime() < deadline) {
                    if (s[0].receive(msg, ZmqSocket.DONTWAIT)) {
                        n = check(msg, n);
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }
            return n;
        });
    }

    @Test
    void shouldDeliverEveryMessageWithPoller() throws Exception {
        run(s -> {
            int n = 0;
            try (ZmqMessage msg = new ZmqMessage(); ZmqPoller poller = new ZmqPoller(1)) {
                int idx = poller.register(s[0], ZmqPoller.POLLIN);
                long deadline = System.nanoTime() + 20_000_000_000L;
                while (n < N && System.nanoTime() < deadline) {
                    if (poller.poll(100) > 0 && poller.isReadable(idx)) {
                        while (n < N && s[0].receive(msg, ZmqSocket.DONTWAIT)) {
                            n = check(msg, n);
                        }
                    }
                }
            }
            return n;
        });
    }
}
