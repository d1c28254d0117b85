package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The {@link ReceivedMessage} view read on a thread other than the one receiving. Its region is in
 * a shared arena (a receiver may change threads), so FFM refuses no thread, and the view is read
 * without the receiver's call guard: a read handed over with a happens-before edge is the
 * documented "one thread at a time" and works; a read that overlaps a receive on another thread is
 * two threads at once and is refused naming the receiving thread. Until 2026-11-29 such a read
 * passed the view's validity check, then found the part count the next receive had just reset, and
 * threw {@code IndexOutOfBoundsException} "part index out of range: index=0, parts=0" (about 1 in
 * 300,000 reads racing a receive loop), or said "the last receive did not return RECEIVED" of a
 * receive still in progress, or copied a part torn between two messages.
 */
class ViewFromAnotherThreadTest {

    /** A read handed over after the receive (here: a thread started after it) sees the message whole. */
    @Test
    void shouldReadAViewHandedOverToAnotherThreadAfterTheReceive() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            byte[] payload = Fixtures.payload(5000, 1);
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                sender.send(payload, 0);
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                ReceivedMessage m = receiver.message();
                byte[] read = CompletableFuture.supplyAsync(() -> m.partBytes(m.parts() - 1)).get(20, TimeUnit.SECONDS);
                assertArrayEquals(payload, read);
            }
        }
    }

    /**
     * While the owner is blocked in {@code receive(0)}, every accessor refused on another thread
     * names the thread receiving; before 2026-11-29 they said "the last receive did not return
     * RECEIVED", of the receive that did and with the next one still in progress.
     */
    @Test
    void shouldRefuseAViewReadWhileAnotherThreadReceivesNamingIt() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                ReceivedMessage m = receiver.message();
                CountDownLatch first = new CountDownLatch(1);
                AtomicReference<Throwable> failed = new AtomicReference<>();
                Thread owner = new Thread(() -> {
                    try {
                        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                        first.countDown();
                        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0)); // blocks until the second
                    } catch (Throwable t) {
                        failed.set(t);
                        first.countDown();
                    }
                }, "view-owner");
                owner.start();
                sender.send(Fixtures.payload(100, 1), 0);
                assertTrue(first.await(20, TimeUnit.SECONDS));
                // the second receive has begun once the view no longer holds the first message
                assertTrue(Fixtures.await(() -> !m.isValid(), 20_000), "the second receive never began");
                List<Executable> reads = List.of(m::parts, () -> m.part(0), () -> m.segment(0), () -> m.partOffset(0),
                        () -> m.partSize(0), () -> m.isCompressed(0), () -> m.partBytes(0), m::totalSize, m::region,
                        m::sequence);
                for (int r = 0; r < reads.size(); r++) {
                    int read = r;
                    IllegalStateException e = assertThrows(IllegalStateException.class, reads.get(r), () -> "read " + read);
                    assertTrue(e.getMessage().contains("receiving=view-owner")
                            && e.getMessage().contains("thread=" + Thread.currentThread().getName()),
                            () -> "read " + read + " does not name both threads: " + e.getMessage());
                }
                sender.send(Fixtures.payload(100, 2), 0);
                owner.join(20_000);
                if (failed.get() != null) {
                    fail("the owner failed", failed.get());
                }
                assertTrue(m.isValid(), "the second message, handed over by the join");
                assertEquals(2, m.sequence());
            }
        }
    }

    /**
     * A thread reading the view in a loop while the owner receives messages of three sizes: every
     * read is one message's bytes whole, or a refusal naming the receiving thread; never an
     * {@code IndexOutOfBoundsException} or a copy torn between two messages.
     */
    @Test
    void shouldReadAMessageWholeOrRefuseNamingTheReceivingThreadWhileItReceives() throws Exception {
        byte[][] payloads = {Fixtures.payload(200, 1), Fixtures.payload(3000, 2), Fixtures.payload(40_000, 3)};
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                sender.send(payloads[2], 0); // grows the region once, before the reader starts
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                ReceivedMessage m = receiver.message();
                AtomicBoolean stop = new AtomicBoolean();
                AtomicReference<Throwable> wrong = new AtomicReference<>();
                AtomicLong whole = new AtomicLong();
                AtomicLong refused = new AtomicLong();
                String owner = Thread.currentThread().getName();
                Thread reader = new Thread(() -> {
                    while (!stop.get() && wrong.get() == null) {
                        try {
                            byte[] b = m.partBytes(0);
                            if (Arrays.stream(payloads).noneMatch(p -> Arrays.equals(p, b))) {
                                wrong.set(new AssertionError("a copy that is no message: length=" + b.length));
                            }
                            whole.incrementAndGet();
                        } catch (IllegalStateException e) {
                            if (e.getMessage() == null || !e.getMessage().contains("receiving=" + owner)) {
                                wrong.set(e);
                            }
                            refused.incrementAndGet();
                        } catch (Throwable t) {
                            wrong.set(t);
                        }
                    }
                }, "view-reader");
                reader.start();
                for (int i = 0; i < 20_000 && wrong.get() == null; i++) {
                    sender.send(payloads[i % 3], 0);
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                }
                stop.set(true);
                reader.join(20_000);
                if (wrong.get() != null) {
                    fail("a read from another thread: whole=" + whole + ", refused=" + refused, wrong.get());
                }
                assertTrue(whole.get() > 0, () -> "no read went through: refused=" + refused);
            }
        }
    }
}
