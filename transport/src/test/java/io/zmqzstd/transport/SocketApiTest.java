package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import io.zmqzstd.transport.internal.LibZmq;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Endpoints going away or long, STREAM sockets, copying receives and the library checks. */
class SocketApiTest extends ContextTestBase {

    private static boolean tryBind(ZmqSocket s, String endpoint) {
        try {
            s.bind(endpoint);
            return true;
        } catch (ZmqException addressStillInUse) {
            return false;
        }
    }

    @Test
    void shouldFreeATcpPortOnUnbind() {
        ZmqSocket first = socket(SocketType.PULL);
        first.bind("tcp://127.0.0.1:*");
        String endpoint = first.lastEndpoint();
        ZmqSocket second = socket(SocketType.PULL);
        assertFalse(tryBind(second, endpoint), "the port is taken while bound");
        first.unbind(endpoint);
        // libzmq closes the listener on its I/O thread, shortly after zmq_unbind returns
        Endpoints.await("the port to be free after unbind", () -> tryBind(second, endpoint));
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(endpoint);
        assertTrue(push.send(b("to the new owner"), 0));
        assertEquals("to the new owner", second.receiveString(0));
        assertNull(first.receiveBytes(ZmqSocket.DONTWAIT));
        ZmqException e = assertThrows(ZmqException.class, () -> first.unbind(endpoint));
        assertTrue(e.getMessage().contains("zmq_unbind(" + endpoint + ")"), e.getMessage());
    }

    @Test
    void shouldSendOnlyToPeersStillConnectedAfterDisconnect() {
        ZmqSocket kept = socket(SocketType.PULL);
        ZmqSocket dropped = socket(SocketType.PULL);
        String keptEndpoint = Endpoints.bindAny(kept, "inproc");
        String droppedEndpoint = Endpoints.bindAny(dropped, "inproc");
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(droppedEndpoint);
        push.connect(keptEndpoint);
        assertTrue(push.send(b("before"), 0)); // round robin starts with the first peer
        assertEquals("before", dropped.receiveString(0));
        push.disconnect(droppedEndpoint);
        for (int i = 0; i < 10; i++) {
            assertTrue(push.send(b("after" + i), 0));
        }
        for (int i = 0; i < 10; i++) {
            assertEquals("after" + i, kept.receiveString(0));
        }
        assertNull(dropped.receiveBytes(ZmqSocket.DONTWAIT), "a disconnected peer got a message");
        assertThrows(ZmqException.class, () -> push.disconnect(droppedEndpoint));
    }

    /**
     * Subscription prefixes may be longer than the socket's 256-byte option buffer (they were
     * refused with IllegalArgumentException); a prefix that differs only in its last byte filters.
     * A routing id over libzmq's 255-byte limit is refused by libzmq, naming the option.
     */
    @Test
    void shouldFilterOnASubscriptionPrefixLongerThanTheOptionBuffer() {
        byte[] prefix = new byte[1000];
        java.util.Arrays.fill(prefix, (byte) 'p');
        byte[] other = prefix.clone();
        other[999] = 'q';
        ZmqSocket pub = socket(SocketType.PUB);
        String ep = Endpoints.bindAny(pub, "inproc");
        ZmqSocket sub = socket(SocketType.SUB);
        sub.connect(ep);
        sub.subscribe(prefix);
        // the subscription reaches the PUB asynchronously: publish until one arrives
        byte[] got = null;
        for (int i = 0; i < 10_000 && got == null; i++) {
            assertTrue(pub.send(concat(prefix, b("first")), 0));
            got = sub.receiveBytes(ZmqSocket.DONTWAIT);
            if (got == null) {
                Thread.onSpinWait();
            }
        }
        assertArrayEquals(concat(prefix, b("first")), got);
        while (sub.receiveBytes(ZmqSocket.DONTWAIT) != null) {
            // copies of "first" published while the subscription travelled
        }
        assertTrue(pub.send(concat(other, b("filtered")), 0));
        assertTrue(pub.send(concat(prefix, b("last")), 0));
        assertArrayEquals(concat(prefix, b("last")), sub.receiveBytes(0), "the message one byte off the prefix arrived");
        sub.unsubscribe(prefix);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> socket(SocketType.DEALER).routingId("x".repeat(300).getBytes(StandardCharsets.US_ASCII)));
        assertTrue(e.getMessage().contains("ZMQ_ROUTING_ID"), e.getMessage());
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** STREAM speaks raw TCP: each frame comes with the connection's routing id, no ZMTP framing. */
    @Test
    void shouldTalkRawTcpToAPlainSocketOverStream() throws Exception {
        ZmqSocket stream = socket(SocketType.STREAM);
        int port = bindTcpPort(stream);
        try (Socket client = new Socket("127.0.0.1", port)) {
            client.setSoTimeout(5000);
            OutputStream out = client.getOutputStream();
            InputStream in = client.getInputStream();

            byte[] id = stream.receiveBytes(0); // connect notification: [id, empty]
            assertTrue(stream.hasMore());
            assertEquals(0, stream.receiveBytes(0).length);

            out.write(b("hello, raw tcp"));
            out.flush();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            while (got.size() < 14) { // TCP may deliver it in pieces
                assertArrayEquals(id, stream.receiveBytes(0));
                assertTrue(stream.hasMore());
                got.write(stream.receiveBytes(0));
            }
            assertEquals("hello, raw tcp", got.toString(StandardCharsets.UTF_8));

            assertTrue(stream.send(id, ZmqSocket.SNDMORE));
            assertTrue(stream.send(b("world"), 0));
            assertEquals("world", new String(in.readNBytes(5), StandardCharsets.UTF_8));

            assertTrue(stream.send(id, ZmqSocket.SNDMORE)); // an empty frame closes the connection
            assertTrue(stream.send(new byte[0], 0));
            // The close completes through a command handshake between the socket and its I/O
            // thread, which the socket's side only processes when the application calls into it:
            // keep calling (ZMQ_EVENTS) while waiting for the end of the stream.
            client.setSoTimeout(50);
            Endpoints.await("the connection to close", () -> {
                stream.events();
                return endOfStream(in);
            });
        }
    }

    /**
     * README "STREAM": a connect and a disconnect both arrive as [routing id, empty]: the peer that
     * closes its end is announced under the id its connect had, and the socket goes on.
     */
    @Test
    void shouldAnnounceAStreamPeersCloseAsItsRoutingIdAndAnEmptyFrame() throws Exception {
        ZmqSocket stream = socket(SocketType.STREAM);
        int port = bindTcpPort(stream);
        byte[] id;
        try (Socket client = new Socket("127.0.0.1", port)) {
            id = stream.receiveBytes(0);
            assertTrue(stream.hasMore());
            assertEquals(0, stream.receiveBytes(0).length, "the connect");
        }
        assertArrayEquals(id, stream.receiveBytes(0), "the disconnect names the connection's routing id");
        assertTrue(stream.hasMore());
        assertEquals(0, stream.receiveBytes(0).length, "the disconnect's empty frame");
        assertFalse(stream.hasMore());
        try (Socket next = new Socket("127.0.0.1", port)) {
            assertNotNull(stream.receiveBytes(0), "the socket goes on: the next connect arrives");
            assertEquals(0, stream.receiveBytes(0).length);
        }
    }

    /** Binds {@code s} to a free loopback port and returns the port. */
    private static int bindTcpPort(ZmqSocket s) {
        s.bind("tcp://127.0.0.1:*");
        String endpoint = s.lastEndpoint();
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    private static boolean endOfStream(InputStream in) {
        try {
            int b = in.read();
            assertEquals(-1, b, "no data follows the close");
            return true;
        } catch (java.net.SocketTimeoutException notYet) {
            return false;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void shouldReceiveIntoASegmentTruncatingLikeZmqRecv() {
        ZmqSocket pull = socket(SocketType.PULL);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(Endpoints.bindAny(pull, "inproc"));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(4);
            assertEquals(-1, pull.receive(dst, ZmqSocket.DONTWAIT), "would block is a return value");

            push.send(b("0123456789"), ZmqSocket.SNDMORE);
            push.send(b("ab"), 0);
            assertEquals(10, pull.receive(dst, 0), "the full size, though only 4 bytes fit");
            assertArrayEquals(b("0123"), dst.toArray(ValueLayout.JAVA_BYTE));
            assertTrue(pull.hasMore());
            dst.fill((byte) 'x');
            assertEquals(2, pull.receive(dst, 0));
            assertArrayEquals(b("abxx"), dst.toArray(ValueLayout.JAVA_BYTE));
            assertFalse(pull.hasMore());

            byte[] heap = new byte[16];
            push.send(b("heap"), 0);
            assertEquals(4, pull.receive(MemorySegment.ofArray(heap).asSlice(8), 0));
            assertEquals("heap", new String(heap, 8, 4, StandardCharsets.UTF_8));
        }
    }

    /**
     * A segment the frame could not be copied into (read-only, its arena closed, confined to
     * another thread) is refused before the receive: the frame stays queued. Checked only by the
     * copy, after the receive, the frame was taken off the queue and lost.
     */
    @Test
    void shouldRefuseASegmentItCannotWriteBeforeReceiving() throws Exception {
        ZmqSocket pull = socket(SocketType.PULL);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(Endpoints.bindAny(pull, "inproc"));
        assertTrue(push.send(b("kept"), 0));

        MemorySegment readOnly = MemorySegment.ofArray(new byte[16]).asReadOnly();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pull.receive(readOnly, 0));
        assertTrue(e.getMessage().startsWith("dst is read-only"), e.getMessage());
        MemorySegment dead;
        try (Arena closed = Arena.ofConfined()) {
            dead = closed.allocate(16);
        }
        assertThrows(IllegalStateException.class, () -> pull.receive(dead, 0));
        try (Arena other = Arena.ofConfined()) {
            MemorySegment confinedHere = other.allocate(16);
            Throwable[] seen = new Throwable[1];
            Thread t = Thread.ofPlatform().start(() -> seen[0] = catching(() -> pull.receive(confinedHere, 0)));
            t.join();
            assertTrue(seen[0] instanceof WrongThreadException, () -> "expected WrongThreadException, got " + seen[0]);
        }
        assertEquals("kept", pull.receiveString(0), "the frame is still queued");
    }

    /**
     * A native segment goes to zmq_send by raw address, past FFM's checks: one confined to another
     * thread, which its owner may free mid-call, is refused as FFM would refuse it, nothing sent.
     */
    @Test
    void shouldRefuseToSendASegmentConfinedToAnotherThread() throws Exception {
        ZmqSocket pull = socket(SocketType.PULL);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(Endpoints.bindAny(pull, "inproc"));
        try (Arena other = Arena.ofConfined()) {
            MemorySegment confinedHere = other.allocateFrom("not sent");
            Throwable[] seen = new Throwable[1];
            Thread t = Thread.ofPlatform().start(() -> seen[0] = catching(() -> push.send(confinedHere, 0, 8, 0)));
            t.join();
            assertTrue(seen[0] instanceof WrongThreadException, () -> "expected WrongThreadException, got " + seen[0]);
            assertTrue(push.send(confinedHere, 0, 8, 0), "its own thread sends it");
        }
        assertEquals("not sent", pull.receiveString(0));
        assertEquals(null, pull.receiveString(ZmqSocket.DONTWAIT), "sent once");
    }

    private static Throwable catching(Runnable r) {
        try {
            r.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /**
     * libzmq 4.3 fails a string option that does not fit the buffer with EINVAL, and does not say
     * how long it is: lastEndpoint() asks again with a larger buffer. Before, an endpoint of 256
     * characters or more (a long inproc name, a long tcp host name) could not be read back at all.
     * The length is bounded (1 MiB) so that a string option that is wrong for another reason
     * still fails.
     */
    @Test
    void shouldReadBackAnEndpointLongerThanTheOptionBuffer() {
        for (int length : new int[] {255, 256, 300, 5000}) { // 255 and its NUL fill the first buffer
            String name = "inproc://" + "n".repeat(length - "inproc://".length());
            ZmqSocket bound = socket(SocketType.PAIR);
            bound.bind(name);
            assertEquals(name, bound.lastEndpoint());
            ZmqSocket connected = socket(SocketType.PAIR);
            connected.connect(name);
            assertEquals(name, connected.lastEndpoint());
        }
        ZmqSocket tooLong = socket(SocketType.PAIR);
        tooLong.bind("inproc://" + "n".repeat((int) ZmqSocket.MAX_STRING_OPTION_BYTES));
        ZmqException e = assertThrows(ZmqException.class, tooLong::lastEndpoint);
        assertEquals(io.zmqzstd.transport.internal.LibZmq.EINVAL, e.errno());
        assertTrue(e.getMessage().contains("ZMQ_LAST_ENDPOINT") && e.getMessage().contains("1048576 bytes"), e.getMessage());
    }

    /**
     * libzmq reads an endpoint as a C string, so a NUL character ended it there: bind("inproc://a\0b")
     * bound inproc://a, and a tcp endpoint with anything after a NUL bound its first part, without
     * a word. Refused, naming the endpoint and where the NUL is, before libzmq sees it.
     */
    @Test
    void shouldRefuseAnEndpointWithANulCharacter() {
        ZmqSocket s = socket(SocketType.PAIR);
        String[] endpoints = {"inproc://abc\0def", "tcp://127.0.0.1:*\0junk", "\0"};
        for (String endpoint : endpoints) {
            List<Consumer<String>> calls = List.of(s::bind, s::connect, s::unbind, s::disconnect);
            for (Consumer<String> call : calls) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> call.accept(endpoint));
                String shown = endpoint.replace("\0", "\\0");
                assertTrue(e.getMessage().contains("index=" + endpoint.indexOf('\0')) && e.getMessage().contains(shown),
                        e.getMessage());
            }
        }
        assertEquals("", s.lastEndpoint(), "nothing was bound or connected");
        s.bind("inproc://abc"); // the name the NUL cut it to is still free
    }

    /**
     * libzmq reads a tcp port with atoi and keeps its low 16 bits: bind("tcp://127.0.0.1:99999")
     * bound port 34463, ":-1" port 65535 and ":5555x" port 5555, and a connect to 99999 went to
     * 34463, all without a word. Refused, naming the port and the endpoint, for tcp and ws, on
     * either side of a connect's source address.
     */
    @Test
    void shouldRefuseATcpPortOutsideItsRange() {
        ZmqSocket s = socket(SocketType.PUSH);
        String[][] refused = {
                {"tcp://127.0.0.1:99999", "99999"}, {"tcp://127.0.0.1:65536", "65536"}, {"tcp://127.0.0.1:-1", "-1"},
                {"tcp://127.0.0.1:5555x", "5555x"}, {"tcp://127.0.0.1:99999;127.0.0.1:5555", "99999"},
                {"tcp://127.0.0.1:5555;127.0.0.1:70000", "70000"}, {"tcp://[::1]:123456", "123456"},
                {"ws://127.0.0.1:99999/feed", "99999"}};
        for (String[] r : refused) {
            for (Consumer<String> call : List.<Consumer<String>>of(s::bind, s::connect)) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> call.accept(r[0]), r[0]);
                assertTrue(e.getMessage().contains("port=" + r[1] + ",") && e.getMessage().contains("endpoint=" + r[0]),
                        e.getMessage());
            }
        }
        assertEquals("", s.lastEndpoint(), "nothing was bound or connected");
        // no port at all is libzmq's to refuse, an IPv6 address's colons are no port separator
        ZmqException noPort = assertThrows(ZmqException.class, () -> s.bind("tcp://[::1]"));
        assertTrue(noPort.getMessage().contains("zmq_bind(tcp://[::1])"), noPort.getMessage());
        // the ports libzmq reads as they are written
        s.connect("tcp://127.0.0.1:65535");
        s.connect("tcp://[::1]:1");
        s.connect("tcp://127.0.0.1:0;127.0.0.1:5555");
        s.lingerMs(0);
        ZmqSocket pull = socket(SocketType.PULL);
        pull.bind("tcp://127.0.0.1:*");
        pull.bind("tcp://127.0.0.1:0");
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(pull.lastEndpoint());
        assertTrue(push.send(b("on the port written"), 0));
        assertEquals("on the port written", pull.receiveString(0));
    }

    /**
     * A bind to port 0 picks a free port, but libzmq 4.3.4 also takes a connect to port 0 and
     * tries it every reconnect interval for ever, each attempt refused, without a word: the same
     * "tcp://127.0.0.1:0" passed to both sides looked right and delivered nothing. Refused,
     * naming the endpoint; a source port of 0 (any port) is still taken.
     */
    @Test
    void shouldRefuseAConnectToPortZero() {
        ZmqSocket s = socket(SocketType.PUSH);
        for (String endpoint : new String[] {"tcp://127.0.0.1:0", "tcp://127.0.0.1:00", "tcp://[::1]:0",
                "tcp://127.0.0.1:5555;127.0.0.1:0", "tcp://localhost:0", "ws://127.0.0.1:0/feed"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.connect(endpoint), endpoint);
            assertEquals("a connect cannot reach port 0: endpoint=" + endpoint + " (port 0 or * means any free port only"
                    + " to a bind: connect to the port lastEndpoint() reports there)", e.getMessage());
        }
        assertEquals("", s.lastEndpoint(), "nothing was connected");
        s.lingerMs(0);
        s.connect("tcp://127.0.0.1:0;127.0.0.1:5555"); // source port 0: any
    }

    /**
     * A tcp connect to an empty host was taken by libzmq 4.3.4 and tried for ever, a monitor seeing
     * only CONNECT_RETRIED and nothing delivered; it is refused, naming the endpoint.
     */
    @Test
    void shouldRefuseATcpConnectToAnEmptyHost() {
        ZmqSocket s = socket(SocketType.PUSH);
        for (String endpoint : new String[] {"tcp://:5555", "tcp://[]:5555", "tcp://127.0.0.1:0;:5555"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.connect(endpoint), endpoint);
            assertEquals("a connect needs a host: endpoint=" + endpoint + " (libzmq would take it and try to resolve the empty"
                    + " host for ever, delivering nothing: name one, e.g. tcp://127.0.0.1:5555)", e.getMessage());
        }
        assertEquals("", s.lastEndpoint(), "nothing was connected");
    }

    /**
     * A tcp connect without a port is libzmq's to refuse (EINVAL), as the Javadoc says of a
     * malformed endpoint; the port-0 check threw NumberFormatException ("For input string: \"\"")
     * for it until 2026-11-27, naming neither the endpoint nor what was wrong. An IPv6 address in
     * brackets without a port is refused before libzmq, which would misread it.
     */
    @Test
    void shouldLeaveATcpConnectWithoutAPortToLibzmqsEinval() {
        ZmqSocket s = socket(SocketType.PUSH);
        for (String endpoint : new String[] {"tcp://127.0.0.1", "tcp://127.0.0.1:", "tcp://localhost"}) {
            ZmqException e = assertThrows(ZmqException.class, () -> s.connect(endpoint), endpoint);
            assertEquals(LibZmq.EINVAL, e.errno(), endpoint);
            assertTrue(e.getMessage().startsWith("zmq_connect(" + endpoint + ") failed: errno="), e.getMessage());
        }
        // libzmq reads a port from inside the brackets ("1]" is port 1) and took this connect, host "[:"
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.connect("tcp://[::1]"));
        assertEquals("a port must follow the IPv6 address: endpoint=tcp://[::1] (libzmq would read the port from inside the"
                + " brackets: write [::1]:PORT)", e.getMessage());
        assertEquals("", s.lastEndpoint(), "nothing was connected");
    }

    @Test
    void shouldGiveAPooledFrameBackAsSoonAsACopyingReceiveReturns() {
        NativeBufferPool pool = NativeBufferPool.builder().zeroCopyThresholdBytes(0).build();
        try (ZmqContext own = ZmqContext.builder().bufferPool(pool).build(); Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = own.socket(SocketType.PULL);
            ZmqSocket push = own.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "inproc")); // the received frame is the pooled buffer itself
            MemorySegment dst = arena.allocate(100);
            for (int round = 0; round < 3; round++) {
                assertTrue(push.sendPooled(pool.rent(100), 100, 0));
                assertEquals(1, pool.outstanding());
                switch (round) {
                    case 0 -> assertEquals(100, pull.receive(new byte[100], 0));
                    case 1 -> assertEquals(100, pull.receive(dst, 0));
                    default -> assertEquals(100, pull.receiveBytes(0).length);
                }
                assertEquals(0, pool.outstanding(), "the copy is all the caller gets: the frame is freed at once");
            }
        }
        Buffers.assertAllBack(pool);
        pool.close();
    }

    /**
     * A frame over 2 GiB: receiveBytes threw ArithmeticException "integer overflow" from
     * Math.toIntExact, naming nothing; receive(byte[]) returns Integer.MAX_VALUE for it.
     */
    @Test
    void shouldRefuseAFrameTooLargeForAnArrayNamingItsSize() {
        long size = (1L << 31) + 1;
        ZmqSocket pull = socket(SocketType.PULL);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(Endpoints.bindAny(pull, "inproc")); // zero-copy: the 2 GiB exist once, in the pooled buffer
        assertTrue(push.sendPooled(ctx.bufferPool().rent(size), size, 0));
        ZmqSocket relayed = socket(SocketType.PULL);
        ZmqSocket relay = socket(SocketType.PUSH);
        relay.connect(Endpoints.bindAny(relayed, "inproc"));
        try (ZmqMessage frame = new ZmqMessage(); ZmqMessage share = new ZmqMessage()) {
            assertTrue(pull.receive(frame, 0));
            for (int i = 0; i < 2; i++) { // the same frame twice, shared rather than copied
                share.copyFrom(frame);
                assertTrue(relay.send(share, ZmqSocket.SNDMORE));
            }
            assertTrue(relay.send(b("next part"), 0));
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> relayed.receiveBytes(0));
        assertTrue(e.getMessage().contains("frame too large for a byte[]: size=" + size), e.getMessage());
        assertTrue(relayed.hasMore(), "the message's later parts stay queued");
        assertEquals(Integer.MAX_VALUE, relayed.receive(new byte[16], 0));
        assertEquals("next part", relayed.receiveString(0), "the stream goes on");
        assertEquals(0, ctx.bufferPool().outstanding(), "the frame's buffer is back in its pool");
    }

    /** zmq_has: what a Linux build has, and no answer for a name libzmq does not know. */
    @Test
    void shouldReportTheCapabilitiesLibzmqWasBuiltWith() {
        assertTrue(ZmqContext.has("ipc"), "every Unix build has ipc");
        assertEquals(Curve.isAvailable(), ZmqContext.has("curve"));
        assertFalse(ZmqContext.has("no-such-transport"));
    }

    @Test
    void shouldReportTheLoadedLibzmqVersionAndCheckItsMessageLayout() {
        ZmqContext.Version v = ZmqContext.version();
        assertEquals(4, v.major(), v::toString);
        assertTrue(v.minor() >= 3, v::toString);
        assertEquals(v.major() + "." + v.minor() + "." + v.patch(), v.toString());
        ZmqContext.checkMessageLayout(64); // what every context in this suite was built with
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ZmqContext.checkMessageLayout(72));
        assertTrue(e.getMessage().contains("sizeofZmqMsgT=72"), e.getMessage());
        assertTrue(e.getMessage().contains("expected=64"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> ZmqContext.checkMessageLayout(-1));
    }

    /**
     * README "Contexts": libzmq 4.3.4 answers false for "ws" and "wss" (draft transports in that
     * release), whatever its build can do.
     */
    @Test
    void shouldAnswerFalseForWsAndWssOnLibzmq434() {
        org.junit.jupiter.api.Assumptions.assumeTrue(ZmqContext.version().equals(new ZmqContext.Version(4, 3, 4)),
                "the claim is about libzmq 4.3.4; this one is " + ZmqContext.version());
        assertFalse(ZmqContext.has("ws"));
        assertFalse(ZmqContext.has("wss"));
    }
}
