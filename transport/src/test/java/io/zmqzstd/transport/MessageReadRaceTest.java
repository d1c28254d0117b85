package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The calls that read a ZmqMessage (size, hasMore, address, data, copyTo, toByteArray) on one
 * thread while another receives into it (misuse: a message is used by one thread at a time).
 * Until 2026-11-29 they were not checked: a probe calling size() or address() in a loop while
 * another thread received into the message over inproc made libzmq abort the JVM ("Assertion
 * failed: check () (src/msg.cpp:414)", exit 134) within 0.7 to 3.5 s, as zmq_msg_size and
 * zmq_msg_data met the zmq_msg_t between the receive's close of the old frame and its fill; copyTo
 * and toByteArray copied from a frame the receive could free under them. Now each read is refused
 * naming both threads, and one that gets through sees a whole frame. In a child JVM, as the old
 * code killed the JVM.
 */
class MessageReadRaceTest {

    private static final String REFUSED = "message used by two threads at once: thread=reader, while in a call on thread=receiver;";
    /** Frames the receiver takes; the reader reads until it is done. */
    private static final int FRAMES = 30_000;
    private static final int[] SIZES = {16, 1000, 100_000};
    /** Each of the six reads once, then size, hasMore and address in turn. */
    private static final int READS_PER_ROUND = 60;

    @Test
    void shouldRefuseReadsOfAMessageWhileAnotherThreadReceivesIntoItAndNeverCrash() throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(60), MessageReadRaceTest.class,
                List.of("-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/hs_err_pid%p.log"));
        assertTrue(out.contains("every frame received, every read whole or refused"), out);
        System.out.println(out.strip());
    }

    /** The child: "receiver" takes FRAMES frames into one message while "reader" reads it in a loop. */
    public static void main(String[] args) throws Exception {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        AtomicLong refusals = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        try (ZmqContext ctx = new ZmqContext(); ZmqMessage shared = new ZmqMessage()) {
            ZmqSocket pull = ContextTestBase.timed(ctx.socket(SocketType.PULL));
            ZmqSocket push = ContextTestBase.timed(ctx.socket(SocketType.PUSH));
            push.connect(Endpoints.bindAny(pull, "inproc"));
            AtomicBoolean done = new AtomicBoolean();
            Thread sender = SharedMessageTest.guarded("sender", failed, () -> {
                for (int i = 0; i < FRAMES; i++) {
                    byte[] frame = new byte[SIZES[i % SIZES.length]];
                    java.util.Arrays.fill(frame, (byte) i);
                    assertTrue(push.send(frame, 0), "sent within the timeout");
                }
            });
            Thread receiver = SharedMessageTest.guarded("receiver", failed, () -> {
                try {
                    for (int got = 0; got < FRAMES; ) {
                        try {
                            assertTrue(pull.receive(shared, 0), "a frame the sender sent, within the timeout");
                            got++;
                        } catch (IllegalStateException e) {
                            if (!e.getMessage().startsWith("message used by two threads at once: thread=receiver,"
                                    + " while in a call on thread=reader;")) {
                                throw e;
                            }
                        }
                    }
                } finally {
                    done.set(true);
                }
            });
            Thread reader = SharedMessageTest.guarded("reader", failed, () -> {
                MemorySegment dst = MemorySegment.ofArray(new byte[100_000]);
                while (!done.get()) {
                    for (int i = 0; i < READS_PER_ROUND; i++) {
                        try {
                            read(shared, i < 6 ? i : i % 3, dst); // mostly the short ones, that libzmq asserts in
                            reads.incrementAndGet();
                        } catch (IllegalStateException e) {
                            if (!e.getMessage().startsWith(REFUSED)) {
                                throw e;
                            }
                            refusals.incrementAndGet();
                        }
                    }
                }
            });
            for (Thread t : new Thread[] {sender, receiver, reader}) {
                t.join();
            }
            if (failed.get() != null) {
                throw new AssertionError("a thread failed", failed.get());
            }
            assertNull(pull.receiveBytes(ZmqSocket.DONTWAIT), "no frame more than the sender sent");
        }
        assertTrue(refusals.get() > 0, "the reads met the receives: " + reads + " reads, none refused");
        System.out.println("every frame received, every read whole or refused (reads=" + reads + ", refusals=" + refusals + ")");
    }

    /** One of the six reading calls; a frame read whole is one byte repeated, of one of the SIZES. */
    private static void read(ZmqMessage m, int call, MemorySegment dst) {
        switch (call) {
            case 0 -> checkSize(m.size());
            case 1 -> m.hasMore();
            case 2 -> m.address();
            case 3 -> checkSize(m.data().byteSize()); // not read through: the receive may end it any time
            case 4 -> {
                try {
                    m.copyTo(dst, 0);
                } catch (IndexOutOfBoundsException e) {
                    throw new AssertionError("a frame larger than any sent", e);
                }
            }
            default -> {
                byte[] frame = m.toByteArray();
                checkSize(frame.length);
                if (frame.length > 0) {
                    assertEquals(frame[0], frame[frame.length - 1], "a frame read whole, not a torn or freed one");
                }
            }
        }
    }

    private static void checkSize(long size) {
        assertTrue(size == 0 || size == SIZES[0] || size == SIZES[1] || size == SIZES[2], "size=" + size);
    }
}
