package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** libzmq (through this binding) and JeroMQ speak ZMTP 3 to each other over tcp. */
class JeroMqInteropTest {

    @Test
    void shouldDeliverFromThisBindingToJeroMq() {
        try (ZmqContext ctx = new ZmqContext(); ZContext jctx = new ZContext()) {
            ZMQ.Socket pull = jctx.createSocket(SocketType.PULL);
            pull.setReceiveTimeOut(5000);
            int port = pull.bindToRandomPort("tcp://127.0.0.1");
            ZmqSocket push = ctx.socket(io.zmqzstd.transport.SocketType.PUSH);
            push.connect("tcp://127.0.0.1:" + port);
            NativeBufferPool pool = ctx.bufferPool();
            for (int i = 0; i < 100; i++) {
                PooledBuffer b = pool.rent(20_000); // above the threshold: zero-copy
                b.segment().fill((byte) i);
                assertTrue(push.sendPooled(b, 20_000, 0));
                assertTrue(push.send(("small" + i).getBytes(StandardCharsets.UTF_8), 0));
            }
            for (int i = 0; i < 100; i++) {
                byte[] big = pull.recv(0);
                assertEquals(20_000, big.length);
                assertEquals((byte) i, big[19_999]);
                assertEquals("small" + i, pull.recvStr(0));
            }
            Buffers.awaitAllBack(pool);
        }
    }

    @Test
    void shouldDeliverMultipartFromJeroMqToThisBinding() {
        try (ZmqContext ctx = new ZmqContext(); ZContext jctx = new ZContext()) {
            ZmqSocket router = ctx.socket(io.zmqzstd.transport.SocketType.ROUTER);
            router.receiveTimeoutMs(5000);
            ZMQ.Socket dealer = jctx.createSocket(SocketType.DEALER);
            dealer.setIdentity("jero".getBytes(StandardCharsets.UTF_8));
            // JeroMQ binds and libzmq connects. The other way round (JeroMQ 0.6.0 connecting to a
            // libzmq listener) delivered nothing within 5 s in 2-5 of 15 runs when another JeroMQ
            // context had been used earlier in the JVM, and never when it ran alone: an open
            // question about that pairing, recorded in transport/README.md.
            int port = dealer.bindToRandomPort("tcp://127.0.0.1");
            router.connect("tcp://127.0.0.1:" + port);
            dealer.sendMore("head");
            dealer.send(new byte[70_000]);
            assertArrayEquals("jero".getBytes(StandardCharsets.UTF_8), router.receiveBytes(0));
            assertEquals("head", router.receiveString(0));
            assertTrue(router.hasMore());
            try (ZmqMessage msg = new ZmqMessage()) {
                assertTrue(router.receive(msg, 0));
                assertEquals(70_000, msg.size());
                assertTrue(!msg.hasMore());
            }
            router.send("jero".getBytes(StandardCharsets.UTF_8), ZmqSocket.SNDMORE);
            router.send("back".getBytes(StandardCharsets.UTF_8), 0);
            dealer.setReceiveTimeOut(5000);
            assertEquals("back", dealer.recvStr(0));
        }
    }
}
