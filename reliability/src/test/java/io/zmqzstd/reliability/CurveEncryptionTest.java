package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.transport.Curve;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.Test;

/**
 * CURVE-encrypted compressed streams: compression happens before encryption (the pipeline
 * compresses, libzmq encrypts each frame), so the wire carries ciphertext of zstd frames. A
 * client holding the wrong server key never completes the handshake and receives nothing.
 */
class CurveEncryptionTest {

    @Test
    void shouldDeliverCompressedStreamOverCurveAndNothingToAClientWithTheWrongServerKey() {
        Curve.KeyPair server = Curve.keypair();
        Curve.KeyPair client = Curve.keypair();
        Curve.KeyPair impostor = Curve.keypair();
        try (ZmqContext context = new ZmqContext();
             ZmqSocket push = context.socket(SocketType.PUSH);
             ZmqSocket good = context.socket(SocketType.PULL);
             ZmqSocket wrong = context.socket(SocketType.PULL)) {
            push.curveServer(true);
            push.curveSecretKey(server.secretKey());
            push.bind("tcp://127.0.0.1:*");
            String endpoint = push.lastEndpoint();

            // The wrong client trusts another server key: its handshake fails, it never gets a pipe.
            wrong.curveServerKey(impostor.publicKey());
            wrong.curvePublicKey(client.publicKey());
            wrong.curveSecretKey(client.secretKey());
            wrong.connect(endpoint);

            good.curveServerKey(server.publicKey());
            good.curvePublicKey(client.publicKey());
            good.curveSecretKey(client.secretKey());
            good.receiveTimeoutMs(10_000);
            good.connect(endpoint);

            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver goodReceiver = DecompressingReceiver.builder(good).build();
                 DecompressingReceiver wrongReceiver = DecompressingReceiver.builder(wrong).build()) {
                for (int i = 0; i < 200; i++) {
                    sender.send(Frames.text(4096, i), 0);
                }
                for (int i = 0; i < 200; i++) {
                    assertEquals(DecompressingReceiver.RECEIVED, goodReceiver.receive(0), "message " + i);
                    assertArrayEquals(Frames.text(4096, i), goodReceiver.message().partBytes(0));
                }
                // PUSH round-robins over connected peers: had the wrong client been accepted it
                // would have taken half of the stream, and the loop above would have stalled.
                wrong.receiveTimeoutMs(300);
                assertEquals(DecompressingReceiver.WOULD_BLOCK, wrongReceiver.receive(0));
                assertEquals(0, wrongReceiver.stats().messages());
                assertEquals(0, goodReceiver.stats().errors());
            }
        }
    }
}
