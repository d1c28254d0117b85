package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.transport.Curve;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * CURVE-encrypted compressed streams: compression happens before encryption (the pipeline
 * compresses, libzmq encrypts each frame), so the wire carries ciphertext of zstd frames. A
 * client holding the wrong server key never completes the handshake and receives nothing.
 */
class CurveEncryptionTest {

    /** How long the wrong client is the only one; a loopback handshake takes milliseconds. */
    private static final Duration WRONG_CLIENT_ALONE = Duration.ofSeconds(3);

    @Test
    void shouldDeliverCompressedStreamOverCurveAndNothingToAClientWithTheWrongServerKey() throws InterruptedException {
        Curve.KeyPair server = Curve.keypair();
        Curve.KeyPair client = Curve.keypair();
        Curve.KeyPair impostor = Curve.keypair();
        try (ZmqContext context = new ZmqContext();
             ZmqSocket push = context.socket(SocketType.PUSH);
             ZmqSocket good = context.socket(SocketType.PULL);
             ZmqSocket wrong = context.socket(SocketType.PULL)) {
            push.curveServer(true);
            push.curveSecretKey(server.secretKey());
            push.sendTimeoutMs(30_000); // a blocking send that finds no peer fails the test instead of hanging
            push.bind("tcp://127.0.0.1:*");
            String endpoint = push.lastEndpoint();

            // The wrong client trusts another server key: its handshake fails, it never gets a pipe.
            wrong.curveServerKey(impostor.publicKey());
            wrong.curvePublicKey(client.publicKey());
            wrong.curveSecretKey(client.secretKey());
            wrong.connect(endpoint);

            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver goodReceiver = DecompressingReceiver.builder(good).build();
                 DecompressingReceiver wrongReceiver = DecompressingReceiver.builder(wrong).build()) {
                // The wrong client alone, and a sender that keeps trying: a bound PUSH gets a
                // pipe only when a handshake completes, so no send may be taken, and nothing
                // may reach the wrong client, for the whole window (it reconnects and retries).
                long attempts = 0;
                long end = System.nanoTime() + WRONG_CLIENT_ALONE.toNanos();
                while (System.nanoTime() < end) {
                    assertFalse(sender.send(Frames.text(4096, -1), ZmqSocket.DONTWAIT),
                            "PUSH found a peer although its only client has the wrong server key");
                    assertEquals(DecompressingReceiver.WOULD_BLOCK, wrongReceiver.receive(ZmqSocket.DONTWAIT));
                    attempts++;
                    Thread.sleep(10); // paces the attempts over the window; not a wait for a condition
                }
                assertEquals(attempts, sender.stats().wouldBlock());

                // The good client: its handshake completes, and the whole stream reaches it.
                good.curveServerKey(server.publicKey());
                good.curvePublicKey(client.publicKey());
                good.curveSecretKey(client.secretKey());
                good.receiveTimeoutMs(10_000);
                good.connect(endpoint);
                for (int i = 0; i < 200; i++) {
                    assertTrue(sender.send(Frames.text(4096, i), 0), "message " + i + " not taken within the send timeout");
                }
                for (int i = 0; i < 200; i++) {
                    assertEquals(DecompressingReceiver.RECEIVED, goodReceiver.receive(0), "message " + i);
                    assertArrayEquals(Frames.text(4096, i), goodReceiver.message().partBytes(0));
                }
                // PUSH round-robins over connected peers: had the wrong client been accepted at
                // any time since the start, it would have taken part of the stream, and the
                // good client would have missed those messages above.
                assertEquals(DecompressingReceiver.WOULD_BLOCK, wrongReceiver.receive(ZmqSocket.DONTWAIT));
                assertEquals(0, wrongReceiver.stats().messages());
                assertEquals(0, goodReceiver.stats().errors());
            }
        }
    }
}
