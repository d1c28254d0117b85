package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import java.nio.CharBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CURVE calls that take and give a secret key in binary, in arrays the caller owns and can
 * zero, and {@link Curve.KeyPair#destroy()}: round trips through libzmq, a handshake with keys
 * that never were Strings, and a destroyed pair refusing use.
 */
class CurveBinaryKeysTest extends ContextTestBase {

    private static final byte[] ZEROS = new byte[Curve.KEY_BYTES];

    @Test
    void shouldMakeABinaryKeyPairWhosePublicHalfFollowsFromItsSecretHalf() {
        byte[] pub = new byte[Curve.KEY_BYTES];
        byte[] sec = new byte[Curve.KEY_BYTES];
        Curve.keypair(pub, sec);
        assertFalse(Arrays.equals(ZEROS, sec), "the secret key was written");
        assertArrayEquals(pub, Curve.publicKeyBytes(sec));
        assertEquals(Curve.z85Encode(pub), Curve.publicKey(Curve.z85Encode(sec)), "the Z85 calls agree");
        byte[] otherPub = new byte[Curve.KEY_BYTES];
        byte[] otherSec = new byte[Curve.KEY_BYTES];
        Curve.keypair(otherPub, otherSec);
        assertFalse(Arrays.equals(sec, otherSec), "a fresh pair each call");
        // the example server key pair of the zmq_curve(7) manual, in binary
        assertArrayEquals(Curve.z85Decode("rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"),
                Curve.publicKeyBytes(Curve.z85Decode("JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6")));
    }

    /**
     * A secret key set in binary is the socket's key: read back in binary and in Z85, its public
     * half is the pair's, and the option buffer it passed through keeps no copy of it.
     */
    @Test
    void shouldSetAndReadTheSecretKeyInBinary() {
        byte[] pub = new byte[Curve.KEY_BYTES];
        byte[] sec = new byte[Curve.KEY_BYTES];
        Curve.keypair(pub, sec);
        ZmqSocket s = ctx.socket(SocketType.PULL);
        assertArrayEquals(ZEROS, s.curveSecretKeyBytes(), "none set: the all-zero key");
        s.curveSecretKeyBytes(sec);
        CurveTest.assertNoCopy(sec, s.optionBufferBytes(), "after curveSecretKeyBytes(key)");
        byte[] read = s.curveSecretKeyBytes();
        CurveTest.assertNoCopy(sec, s.optionBufferBytes(), "after curveSecretKeyBytes()");
        assertArrayEquals(sec, read);
        assertArrayEquals(pub, Curve.publicKeyBytes(read));
        assertEquals(Curve.z85Encode(sec), s.curveSecretKey(), "the Z85 getter reads the same key");
        s.curveServer(true);
        s.curvePublicKey(Curve.z85Encode(pub));
        Endpoints.bindAny(s, "tcp"); // the bind's key check finds the halves matching
    }

    /**
     * The setter copies the caller's array: zeroed as soon as the call returns, it changes neither
     * the key the socket reports nor the handshake, which works with keys that never were a String.
     */
    @Test
    void shouldDeliverOverCurveWithBinaryKeysTheCallerZeroedAfterSettingThem() {
        byte[] serverPub = new byte[Curve.KEY_BYTES];
        byte[] serverSec = new byte[Curve.KEY_BYTES];
        byte[] clientPub = new byte[Curve.KEY_BYTES];
        byte[] clientSec = new byte[Curve.KEY_BYTES];
        Curve.keypair(serverPub, serverSec);
        Curve.keypair(clientPub, clientSec);
        byte[] clientSecKept = clientSec.clone();

        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.curveServer(true);
        pull.curveSecretKeyBytes(serverSec);
        Arrays.fill(serverSec, (byte) 0);
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.curveServerKey(Curve.z85Encode(serverPub));
        push.curvePublicKey(Curve.z85Encode(clientPub));
        push.curveSecretKeyBytes(clientSec);
        Arrays.fill(clientSec, (byte) 0);

        assertArrayEquals(clientSecKept, push.curveSecretKeyBytes(), "the socket's key is its own copy");
        assertArrayEquals(serverPub, Curve.publicKeyBytes(pull.curveSecretKeyBytes()));
        push.connect(Endpoints.bindAny(pull, "tcp"));
        CurveTest.assertDelivers(push, pull);
    }

    /** A key pair's secret key handed over in binary, then the pair destroyed: the socket keeps its key and delivers. */
    @Test
    void shouldDeliverOverCurveWithAKeyPairDestroyedAfterUse() {
        Curve.KeyPair server = Curve.keypair();
        Curve.KeyPair client = Curve.keypair();
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.curveServer(true);
        setSecretKeyAndDestroy(pull, server);
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.curveServerKey(server.publicKey());
        push.curvePublicKey(client.publicKey());
        setSecretKeyAndDestroy(push, client);
        push.connect(Endpoints.bindAny(pull, "tcp"));
        CurveTest.assertDelivers(push, pull);
    }

    private static void setSecretKeyAndDestroy(ZmqSocket socket, Curve.KeyPair keys) {
        byte[] sec = keys.secretKeyBytes();
        try {
            socket.curveSecretKeyBytes(sec);
        } finally {
            Arrays.fill(sec, (byte) 0);
            keys.destroy();
        }
    }

    /**
     * A destroyed pair has its secret characters zeroed and refuses every use of them with
     * {@link IllegalStateException}; its public key, no secret, still answers. A second destroy
     * does nothing.
     */
    @Test
    void shouldZeroADestroyedKeyPairAndRefuseItsSecretKey() {
        Curve.KeyPair keys = Curve.keypair();
        Curve.KeyPair same = new Curve.KeyPair(keys.publicKey(), keys.secretKey());
        assertEquals(same, keys);
        assertEquals(same.hashCode(), keys.hashCode());
        assertArrayEquals(Curve.z85Decode(keys.secretKey()), keys.secretKeyBytes());
        assertFalse(keys.isDestroyed());

        keys.destroy();
        assertTrue(keys.isDestroyed());
        assertArrayEquals(new char[Curve.Z85_KEY_CHARS], keys.secretChars(), "zeroed");
        String expected = "KeyPair is destroyed: its secret key was zeroed (publicKey=" + keys.publicKey() + ")";
        assertEquals(expected, assertThrows(IllegalStateException.class, keys::secretKey).getMessage());
        assertEquals(expected, assertThrows(IllegalStateException.class, keys::secretKeyBytes).getMessage());
        assertEquals(same.publicKey(), keys.publicKey());
        assertEquals("KeyPair[publicKey=" + keys.publicKey() + ", secretKey=<destroyed>]", keys.toString());
        assertNotEquals(same, keys, "a destroyed pair equals only itself");
        assertNotEquals(keys, same);
        assertEquals(keys, keys);
        keys.destroy();
        assertTrue(keys.isDestroyed());
        assertTrue(same.toString().endsWith(", secretKey=<hidden>]"), same.toString());
    }

    /**
     * README "CURVE": a KeyPair keeps its secret key as characters and {@code secretKey()} makes a
     * new String on each call, so a caller can let each one go; the Strings are equal, and so is
     * the binary form.
     */
    @Test
    void shouldMakeANewSecretKeyStringOnEachCall() {
        Curve.KeyPair keys = Curve.keypair();
        String first = keys.secretKey();
        String second = keys.secretKey();
        assertEquals(first, second);
        assertNotSame(first, second, "one String kept and handed out again");
        assertEquals(Curve.Z85_KEY_CHARS, first.length());
        assertArrayEquals(Curve.z85Decode(first), keys.secretKeyBytes());
        keys.destroy();
    }

    /** The public constructor takes what the record took, and the binary form checks it only when asked. */
    @Test
    void shouldKeepTheRecordsConstructorAndCheckItsSecretKeyOnlyInBinary() {
        Curve.KeyPair unset = new Curve.KeyPair("p", null);
        assertNull(unset.secretKey());
        assertEquals(new Curve.KeyPair("p", null), unset);
        assertEquals("this KeyPair's secret key is null",
                assertThrows(NullPointerException.class, unset::secretKeyBytes).getMessage());
        Curve.KeyPair shortKey = new Curve.KeyPair("p", "abcde");
        assertEquals("abcde", shortKey.secretKey());
        assertEquals("this KeyPair's secret key must be a 40-character Z85 key: length=5",
                assertThrows(IllegalArgumentException.class, shortKey::secretKeyBytes).getMessage());
        assertNotEquals(shortKey, unset);
        assertNotEquals(new Curve.KeyPair("p", "abcdf"), shortKey);
        unset.destroy();
        assertThrows(IllegalStateException.class, unset::secretKey);
    }

    /**
     * Every binary key call names the array or the option and the length it refuses, and writes
     * nothing: neither array of a refused keypair, nor the socket's key.
     */
    @Test
    void shouldNameTheRefusedBinaryKeyAndChangeNothing() {
        ZmqSocket s = ctx.socket(SocketType.DEALER);
        assertEquals("ZMQ_CURVE_SECRETKEY is null",
                assertThrows(NullPointerException.class, () -> s.curveSecretKeyBytes(null)).getMessage());
        for (int length : new int[] {0, 31, 33, 40}) {
            assertEquals("ZMQ_CURVE_SECRETKEY must be a 32-byte binary key: length=" + length,
                    assertThrows(IllegalArgumentException.class, () -> s.curveSecretKeyBytes(new byte[length])).getMessage());
            assertEquals("secretKey must be a 32-byte binary key: length=" + length,
                    assertThrows(IllegalArgumentException.class, () -> Curve.publicKeyBytes(new byte[length])).getMessage());
        }
        assertArrayEquals(ZEROS, s.curveSecretKeyBytes(), "nothing reached libzmq");
        assertEquals("secretKey is null", assertThrows(NullPointerException.class, () -> Curve.publicKeyBytes(null)).getMessage());

        byte[] pub = new byte[Curve.KEY_BYTES];
        assertEquals("secretKey is null", assertThrows(NullPointerException.class, () -> Curve.keypair(pub, null)).getMessage());
        assertEquals("publicKey is null",
                assertThrows(NullPointerException.class, () -> Curve.keypair(null, new byte[Curve.KEY_BYTES])).getMessage());
        assertEquals("secretKey must be a 32-byte binary key: length=31",
                assertThrows(IllegalArgumentException.class, () -> Curve.keypair(pub, new byte[31])).getMessage());
        assertEquals("publicKey must be a 32-byte binary key: length=64",
                assertThrows(IllegalArgumentException.class, () -> Curve.keypair(new byte[64], new byte[Curve.KEY_BYTES])).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Curve.keypair(pub, pub)).getMessage()
                .startsWith("publicKey and secretKey are the same array"));
        assertArrayEquals(ZEROS, pub, "a refused call wrote nothing");

        byte[] sec = new byte[Curve.KEY_BYTES];
        Curve.keypair(pub, sec);
        s.curveSecretKeyBytes(sec);
        assertThrows(IllegalArgumentException.class, () -> s.curveSecretKeyBytes(new byte[31]));
        assertArrayEquals(sec, s.curveSecretKeyBytes(), "a refused key leaves the one set before");
    }

    /**
     * Z85 keys as characters: decoded and encoded as the String calls do, each call's array a new
     * one of the caller's, and a key of the wrong length or with a character outside the alphabet
     * refused with a message naming the problem and not holding the key.
     */
    @Test
    void shouldDecodeAndEncodeZ85KeysAsCharactersLikeTheStringCalls() {
        Curve.KeyPair pair = Curve.keypair();
        String secret = pair.secretKey();
        char[] text = secret.toCharArray();
        byte[] binary = Curve.z85DecodeKey(CharBuffer.wrap(text));
        assertArrayEquals(Curve.z85Decode(secret), binary);
        assertArrayEquals(binary, Curve.z85DecodeKey(new StringBuilder(secret)), "any CharSequence");
        assertEquals(secret, new String(text), "the characters are only read");
        assertArrayEquals(Curve.z85Decode(pair.publicKey()), Curve.publicKeyBytes(binary));

        char[] encoded = Curve.z85EncodeChars(binary);
        assertEquals(Curve.z85Encode(binary), new String(encoded));
        assertArrayEquals(text, encoded);
        assertEquals(0, Curve.z85EncodeChars(new byte[0]).length);
        assertEquals("z85 input length must be a multiple of 4: length=31",
                assertThrows(IllegalArgumentException.class, () -> Curve.z85EncodeChars(new byte[31])).getMessage());

        Arrays.fill(binary, (byte) 0);
        Arrays.fill(encoded, '\0');
        assertArrayEquals(Curve.z85Decode(secret), Curve.z85DecodeKey(CharBuffer.wrap(text)),
                "a zeroed result does not change the next call's");
        assertEquals(secret, new String(Curve.z85EncodeChars(Curve.z85Decode(secret))), "nor a zeroed text");

        assertEquals("Z85 key is null", assertThrows(NullPointerException.class, () -> Curve.z85DecodeKey(null)).getMessage());
        for (String wrong : new String[] {"", secret.substring(1), secret + "0", secret + secret}) {
            String message = assertThrows(IllegalArgumentException.class, () -> Curve.z85DecodeKey(wrong)).getMessage();
            assertEquals("Z85 key must be a 40-character Z85 key: length=" + wrong.length(), message);
        }
        char[] bad = secret.toCharArray();
        bad[7] = '"';
        String message = assertThrows(IllegalArgumentException.class, () -> Curve.z85DecodeKey(CharBuffer.wrap(bad))).getMessage();
        assertEquals("Z85 key: not a Z85 character at index 7: '\"' (U+0022)", message);
        bad[7] = '\n';
        message = assertThrows(IllegalArgumentException.class, () -> Curve.z85DecodeKey(CharBuffer.wrap(bad))).getMessage();
        assertEquals("Z85 key: not a Z85 character at index 7: (U+000A)", message);
        char[] above = secret.toCharArray();
        Arrays.fill(above, 35, 40, '#'); // 84 * (85^4 + ... + 1) > 0xFFFFFFFF
        message = assertThrows(IllegalArgumentException.class, () -> Curve.z85DecodeKey(CharBuffer.wrap(above))).getMessage();
        assertEquals("Z85 key: not a Z85 key, the group of 5 characters at index 35 stands for more than 32 bits", message);
        assertFalse(message.contains(secret.substring(0, 35)), "no key in the message");
        pair.destroy();
    }
}
