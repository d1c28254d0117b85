package io.zmqzstd.reliability;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Payloads the virtual-thread journey numbers and checks, and the child JVM that checks the
 * transport README's claim that a virtual thread blocked in libzmq keeps its carrier.
 */
final class VirtualThreadsJourneySupport {

    /** Printed by the child when a second virtual thread did not run while the first was blocked. */
    static final String PINNED = "PINNED";
    /** Printed by the child when the second virtual thread ran beside the blocked one. */
    static final String NOT_PINNED = "NOT-PINNED";
    /** Printed by the child once the blocked receive returned and the second thread then ran. */
    static final String RELEASED = "RELEASED";

    private VirtualThreadsJourneySupport() {
    }

    /**
     * An event of {@code size} bytes: producer and sequence in the first 8 bytes, then JSON-like
     * text that compresses, derived from both so that a mixed-up or damaged body is seen.
     */
    static byte[] event(int producer, int seq, int size) {
        byte[] out = new byte[size];
        ByteBuffer.wrap(out).putInt(producer).putInt(seq);
        byte[] text = ("{\"host\":\"web-" + producer + "\",\"seq\":" + seq + ",\"level\":\"INFO\",\"msg\":\"request served\"}")
                .getBytes(StandardCharsets.US_ASCII);
        for (int i = 8; i < size; i++) {
            out[i] = text[(i - 8) % text.length];
        }
        return out;
    }

    static int producerOf(byte[] event) {
        return ByteBuffer.wrap(event).getInt(0);
    }

    static int seqOf(byte[] event) {
        return ByteBuffer.wrap(event).getInt(4);
    }

    /**
     * Child JVM, run with one carrier: one virtual thread blocks in {@code receive(buf, 0)}, a
     * second is started, and the child prints whether it ran within {@code args[0]} ms; then a
     * message ends the receive and the child prints {@link #RELEASED} once the second has run.
     */
    public static void main(String[] args) throws Exception {
        long windowMs = Long.parseLong(args[0]);
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.bind("inproc://pinned");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect("inproc://pinned");
            CountDownLatch aboutToReceive = new CountDownLatch(1);
            CountDownLatch secondRan = new CountDownLatch(1);
            Thread receiver = Thread.ofVirtual().name("blocked-receiver").start(() -> {
                aboutToReceive.countDown();
                pull.receive(new byte[16], 0);
            });
            aboutToReceive.await();
            Thread.ofVirtual().name("second").start(secondRan::countDown);
            boolean ran = secondRan.await(windowMs, TimeUnit.MILLISECONDS);
            System.out.println(ran ? NOT_PINNED : PINNED);
            push.send("wake".getBytes(StandardCharsets.US_ASCII), 0);
            receiver.join();
            if (secondRan.await(30, TimeUnit.SECONDS)) {
                System.out.println(RELEASED);
            }
        }
    }
}
