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

    @Test
    void shouldDeliverOverCurveWithTheRightServerKey() {
        Curve.KeyPair serverKeys = Curve.keypair();
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            configure(pull, push, serverKeys, serverKeys.publicKey());
            assertTrue(pull.curveServer());
            assertEquals(serverKeys.publicKey(), push.curveServerKey());
            pull.receiveTimeoutMs(5000);
            push.connect(Endpoints.bindAny(pull, "tcp"));
            assertTrue(push.send("secret".getBytes(StandardCharsets.UTF_8), 0));
            assertEquals("secret", pull.receiveString(0));
        }
    }

    @Test
    void shouldDeliverNothingWithAWrongServerKey() {
        Curve.KeyPair serverKeys = Curve.keypair();
        Curve.KeyPair impostor = Curve.keypair();
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            configure(pull, push, serverKeys, impostor.publicKey());
            pull.receiveTimeoutMs(500);
            push.lingerMs(0);
            push.connect(Endpoints.bindAny(pull, "tcp"));
            push.send("secret".getBytes(StandardCharsets.UTF_8), ZmqSocket.DONTWAIT);
            assertNull(pull.receiveBytes(0));
        }
    }
}
