package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

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

    @Test
    void shouldRoundTripZ85AndRejectBadLengths() {
        byte[] data = {(byte) 0x86, 0x4F, (byte) 0xD2, 0x6F, (byte) 0xB5, 0x59, (byte) 0xF7, 0x5B};
        assertEquals("HelloWorld", Curve.z85Encode(data)); // the Z85 spec's test vector
        assertArrayEquals(data, Curve.z85Decode("HelloWorld"));
        assertThrows(IllegalArgumentException.class, () -> Curve.z85Encode(new byte[3]));
        assertThrows(IllegalArgumentException.class, () -> Curve.z85Decode("abcd"));
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

    @Test
    void shouldDeliverNothingWithAWrongServerKey() {
        Curve.KeyPair serverKeys = Curve.keypair();
        Curve.KeyPair impostor = Curve.keypair();
        assertNull(sendOverCurve(serverKeys, impostor.publicKey(), 500));
    }
}
