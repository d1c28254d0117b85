package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A socket with conflate on, fed multipart messages by a peer: libzmq 4.3.4 keeps one frame, not
 * one message, in a conflating pipe, and when a receive gets a part with more to follow its fair
 * queue aborts the process on the next receive that finds the rest gone ("Assertion failed: !_more
 * (src/fq.cpp:112)"). A SUB with conflate on under a PUB's stream of topic and payload parts ended
 * the JVM within seconds, three runs of three (found by reliability's MarketDataJourneyTest through
 * the pipeline README's conflating SUB). Now the receive after such a part is refused, naming
 * why, and the process lives; a proxy refuses a conflating socket.
 */
class ConflatedMultipartTest {

    private static final String REFUSAL = "has conflate on and received a part with more to follow";

    /** In a child JVM, which the old code's abort ended (exit 134). */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void shouldRefuseTheReceiveAfterAPartWithMoreInsteadOfAborting() throws Exception {
        String out = ForkedJvm.run(ConflatedMultipartTest.class, List.of("-Xmx128m"));
        assertTrue(out.contains("REFUSED "), "no refusal in: " + out);
        assertTrue(out.contains(REFUSAL), out);
        assertTrue(out.contains("AGAIN refused"), "the refusal must hold for the next receive too: " + out);
        System.out.println(out.strip());
    }

    /**
     * The child: a PUB sends two-part messages (topic, then 200 B) for up to 20 s to a SUB with
     * conflate on, subscribed to everything, over tcp, which receives with a 100 ms timeout until a
     * receive is refused; prints the refusal and whether the next one is refused too.
     */
    public static void main(String[] args) throws Exception {
        try (ZmqContext ctx = new ZmqContext(); ZmqMessage msg = new ZmqMessage()) {
            ZmqSocket pub = ctx.socket(SocketType.PUB);
            pub.bind("tcp://127.0.0.1:*");
            ZmqSocket sub = ctx.socket(SocketType.SUB);
            sub.conflate(true);
            sub.subscribe(new byte[0]);
            sub.receiveTimeoutMs(100);
            sub.connect(pub.lastEndpoint());
            AtomicBoolean stop = new AtomicBoolean();
            Thread publisher = Thread.ofPlatform().start(() -> {
                byte[] topic = "quotes".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                byte[] body = new byte[200];
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!stop.get() && System.nanoTime() < end) {
                    pub.send(topic, ZmqSocket.SNDMORE);
                    pub.send(body, 0);
                }
            });
            long frames = 0;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            try {
                while (System.nanoTime() < end) {
                    if (sub.receive(msg, 0)) {
                        frames++;
                    }
                }
                System.out.println("NO REFUSAL after " + frames + " frames");
            } catch (IllegalStateException e) {
                System.out.println("REFUSED after " + frames + " frames: " + e.getMessage());
                try {
                    sub.receive(msg, ZmqSocket.DONTWAIT);
                    System.out.println("AGAIN received");
                } catch (IllegalStateException again) {
                    System.out.println(again.getMessage().contains(REFUSAL) ? "AGAIN refused" : "AGAIN " + again);
                }
            } finally {
                stop.set(true);
                publisher.join();
            }
            sub.close();
        }
    }

    @Test
    void shouldRefuseAConflatingSocketInAProxyNamingIt() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket xsub = ctx.socket(SocketType.XSUB);
            ZmqSocket pub = ctx.socket(SocketType.PUB);
            pub.conflate(true);
            pub.bind("inproc://conflating-backend");
            xsub.bind("inproc://proxy-frontend");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> new ZmqProxy(xsub, pub, null));
            assertTrue(e.getMessage().startsWith("a proxy forwards whole messages, multipart ones included, and the backend"
                    + " was bound or connected with conflate on: type=PUB"), e.getMessage());
            assertFalse(xsub.isClosed(), "the sockets stay the caller's");

            ZmqSocket plainPub = ctx.socket(SocketType.PUB);
            plainPub.bind("inproc://plain-backend");
            try (ZmqProxy proxy = new ZmqProxy(xsub, plainPub, null)) {
                assertFalse(proxy.isRunning());
            }
        }
    }

    /** Single-part messages on a conflating socket are untouched: the last one is kept and received. */
    @Test
    void shouldStillReceiveSinglePartMessagesOnAConflatingSocket() {
        try (ZmqContext ctx = new ZmqContext(); ZmqMessage msg = new ZmqMessage()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.conflate(true);
            pull.bind("tcp://127.0.0.1:*");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(pull.lastEndpoint());
            for (int i = 0; i < 5; i++) {
                assertTrue(push.send(new byte[] {(byte) i}, 0));
            }
            pull.receiveTimeoutMs(5000);
            byte last = -1;
            while (last != 4) {
                assertTrue(pull.receive(msg, 0), "the last message kept");
                assertFalse(msg.hasMore());
                last = msg.toByteArray()[0];
            }
            assertEquals(4, last);
            assertFalse(pull.receive(msg, ZmqSocket.DONTWAIT), "nothing more kept");
        }
    }
}
