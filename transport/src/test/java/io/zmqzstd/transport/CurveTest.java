package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CurveTest {

    @Test
    void shouldMakeDistinctKeyPairsInZ85() {
        Curve.KeyPair a = Curve.keypair();
        Curve.KeyPair b = Curve.keypair();
        assertEquals(40, a.publicKey().length());
        assertEquals(40, a.secretKey().length());
        assertTrue(!a.publicKey().equals(b.publicKey()));
        assertEquals(32, Curve.z85Decode(a.publicKey()).length);
        assertEquals(a.publicKey(), Curve.z85Encode(Curve.z85Decode(a.publicKey())));
        assertTrue(!a.toString().contains(a.secretKey()));
    }

    /**
     * This libzmq has CURVE (zmq_has("curve")), as the other tests here need. One without it
     * refuses keypair and publicKey with ENOTSUP and every CURVE option, set or read, with a bare
     * EINVAL ("zmq_setsockopt(ZMQ_CURVE_SERVER=1) failed: errno=22, error=Invalid argument", all
     * it said before); the exception now says why. No libzmq without CURVE is at hand, and none is
     * mocked: the note's text is checked, and that a CURVE option refused for another reason gets
     * none.
     */
    @Test
    void shouldKnowThatLibzmqHasCurveAndSayItWhenItHasNot() {
        assertTrue(Curve.isAvailable());
        assertNull(Curve.unavailableNote());
        assertEquals("zmq_setsockopt(ZMQ_CURVE_SERVER=1) failed: errno=22, error=Invalid argument (this libzmq was built"
                + " without CURVE, zmq_has(\"curve\") is 0: use one built with libsodium, as Debian's libzmq5 and"
                + " Homebrew's zeromq are, e.g. by -Dzmqzstd.libzmq.path=FILE)",
                new ZmqException("zmq_setsockopt(ZMQ_CURVE_SERVER=1)", 22, Curve.unavailableNote(false)).getMessage());
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket s = ctx.socket(SocketType.DEALER);
            ZmqException e = assertThrows(ZmqException.class, () -> s.setIntOption(47, 2)); // ZMQ_CURVE_SERVER takes 0 or 1
            assertEquals("zmq_setsockopt(option 47=2) failed: errno=22, error=Invalid argument", e.getMessage());
        }
    }

    /** The public half follows from the secret half, so a key pair can be checked before a handshake fails on it. */
    @Test
    void shouldDeriveThePublicKeyOfASecretKey() {
        Curve.KeyPair a = Curve.keypair();
        Curve.KeyPair b = Curve.keypair();
        assertEquals(a.publicKey(), Curve.publicKey(a.secretKey()));
        assertEquals(b.publicKey(), Curve.publicKey(b.secretKey()));
        // the example server key pair of the zmq_curve(7) manual
        assertEquals("rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7", Curve.publicKey("JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Curve.publicKey(a.secretKey() + "abcde"));
        assertTrue(e.getMessage().contains("length=45"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Curve.publicKey(a.secretKey().substring(1) + "~"));
        assertTrue(e.getMessage().contains("index 39"), e.getMessage());
    }

    @Test
    void shouldRoundTripZ85AndRejectBadLengths() {
        byte[] data = {(byte) 0x86, 0x4F, (byte) 0xD2, 0x6F, (byte) 0xB5, 0x59, (byte) 0xF7, 0x5B};
        assertEquals("HelloWorld", Curve.z85Encode(data)); // the Z85 spec's test vector
        assertArrayEquals(data, Curve.z85Decode("HelloWorld"));
        assertThrows(IllegalArgumentException.class, () -> Curve.z85Encode(new byte[3]));
        assertThrows(IllegalArgumentException.class, () -> Curve.z85Decode("abcd"));
    }

    /**
     * Every character must be in the Z85 alphabet, and the message names the first one outside
     * it and its index. Converted unchecked (US-ASCII), a non-ASCII character became '?', itself
     * a Z85 digit, so five U+00E9 decoded to four bytes; and libzmq read a NUL as the end of the
     * text, so a NUL-padded text decoded to the bytes before it plus zeros Java made up.
     */
    @Test
    void shouldRejectCharactersOutsideTheZ85Alphabet() {
        String valid = Curve.z85Encode(new byte[] {1, 2, 3, 4});
        assertRejected("'\u00e9' (U+00E9)", 2, () -> Curve.z85Decode("ab\u00e9de"));
        assertRejected("U+0000", 5, () -> Curve.z85Decode(valid + "\0\0\0\0\0"));
        assertRejected("U+0020", 0, () -> Curve.z85Decode(" bcde"));
        assertRejected("'\"'", 4, () -> Curve.z85Decode("abcd\""));
        assertRejected("U+1F600", 1, () -> Curve.z85Decode("a\uD83D\uDE00cd")); // one code point, two chars
        // every character valid, but the group stands for 85^5 - 1 > 0xFFFFFFFF
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Curve.z85Decode("#####"));
        assertTrue(e.getMessage().contains("32 bits"), e.getMessage());
    }

    /** z85Encode makes "" of no bytes; libzmq refuses to decode text shorter than 5 characters, Curve does not. */
    @Test
    void shouldRoundTripNoBytes() {
        assertEquals("", Curve.z85Encode(new byte[0]));
        assertArrayEquals(new byte[0], Curve.z85Decode(""));
    }

    /** The CURVE key setters check the alphabet too: a '?' or a NUL reached libzmq, which took part of the key or another one. */
    @Test
    void shouldRefuseAKeyWithCharactersOutsideTheZ85Alphabet() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket s = ctx.socket(SocketType.DEALER);
            String key = Curve.keypair().publicKey();
            String nonAscii = key.substring(0, 39) + "\u00e9";
            String nul = key.substring(0, 20) + "\0" + key.substring(21);
            assertRejected("ZMQ_CURVE_SERVERKEY", 39, () -> s.curveServerKey(nonAscii));
            assertRejected("ZMQ_CURVE_PUBLICKEY", 20, () -> s.curvePublicKey(nul));
            assertRejected("ZMQ_CURVE_SECRETKEY", 20, () -> s.curveSecretKey(nul));
            assertEquals("0".repeat(40), s.curveServerKey(), "nothing reached libzmq");
            s.curveServerKey(key);
            assertEquals(key, s.curveServerKey());
        }
    }

    /**
     * A key of 40 Z85 characters whose group of 5 stands for more than 32 bits is no key: the
     * setters say so, naming the option and the group, as {@link Curve#publicKey} does for the
     * same text. libzmq refused it with a bare EINVAL ("zmq_setsockopt(ZMQ_CURVE_SECRETKEY,
     * length=40) failed: errno=22, error=Invalid argument"), a ZmqException the setters do not
     * document, that did not say what was wrong.
     */
    @Test
    void shouldRefuseAKeyWithAGroupAbove32Bits() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket s = ctx.socket(SocketType.DEALER);
            String key = Curve.keypair().publicKey();
            String overflow = key.substring(0, 10) + "#####" + key.substring(15); // 85^5 - 1 > 0xFFFFFFFF
            assertRejected("ZMQ_CURVE_SERVERKEY", 10, () -> s.curveServerKey(overflow));
            assertRejected("ZMQ_CURVE_PUBLICKEY", 10, () -> s.curvePublicKey(overflow));
            assertRejected("ZMQ_CURVE_SECRETKEY", 10, () -> s.curveSecretKey(overflow));
            assertRejected("32 bits", 10, () -> Curve.publicKey(overflow));
            assertEquals("0".repeat(40), s.curveServerKey(), "nothing reached libzmq");
        }
    }

    /**
     * A null key or text names what was null: the option, for a setter. Before, the JDK's message
     * named Curve's parameter ("Cannot invoke "String.length()" because "z85" is null"), not the
     * option it was meant for.
     */
    @Test
    void shouldNameTheNullKeyOrText() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket s = ctx.socket(SocketType.DEALER);
            assertEquals("ZMQ_CURVE_SERVERKEY is null", assertThrows(NullPointerException.class, () -> s.curveServerKey(null)).getMessage());
            assertEquals("ZMQ_CURVE_PUBLICKEY is null", assertThrows(NullPointerException.class, () -> s.curvePublicKey(null)).getMessage());
            assertEquals("ZMQ_CURVE_SECRETKEY is null", assertThrows(NullPointerException.class, () -> s.curveSecretKey(null)).getMessage());
        }
        assertEquals("a CURVE secret key is null", assertThrows(NullPointerException.class, () -> Curve.publicKey(null)).getMessage());
        assertEquals("z85 text is null", assertThrows(NullPointerException.class, () -> Curve.z85Decode(null)).getMessage());
        assertEquals("z85 input is null", assertThrows(NullPointerException.class, () -> Curve.z85Encode(null)).getMessage());
    }

    private static void assertRejected(String named, int index, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(named) && e.getMessage().contains("index " + index), e.getMessage());
    }

    private static void configure(ZmqSocket server, ZmqSocket client, Curve.KeyPair serverKeys, String serverKeyForClient) {
        server.curveServer(true);
        server.curveSecretKey(serverKeys.secretKey());
        Curve.KeyPair clientKeys = Curve.keypair();
        client.curvePublicKey(clientKeys.publicKey());
        client.curveSecretKey(clientKeys.secretKey());
        client.curveServerKey(serverKeyForClient);
    }

    /**
     * One message from a CURVE client to a CURVE server over tcp, the two configured alike except
     * for the server key the client trusts.
     *
     * @return what the server received within {@code receiveTimeoutMs}, or null
     */
    private static byte[] sendOverCurve(Curve.KeyPair serverKeys, String serverKeyForClient, int receiveTimeoutMs) {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            configure(pull, push, serverKeys, serverKeyForClient);
            assertTrue(pull.curveServer());
            assertEquals(serverKeyForClient, push.curveServerKey());
            pull.receiveTimeoutMs(receiveTimeoutMs);
            push.lingerMs(0);
            push.connect(Endpoints.bindAny(pull, "tcp"));
            // connect made the pipe at once (ZMQ_IMMEDIATE off): queued whatever the handshake does
            assertTrue(push.send("secret".getBytes(StandardCharsets.UTF_8), ZmqSocket.DONTWAIT), "the client queued the message");
            return pull.receiveBytes(0);
        }
    }

    /** The positive control for the wrong-key test: the same setup with the right key delivers. */
    @Test
    void shouldDeliverOverCurveWithTheRightServerKey() {
        Curve.KeyPair serverKeys = Curve.keypair();
        byte[] got = sendOverCurve(serverKeys, serverKeys.publicKey(), 5000);
        assertArrayEquals("secret".getBytes(StandardCharsets.UTF_8), got);
    }

    /** Fresh for each test (JUnit makes an instance per test): a server's and a client's key pair. */
    private final Curve.KeyPair serverKeys = Curve.keypair();
    private final Curve.KeyPair clientKeys = Curve.keypair();

    /**
     * CURVE keys with which every handshake fails are refused at the bind or connect, naming the
     * option, where libzmq took them and the client's messages never arrived (measured before the
     * check: each of these delivered nothing over tcp, only a monitor telling of it). The socket
     * stays usable: once the key is set the same call succeeds and the message arrives.
     */
    @Test
    void shouldRefuseAConnectOfAClientWithoutAServerKeyAndDeliverOnceItIsSet() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = curveServer(ctx);
            String endpoint = Endpoints.bindAny(pull, "tcp");
            ZmqSocket push = curveClientWithoutServerKey(ctx);
            assertRefused("connect(" + endpoint + "): this CURVE client has no ZMQ_CURVE_SERVERKEY", () -> push.connect(endpoint));
            assertEquals("", push.lastEndpoint(), "libzmq was not asked");
            push.curveServerKey(serverKeys.publicKey());
            push.connect(endpoint);
            assertDelivers(push, pull);
        }
    }

    /**
     * Pooled zero-copy sends over CURVE. With the right server key every 64 KiB part (above the
     * zero-copy threshold: libzmq holds the buffer itself) arrives intact. With a wrong one none
     * arrives, libzmq keeps all four for a handshake that never succeeds, and closing the client
     * with linger 0 gives every buffer back to the pool at once.
     */
    @ParameterizedTest(name = "right server key: {0}")
    @ValueSource(booleans = {true, false})
    void shouldGiveEveryPooledBufferBackOverCurve(boolean rightKey) {
        int parts = 4;
        long size = 64 * 1024;
        try (NativeBufferPool pool = new NativeBufferPool()) {
            try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
                ZmqSocket pull = curveServer(ctx);
                ZmqSocket push = curveClientWithoutServerKey(ctx);
                push.curveServerKey(rightKey ? serverKeys.publicKey() : Curve.keypair().publicKey());
                push.connect(Endpoints.bindAny(pull, "tcp"));
                for (int i = 0; i < parts; i++) {
                    PooledBuffer b = pool.rent(size);
                    b.segment().asSlice(0, size).fill((byte) i);
                    assertTrue(push.sendPooled(b, size, ZmqSocket.DONTWAIT));
                }
                if (rightKey) {
                    pull.receiveTimeoutMs(5000);
                    for (int i = 0; i < parts; i++) {
                        byte[] expected = new byte[(int) size];
                        Arrays.fill(expected, (byte) i);
                        assertArrayEquals(expected, pull.receiveBytes(0));
                    }
                } else {
                    pull.receiveTimeoutMs(300);
                    assertNull(pull.receiveBytes(0));
                    assertEquals(parts, pool.outstanding(), "queued in libzmq for the handshake");
                }
                push.lingerMs(0);
                push.close();
                Buffers.awaitAllBack(pool);
            }
            pool.assertNoLeaks();
        }
    }

    /** A PULL that is a CURVE server with {@link #serverKeys}' secret key. */
    private ZmqSocket curveServer(ZmqContext ctx) {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.curveServer(true);
        pull.curveSecretKey(serverKeys.secretKey());
        return pull;
    }

    /** A PUSH with {@link #clientKeys} as its own key pair, no server key yet. */
    private ZmqSocket curveClientWithoutServerKey(ZmqContext ctx) {
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.curvePublicKey(clientKeys.publicKey());
        push.curveSecretKey(clientKeys.secretKey());
        return push;
    }

    /** A message {@code push} (connected) sends arrives at {@code pull} within 5 s. */
    static void assertDelivers(ZmqSocket push, ZmqSocket pull) {
        pull.receiveTimeoutMs(5000);
        push.lingerMs(0);
        assertTrue(push.send("secret".getBytes(StandardCharsets.UTF_8), ZmqSocket.DONTWAIT));
        assertArrayEquals("secret".getBytes(StandardCharsets.UTF_8), pull.receiveBytes(0));
    }

    @Test
    void shouldRefuseAClientWithoutItsOwnKeys() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.curveServerKey(serverKeys.publicKey());
            assertRefused("connect(tcp://127.0.0.1:5555): this CURVE client has no ZMQ_CURVE_PUBLICKEY (curvePublicKey: its own"
                    + " public key), no ZMQ_CURVE_SECRETKEY", () -> push.connect("tcp://127.0.0.1:5555"));
            push.curvePublicKey(clientKeys.publicKey());
            assertRefused("bind(tcp://127.0.0.1:*): this CURVE client has no ZMQ_CURVE_SECRETKEY", () -> push.bind("tcp://127.0.0.1:*"));
        }
    }

    /** A public key given as the secret one (here the two halves swapped) makes a pair that does not match. */
    @Test
    void shouldRefuseAKeyPairWhoseHalvesDoNotMatch() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.curveServerKey(serverKeys.publicKey());
            push.curvePublicKey(clientKeys.secretKey());
            push.curveSecretKey(clientKeys.publicKey());
            assertRefused("connect(tcp://127.0.0.1:5555): this CURVE client's ZMQ_CURVE_PUBLICKEY is not the public half of its"
                    + " ZMQ_CURVE_SECRETKEY", () -> push.connect("tcp://127.0.0.1:5555"));
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.curveServer(true);
            pull.curvePublicKey(serverKeys.publicKey());
            pull.curveSecretKey(serverKeys.publicKey());
            assertRefused("bind(tcp://127.0.0.1:*): this CURVE server (curveServer(true))'s ZMQ_CURVE_PUBLICKEY is not the public half",
                    () -> pull.bind("tcp://127.0.0.1:*"));
            pull.curveSecretKey(serverKeys.secretKey());
            pull.bind("tcp://127.0.0.1:*"); // the right pair
        }
    }

    @Test
    void shouldRefuseAServerWithoutASecretKey() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.curveServer(true);
            assertRefused("bind(tcp://127.0.0.1:*): this CURVE server (curveServer(true)) has no ZMQ_CURVE_SECRETKEY"
                    + " (curveSecretKey: its own secret key); every handshake would fail, so set it before the bind or connect",
                    () -> pull.bind("tcp://127.0.0.1:*"));
        }
    }

    /**
     * libzmq takes ZMQ_CURVE_SERVERKEY as "be a client": on a server it turned ZMQ_CURVE_SERVER
     * off, so a server given its own public key there bound as a CURVE client and no client's
     * message ever arrived. The setter refuses it on a server, which stays a server and delivers;
     * after curveServer(false) the same key makes the socket a client.
     */
    @Test
    void shouldRefuseAServerKeyOnAServerAndStayAServer() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = curveServer(ctx);
            pull.curvePublicKey(serverKeys.publicKey());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> pull.curveServerKey(serverKeys.publicKey()));
            assertTrue(e.getMessage().startsWith("ZMQ_CURVE_SERVERKEY on a CURVE server (curveServer(true)): libzmq would make"
                    + " it a CURVE client"), e.getMessage());
            assertTrue(pull.curveServer(), "still a server");
            assertEquals("0".repeat(40), pull.curveServerKey(), "nothing reached libzmq");
            ZmqSocket push = curveClientWithoutServerKey(ctx);
            push.curveServerKey(serverKeys.publicKey());
            push.connect(Endpoints.bindAny(pull, "tcp"));
            assertDelivers(push, pull);

            ZmqSocket other = ctx.socket(SocketType.PULL);
            other.curveServer(true);
            other.curveServer(false);
            other.curveServerKey(serverKeys.publicKey());
            assertEquals(serverKeys.publicKey(), other.curveServerKey());
            assertThrows(IllegalArgumentException.class, () -> pull.curveServerKey("short"), "the key is checked first");
        }
    }

    /** {@code call} throws {@link IllegalStateException} whose message starts with {@code start}. */
    private static void assertRefused(String start, org.junit.jupiter.api.function.Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call);
        assertTrue(e.getMessage().startsWith(start), e.getMessage());
    }

    @Test
    void shouldDeliverNothingWithAWrongServerKey() {
        Curve.KeyPair serverKeys = Curve.keypair();
        Curve.KeyPair impostor = Curve.keypair();
        assertNull(sendOverCurve(serverKeys, impostor.publicKey(), 500));
    }

    /**
     * Setting or reading the secret key leaves no copy of it in the socket's option buffer. Later
     * options overwrite only their first bytes, and the buffer is freed unzeroed at close: before,
     * the Z85 text of the secret key stayed there after curveSecretKey(key) and after
     * curveSecretKey(), and after a later curveServer(true) its last 36 characters still did.
     * The bind's key check, which now reads the binary secret key last, into that buffer, leaves
     * none either (before, the server key read after it overwrote it there).
     */
    @Test
    void shouldLeaveNoCopyOfTheSecretKeyInTheOptionBuffer() {
        Curve.KeyPair keys = Curve.keypair();
        byte[] z85 = keys.secretKey().getBytes(StandardCharsets.US_ASCII);
        byte[] binary = Curve.z85Decode(keys.secretKey());
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket s = ctx.socket(SocketType.PULL);
            s.curveSecretKey(keys.secretKey());
            assertNoCopy(z85, s.optionBufferBytes(), "after curveSecretKey(key)");
            s.curveServer(true);
            assertNoCopy(Arrays.copyOfRange(z85, 4, z85.length), s.optionBufferBytes(), "after a later int option");
            assertEquals(keys.secretKey(), s.curveSecretKey());
            assertNoCopy(z85, s.optionBufferBytes(), "after curveSecretKey()");
            s.curvePublicKey(keys.publicKey());
            Endpoints.bindAny(s, "tcp");
            assertNoCopy(binary, s.optionBufferBytes(), "after the bind's key check");
            assertNoCopy(z85, s.optionBufferBytes(), "after the bind's key check");
        }
    }

    static void assertNoCopy(byte[] secret, byte[] buffer, String when) {
        String haystack = new String(buffer, StandardCharsets.ISO_8859_1);
        assertTrue(!haystack.contains(new String(secret, StandardCharsets.ISO_8859_1)),
                "the secret key is in the option buffer " + when);
    }
}
