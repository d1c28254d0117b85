package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ZmqSocket#unsubscribe(byte[])} takes a prefix of any length, as its subscribe does. libzmq
 * 4.3.4 removes a subscription by recursion, one native frame per byte of the prefix, on the
 * calling thread: a 16 KiB prefix overran a 1 MiB Java thread stack and the JVM died of SIGSEGV
 * (exit code 139, nothing printed after "subscribed"). Each check runs in a child JVM with
 * that stack ({@code -Xss1m}), the {@link #main} below, so that a crash fails the test instead of the
 * test run.
 */
class LongUnsubscribeTest {

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1025, 16 << 10, 64 << 10})
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldRemoveALongSubscriptionWithoutOverrunningTheCallersStack(int prefixBytes) throws Exception {
        String out = ForkedJvm.run(LongUnsubscribeTest.class, List.of("-Xss1m"), Integer.toString(prefixBytes));
        assertTrue(out.contains("subscribed"), "the child did not get as far as the subscribe: " + out);
        assertTrue(out.contains("after unsubscribe, first received: end"),
                "the unsubscribe did not stop the prefix's messages, or the child died in it: " + out);
    }

    /**
     * The child: SUB subscribed to a prefix of {@code args[0]} zero bytes and to "end", over inproc
     * from a PUB; once a message with the prefix arrived, it unsubscribes the prefix on the main
     * thread and checks that of a message with the prefix and then "end" only "end" arrives (the
     * SUB filters by its own subscriptions, whatever the PUB has yet to learn).
     */
    public static void main(String[] args) {
        byte[] prefix = new byte[Integer.parseInt(args[0])];
        byte[] matching = Arrays.copyOf(prefix, prefix.length + 1);
        byte[] end = "end".getBytes(StandardCharsets.UTF_8);
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pub = ctx.socket(SocketType.PUB);
            ZmqSocket sub = ctx.socket(SocketType.SUB);
            pub.bind("inproc://long-unsubscribe");
            sub.subscribe(prefix);
            sub.subscribe(end);
            sub.connect("inproc://long-unsubscribe");
            System.out.println("subscribed");
            sub.receiveTimeoutMs(50);
            byte[] got = null;
            while (got == null) { // the PUB learns the subscription as the connection is made
                pub.send(matching, 0);
                got = sub.receiveBytes(0);
            }
            assertArrayEquals(matching, got);
            sub.unsubscribe(prefix);
            pub.send(matching, 0);
            pub.send(end, 0);
            sub.receiveTimeoutMs(10_000);
            byte[] first = sub.receiveBytes(0);
            System.out.println("after unsubscribe, first received: "
                    + (first == null ? "nothing" : first.length == end.length ? new String(first, StandardCharsets.UTF_8)
                            : first.length + " bytes"));
            sub.close();
            pub.close();
        }
    }
}
