package io.zmqzstd.transport;

import io.zmqzstd.testkit.ForkedJvm;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * libzmq 4.3.4 aborts the process on a control message that is not one of its four commands (an
 * unknown, empty or over-long one: "Assertion failed: false (src/proxy.cpp:620)") and ends the run
 * on a multipart one. {@link ZmqProxy} sends only the four, single-frame; these check that no other
 * socket reaches the control channel either. In a child JVM each, since an abort would end it.
 */
class ProxyControlIntruderTest {

    /** A PAIR that connects to the control endpoint once the proxy exists is turned away (a PAIR keeps one peer). */
    @Test
    void shouldTurnAwayASocketConnectingToTheControlEndpointLater() throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(60), ProxyControlIntruderTest.class, List.of(), "after");
        assertTrue(out.contains("forwarded after the intruder, and terminated"), out);
    }

    /**
     * A socket connected to the control endpoint's name before the proxy binds it became the
     * channel's peer, and the proxy's own commands went nowhere: its "BOGUS" aborted the process
     * (the child died with "Assertion failed: false (src/proxy.cpp:620)"). Now the constructor
     * refuses, naming the endpoint.
     */
    @Test
    void shouldRefuseAControlChannelAnotherSocketTookFirst() throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(60), ProxyControlIntruderTest.class, List.of(), "before");
        assertTrue(out.contains("refused: another socket is connected to the proxy's control endpoint:"
                + " endpoint=inproc://io.zmqzstd.proxy-control-1"), out);
        assertTrue(out.contains("forwarded after the intruder, and terminated"), out);
    }

    /** The child: intruders on the first control endpoint this process gives out, then traffic, STATISTICS and TERMINATE. */
    public static void main(String[] args) throws Exception {
        boolean before = args[0].equals("before");
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket frontend = ctx.socket(SocketType.PULL);
            ZmqSocket backend = ctx.socket(SocketType.PUSH);
            ZmqSocket producer = ctx.socket(SocketType.PUSH);
            ZmqSocket consumer = ctx.socket(SocketType.PULL);
            consumer.receiveTimeoutMs(10_000);
            producer.connect(Endpoints.bindAny(frontend, "inproc"));
            consumer.connect(Endpoints.bindAny(backend, "inproc"));
            ZmqSocket intruder = ctx.socket(SocketType.PAIR);
            intruder.sendTimeoutMs(100);
            if (before) {
                intruder.connect("inproc://io.zmqzstd.proxy-control-1");
                send(intruder);
                try {
                    new ZmqProxy(frontend, backend, null).close();
                    throw new AssertionError("a proxy made over a taken control channel");
                } catch (IllegalStateException e) {
                    System.out.println("refused: " + e.getMessage());
                }
            }
            try (ZmqProxy proxy = new ZmqProxy(frontend, backend, null)) {
                if (!before) {
                    intruder.connect("inproc://io.zmqzstd.proxy-control-1");
                }
                send(intruder);
                Thread run = Thread.ofPlatform().start(proxy::run);
                producer.send("after".getBytes(StandardCharsets.US_ASCII), 0);
                String got = consumer.receiveString(0);
                if (!"after".equals(got)) {
                    throw new AssertionError("not forwarded: " + got);
                }
                if (proxy.statistics(Duration.ofSeconds(10)).orElseThrow().frontendMessagesReceived() != 1) {
                    throw new AssertionError("wrong counts");
                }
                proxy.terminate();
                run.join(10_000);
                if (run.isAlive()) {
                    throw new AssertionError("run() did not end");
                }
            }
            intruder.close();
        }
        System.out.println("forwarded after the intruder, and terminated");
    }

    /** What libzmq 4.3.4 must never read as a command: unknown, empty, over-long, multipart. */
    private static void send(ZmqSocket intruder) {
        for (byte[] b : new byte[][] {"BOGUS".getBytes(StandardCharsets.US_ASCII), new byte[0], new byte[100_000]}) {
            intruder.send(b, 0);
        }
        intruder.send("PAUSE".getBytes(StandardCharsets.US_ASCII), ZmqSocket.SNDMORE);
        intruder.send("RESUME".getBytes(StandardCharsets.US_ASCII), 0);
    }
}
