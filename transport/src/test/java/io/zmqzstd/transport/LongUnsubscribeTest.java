package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import io.zmqzstd.transport.internal.LibZmq;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ZmqSocket#unsubscribe(byte[])} takes every prefix its subscribe takes, up to
 * {@link ZmqSocket#MAX_SUBSCRIPTION_BYTES}. libzmq 4.3.4 removes a subscription by recursion, one
 * native frame per byte of the prefix, on the calling thread: a 16 KiB prefix overran a 1 MiB Java
 * thread stack and the JVM died of SIGSEGV (exit code 139, nothing printed after "subscribed"), and
 * the longest prefix taken now, 4 KiB, overruns a 256 KiB one. Each check runs in a child JVM
 * ({@code -Xss256k} for the unsubscribes), the {@link #main} below, so that a crash fails the test
 * instead of the test run.
 */
class LongUnsubscribeTest {

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1025, ZmqSocket.MAX_SUBSCRIPTION_BYTES})
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldRemoveALongSubscriptionWithoutOverrunningTheCallersStack(int prefixBytes) throws Exception {
        String out = ForkedJvm.run(LongUnsubscribeTest.class, List.of("-Xss256k"), "unsubscribe", Integer.toString(prefixBytes));
        assertTrue(out.contains("subscribed"), "the child did not get as far as the subscribe: " + out);
        assertTrue(out.contains("after unsubscribe, first received: end"),
                "the unsubscribe did not stop the prefix's messages, or the child died in it: " + out);
    }

    /**
     * libzmq frees a SUB socket's subscriptions at its close by the same recursion, on its reaper
     * thread (8 MiB of stack here): a 256 KiB subscription, taken until 2026-11-27, made the child
     * die of SIGSEGV (exit code 139) once the socket was closed. The longest prefix taken now,
     * {@link ZmqSocket#MAX_SUBSCRIPTION_BYTES}, is closed without an unsubscribe in the same child.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldRefuseASubscriptionTooLongForTheCloseToFree() throws Exception {
        String out = ForkedJvm.run(LongUnsubscribeTest.class, List.of(), "close");
        assertTrue(out.contains("refused: subscribe prefix must be at most 4096 bytes: length=262144 (libzmq frees a SUB"
                + " socket's subscriptions by recursion"), out);
        assertTrue(out.contains("refused: unsubscribe prefix must be at most 4096 bytes: length=4097"), out);
        assertTrue(out.contains("closed with the longest subscription"), out);
    }

    /**
     * A subscription from a peer, longer than a local one may be, reaches a proxy's XPUB over tcp:
     * the XPUB starts with {@link ZmqSocket#XPUB_DEFAULT_MAX_MESSAGE_BYTES} and drops that peer, and
     * the proxy forwards on. Until 2026-11-27 the XPUB took it and forwarded it, and when the peer
     * went, libzmq's unsubscription of it was removed by recursion on the proxy's thread, whose
     * 1 MiB stack 20,000 bytes overran: the child died of SIGSEGV (exit code 139) before
     * "forwarded" (checked with the XPUB's limit set back to -1).
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldDropAPeerWhoseSubscriptionIsLongerThanALocalOneAndForwardOn() throws Exception {
        String out = ForkedJvm.run(LongUnsubscribeTest.class, List.of("-Xss1m"), "proxy", "20000");
        assertTrue(out.contains("xpub limit 4097"), out);
        assertTrue(out.contains("long subscriber disconnected"), out);
        assertTrue(out.contains("forwarded: t-probe"), "the proxy died or stopped forwarding: " + out);
        assertTrue(out.contains("proxy closed"), out);
    }

    /**
     * An XSUB socket subscribes by sending: a byte 1 (0 to cancel), then the prefix, which libzmq
     * takes into the same trie as a SUB's. Each send form refuses one whose prefix is longer than
     * {@link ZmqSocket#MAX_SUBSCRIPTION_BYTES}, before anything is sent; the longest allowed and a
     * long frame that is no subscription go out, and the socket goes on subscribing and receiving.
     * Until 2026-11-27 the sends took them: a 200,000-byte subscription made the child die of
     * SIGSEGV (exit code 139) when its context closed, after "sent".
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldRefuseAnXsubSubscriptionMessageTooLongForTheCloseToFree() throws Exception {
        String out = ForkedJvm.run(LongUnsubscribeTest.class, List.of(), "xsub");
        for (String form : List.of("byte[]", "byte[] range", "native segment", "heap segment", "message", "pooled")) {
            for (int length : List.of(ZmqSocket.MAX_SUBSCRIPTION_BYTES + 2, 200_000)) {
                assertTrue(out.contains("refused " + form + " " + length + ": XSUB subscription message must be at most 4097"
                        + " bytes (a byte 1, then a prefix of at most 4096): length=" + length + " (libzmq keeps an XSUB"
                        + " socket's subscriptions in a trie"), form + " " + length + ": " + out);
            }
        }
        assertTrue(out.contains("refused unsubscription: XSUB unsubscription message must be at most 4097 bytes (a byte 0,"
                + " then a prefix of at most 4096): length=4098"), out);
        assertTrue(out.contains("message kept: 200000 bytes"), "a refused message send must leave the message as it was: " + out);
        assertTrue(out.contains("pool outstanding after the refused sends: 0"), out);
        assertTrue(out.contains("sent: longest subscription, 200000-byte frame upstream"), out);
        assertTrue(out.contains("received: t-probe"), "the XSUB stopped subscribing or receiving after a refusal: " + out);
        assertTrue(out.contains("closed with the longest XSUB subscription"), out);
    }

    /**
     * The child, {@code unsubscribe N}: SUB subscribed to a prefix of {@code args[0]} zero bytes and to "end", over inproc
     * from a PUB; once a message with the prefix arrived, it unsubscribes the prefix on the main
     * thread and checks that of a message with the prefix and then "end" only "end" arrives (the
     * SUB filters by its own subscriptions, whatever the PUB has yet to learn).
     */
    public static void main(String[] args) {
        if (args[0].equals("close")) {
            closeWithLongSubscriptions();
            return;
        }
        if (args[0].equals("xsub")) {
            xsubWithLongSubscriptionMessages();
            return;
        }
        if (args[0].equals("proxy")) {
            proxyWithALongPeerSubscription(Integer.parseInt(args[1]));
            return;
        }
        byte[] prefix = new byte[Integer.parseInt(args[1])];
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

    /**
     * The child, {@code proxy N}: an XSUB/XPUB ZmqProxy over tcp on a thread of its own; a peer
     * XSUB in another context sends the XPUB a subscription of N bytes and goes, then a SUB
     * subscribed to "t" gets a PUB's message through the proxy.
     */
    private static void proxyWithALongPeerSubscription(int prefixBytes) {
        try (ZmqContext ctx = new ZmqContext(); ZmqContext peers = new ZmqContext()) {
            ZmqSocket xsub = ctx.socket(SocketType.XSUB);
            ZmqSocket xpub = ctx.socket(SocketType.XPUB);
            System.out.println("xpub limit " + xpub.maxMessageSize());
            xsub.bind("tcp://127.0.0.1:*");
            xpub.bind("tcp://127.0.0.1:*");
            String frontend = xsub.lastEndpoint();
            String backend = xpub.lastEndpoint(); // read before the proxy's thread is in its calls on them
            try (SocketMonitor monitor = xpub.monitor(EnumSet.of(MonitorEvent.Type.DISCONNECTED));
                    ZmqProxy proxy = new ZmqProxy(xsub, xpub, null)) {
                Thread forwarder = Thread.ofPlatform().name("proxy").start(proxy::run);
                ZmqSocket longSubscriber = peers.socket(SocketType.XSUB);
                longSubscriber.lingerMs(5000); // the subscription leaves before the close does
                longSubscriber.connect(backend);
                // as another binding's XSUB would (pyzmq's, in the probe above): this one refuses it
                MemorySegment subscription = Arena.global().allocate(1 + prefixBytes);
                subscription.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
                zmqSend(longSubscriber, subscription);
                longSubscriber.close();
                MonitorEvent gone = monitor.receive(Duration.ofSeconds(30));
                System.out.println(gone != null ? "long subscriber disconnected" : "no disconnect");
                // the XPUB hands the proxy what it learnt of that peer before this SUB's subscription
                ZmqSocket sub = peers.socket(SocketType.SUB);
                ZmqSocket pub = peers.socket(SocketType.PUB);
                sub.subscribe("t");
                sub.connect(backend);
                pub.connect(frontend);
                sub.receiveTimeoutMs(20);
                String got = null;
                for (int i = 0; i < 1500 && got == null; i++) {
                    pub.send("t-probe".getBytes(StandardCharsets.UTF_8), 0);
                    got = sub.receiveString(0);
                }
                System.out.println("forwarded: " + got);
                proxy.terminate();
                forwarder.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
        System.out.println("proxy closed");
    }

    /** zmq_send of all of {@code frame} straight through libzmq, past the checks of {@link ZmqSocket#send}. */
    private static void zmqSend(ZmqSocket socket, MemorySegment frame) {
        int rc;
        try {
            rc = (int) LibZmq.zmq_send_fast.invokeExact(socket.handle(), frame.address(),
                    frame.byteSize(), 0);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        if (rc != frame.byteSize()) {
            throw new AssertionError("zmq_send of " + frame.byteSize() + " bytes returned " + rc);
        }
    }

    /**
     * The child, {@code xsub}: an XSUB connected to a PUB over inproc tries each send form with a
     * subscription message of 4,098 and of 200,000 bytes (each refusal printed), then sends the
     * longest subscription, a long frame that is no subscription, and a subscription to "t", and
     * receives the PUB's "t-probe".
     */
    private static void xsubWithLongSubscriptionMessages() {
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined();
                ZmqMessage message = new ZmqMessage()) {
            ZmqSocket pub = ctx.socket(SocketType.PUB);
            ZmqSocket xsub = ctx.socket(SocketType.XSUB);
            pub.bind("inproc://xsub-long");
            xsub.connect("inproc://xsub-long");
            NativeBufferPool pool = ctx.bufferPool();
            for (int length : List.of(ZmqSocket.MAX_SUBSCRIPTION_BYTES + 2, 200_000)) {
                byte[] bytes = new byte[length];
                bytes[0] = 1;
                byte[] padded = new byte[length + 2];
                padded[1] = 1;
                MemorySegment nativeBytes = arena.allocate(length);
                nativeBytes.copyFrom(MemorySegment.ofArray(bytes));
                message.set(nativeBytes);
                PooledBuffer buffer = pool.rent(length);
                buffer.segment().copyFrom(MemorySegment.ofArray(bytes));
                Map<String, Runnable> forms = new LinkedHashMap<>();
                forms.put("byte[]", () -> xsub.send(bytes, 0));
                forms.put("byte[] range", () -> xsub.send(padded, 1, length, 0));
                forms.put("native segment", () -> xsub.send(nativeBytes, 0, length, 0));
                forms.put("heap segment", () -> xsub.send(MemorySegment.ofArray(padded), 1, length, 0));
                forms.put("message", () -> xsub.send(message, 0));
                forms.put("pooled", () -> xsub.sendPooled(buffer, length, 0));
                forms.forEach((form, send) -> {
                    try {
                        send.run();
                        System.out.println("sent " + form + " " + length);
                    } catch (IllegalArgumentException e) {
                        System.out.println("refused " + form + " " + length + ": " + e.getMessage());
                    }
                });
                System.out.println("message kept: " + message.size() + " bytes");
                if (buffer.isRented()) {
                    buffer.release();
                }
            }
            System.out.println("pool outstanding after the refused sends: " + pool.outstanding());
            byte[] cancel = new byte[ZmqSocket.MAX_SUBSCRIPTION_BYTES + 2];
            try {
                xsub.send(cancel, 0);
                System.out.println("sent unsubscription");
            } catch (IllegalArgumentException e) {
                System.out.println("refused unsubscription: " + e.getMessage());
            }
            byte[] longest = new byte[ZmqSocket.MAX_SUBSCRIPTION_BYTES + 1];
            longest[0] = 1;
            xsub.send(longest, 0);
            byte[] upstream = new byte[200_000];
            upstream[0] = 2;
            xsub.send(upstream, 0);
            System.out.println("sent: longest subscription, 200000-byte frame upstream");
            xsub.send(new byte[] {1, 't'}, 0);
            xsub.receiveTimeoutMs(20);
            String got = null;
            for (int i = 0; i < 1500 && got == null; i++) { // the PUB learns the subscription from its pipe
                pub.send("t-probe".getBytes(StandardCharsets.UTF_8), 0);
                got = xsub.receiveString(0);
            }
            System.out.println("received: " + got);
            xsub.close();
            pub.close();
        }
        System.out.println("closed with the longest XSUB subscription");
    }

    /** The child, {@code close}: refused prefixes (each printed), then the longest taken closed with the socket. */
    private static void closeWithLongSubscriptions() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket sub = ctx.socket(SocketType.SUB);
            for (Runnable call : List.<Runnable>of(() -> sub.subscribe(new byte[256 << 10]),
                    () -> sub.unsubscribe(new byte[ZmqSocket.MAX_SUBSCRIPTION_BYTES + 1]))) {
                try {
                    call.run();
                    System.out.println("taken");
                } catch (IllegalArgumentException e) {
                    System.out.println("refused: " + e.getMessage());
                }
            }
            sub.subscribe(new byte[ZmqSocket.MAX_SUBSCRIPTION_BYTES]);
            sub.close();
        }
        System.out.println("closed with the longest subscription");
    }
}
