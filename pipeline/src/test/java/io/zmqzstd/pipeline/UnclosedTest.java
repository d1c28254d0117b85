package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** Senders and receivers dropped without close(): their native memory is freed by the pipeline's cleaner. */
class UnclosedTest {

    /**
     * What one dropped owner leaves for the test to watch: a weak reference to it, its memory, and
     * the sender's staging arena (null for the receiver).
     */
    private record Dropped(WeakReference<Object> owner, Unclosed.Memory memory, Arena staging) {

        boolean freed() {
            return owner.get() == null && memory.freed() && (staging == null || !staging.scope().isAlive());
        }
    }

    @Test
    void shouldFreeTheMemoryOfASenderAndAReceiverDroppedUnclosed() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            long reported = Unclosed.FREED_UNCLOSED.get();
            List<Dropped> dropped = useAndDrop(link, Fixtures.payload(256 * 1024, 7));
            for (Dropped d : dropped) {
                assertFalse(d.memory().freed(), "freed while its owner was still reachable");
            }
            collectUntil("both owners collected and their memory freed", () -> dropped.stream().allMatch(Dropped::freed));
            assertTrue(Unclosed.FREED_UNCLOSED.get() >= reported + 2, "each reported as unclosed");
            assertTrue(Fixtures.await(() -> ctx.bufferPool().outstanding() == 0, 10_000), () -> ctx.bufferPool().stats().toString());

            // The sockets were only borrowed: a new sender and receiver carry on over them.
            byte[] next = Fixtures.payload(1000, 8);
            try (CompressingSender sender = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertTrue(sender.send(next, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(next, receiver.message().partBytes(0));
            }
        }
    }

    @Test
    void shouldFreeAClosedOwnerOnceAndNotReportIt() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            long reported = Unclosed.FREED_UNCLOSED.get();
            CompressingSender sender = CompressingSender.builder(link.client()).build();
            DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build();
            Unclosed.Memory senderMemory = sender.memory();
            Unclosed.Memory receiverMemory = receiver.memory();
            assertTrue(sender.send(new byte[1000], 0)); // from rawFrameBelowBytes (128 B) on, arrays are staged
            Arena staging = senderMemory.staging;
            assertTrue(staging != null && staging.scope().isAlive(), "an array payload was staged");
            sender.close();
            receiver.close();
            assertTrue(senderMemory.freed() && receiverMemory.freed(), "close() frees at once");
            assertFalse(staging.scope().isAlive(), "close() frees the staging memory");
            WeakReference<Object> s = new WeakReference<>(sender);
            WeakReference<Object> r = new WeakReference<>(receiver);
            sender = null;
            receiver = null;
            collectUntil("the closed owners collected", () -> s.get() == null && r.get() == null);
            assertEquals(reported, Unclosed.FREED_UNCLOSED.get(), "a closed owner is not reported");
        }
    }

    /**
     * A sender and a receiver that move one message (large enough to grow the receiver's region,
     * so that the arena the cleaner frees is not the first one) and one small enough to be
     * staged by the sender, dropped unclosed.
     */
    private static List<Dropped> useAndDrop(Fixtures.Link link, byte[] data) {
        CompressingSender sender = CompressingSender.builder(link.client()).build();
        DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build();
        byte[] small = Fixtures.payload(1000, 9);
        for (byte[] payload : new byte[][] {data, small}) {
            assertTrue(sender.send(payload, 0));
            assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
            assertArrayEquals(payload, receiver.message().partBytes(0));
            if (payload == data) {
                assertTrue(receiver.message().region().byteSize() > 64 * 1024, "the region grew");
            }
        }
        Arena staging = sender.memory().staging;
        assertTrue(staging != null && staging.scope().isAlive(), "the small payload was staged");
        return List.of(new Dropped(new WeakReference<>(sender), sender.memory(), staging),
                new Dropped(new WeakReference<>(receiver), receiver.memory(), null));
    }

    @Test
    void shouldStopTheThreadsOfAParallelSenderDroppedUnclosed() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            long reported = Unclosed.FREED_UNCLOSED.get();
            List<Thread> workers = new CopyOnWriteArrayList<>();
            WeakReference<Object> sender = sendAndDropParallel(link, workers, 40);
            try (DecompressingReceiver r = DecompressingReceiver.builder(link.server()).build()) {
                for (int i = 0; i < 40; i++) {
                    System.gc(); // while messages are still in the ring: they keep the sender, and all arrive
                    assertEquals(DecompressingReceiver.RECEIVED, r.receive(0), r::lastErrorMessage);
                    assertArrayEquals(Fixtures.payload(20_000, i), r.message().partBytes(0), "message " + i);
                }
            }
            assertEquals(3, workers.size());
            collectUntil("the sender collected and its threads ended", () -> sender.get() == null
                    && workers.stream().noneMatch(Thread::isAlive));
            assertTrue(Unclosed.FREED_UNCLOSED.get() >= reported + 1, "reported as unclosed");
            assertTrue(Fixtures.await(() -> ctx.bufferPool().outstanding() == 0, 10_000), () -> ctx.bufferPool().stats().toString());

            // The socket was only borrowed: a new parallel sender carries on over it.
            byte[] next = Fixtures.payload(1000, 99);
            try (ParallelCompressingSender again = ParallelCompressingSender.builder(link.client()).workers(2).build();
                 DecompressingReceiver r = DecompressingReceiver.builder(link.server()).build()) {
                assertTrue(again.send(next, 0));
                again.flush();
                assertEquals(DecompressingReceiver.RECEIVED, r.receive(0), r::lastErrorMessage);
                assertArrayEquals(next, r.message().partBytes(0));
            }
        }
    }

    /**
     * A message taken before any worker first ran keeps the sender: no worker holds it yet and none
     * is parked to be handed it, so before 2026-11-25 the first collection took the sender with the
     * message in its ring, the worker found the reference cleared and exited, and the message and
     * its pooled buffer were lost. The worker is held at its start until after the collections.
     */
    @Test
    void shouldSendWhatAParallelSenderTookBeforeItsWorkerRan() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> workers = new CopyOnWriteArrayList<>();
            WeakReference<Object> sender = sendOneAndDropBeforeTheWorkerRuns(link, start, workers);
            for (int i = 0; i < 3; i++) {
                System.gc(); // a full collection clears a weak reference to an unreachable sender
            }
            assertTrue(sender.get() != null, "collected with a message in its ring");
            start.countDown();
            link.server().receiveTimeoutMs(10_000);
            try (DecompressingReceiver r = DecompressingReceiver.builder(link.server()).build()) {
                assertEquals(DecompressingReceiver.RECEIVED, r.receive(0), r::lastErrorMessage);
                assertArrayEquals(Fixtures.payload(5000, 3), r.message().partBytes(0));
            }
            collectUntil("the sender collected and its thread ended", () -> sender.get() == null
                    && workers.stream().noneMatch(Thread::isAlive));
            assertTrue(Fixtures.await(() -> ctx.bufferPool().outstanding() == 0, 10_000), () -> ctx.bufferPool().stats().toString());
        }
    }

    private static WeakReference<Object> sendOneAndDropBeforeTheWorkerRuns(Fixtures.Link link, CountDownLatch start,
                                                                          List<Thread> workers) {
        ParallelCompressingSender sender = ParallelCompressingSender.builder(link.client()).workers(1)
                .threadFactory(r -> {
                    Thread t = Thread.ofPlatform().daemon().name("late-worker").unstarted(() -> {
                        try {
                            start.await();
                        } catch (InterruptedException e) {
                            return;
                        }
                        r.run();
                    });
                    workers.add(t);
                    return t;
                }).build();
        assertTrue(sender.send(Fixtures.payload(5000, 3), 0));
        return new WeakReference<>(sender);
    }

    /**
     * A parallel sender of 3 workers (recorded in {@code workers}) that takes {@code messages}
     * payloads of 20,000 bytes and is dropped unclosed at once, with messages still in its ring.
     */
    private static WeakReference<Object> sendAndDropParallel(Fixtures.Link link, List<Thread> workers, int messages) {
        ParallelCompressingSender sender = recordingWorkers(link, workers, 3);
        for (int i = 0; i < messages; i++) {
            assertTrue(sender.send(Fixtures.payload(20_000, i), 0));
        }
        return new WeakReference<>(sender);
    }

    /**
     * README, "Ownership": an owner dropped unclosed is reported with a warning on the
     * {@code io.zmqzstd.pipeline} System.Logger at the 1st, 2nd, 4th, 8th... such owner, and at no
     * other. Receivers enough are dropped to pass two powers of two of the process-wide count.
     */
    @Test
    void shouldWarnAtTheFirstSecondFourthEighthOwnerDroppedUnclosed() throws Exception {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger("io.zmqzstd.pipeline");
        List<String> warnings = new CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = handler(r -> {
            if (r.getLevel() == java.util.logging.Level.WARNING) {
                warnings.add(r.getMessage());
            }
        });
        log.addHandler(handler);
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            long before = Unclosed.FREED_UNCLOSED.get();
            long next = before == 0 ? 1 : Long.highestOneBit(before) * 2;
            int drop = (int) (2 * next - before);
            List<WeakReference<Object>> dropped = new java.util.ArrayList<>();
            for (int i = 0; i < drop; i++) {
                dropped.add(new WeakReference<>(DecompressingReceiver.builder(pull).build()));
            }
            collectUntil(drop + " receivers collected and counted", () -> dropped.stream().allMatch(d -> d.get() == null)
                    && Unclosed.FREED_UNCLOSED.get() >= before + drop);
            long after = Unclosed.FREED_UNCLOSED.get();
            List<Long> expected = new java.util.ArrayList<>();
            for (long n = before + 1; n <= after; n++) {
                if (Long.bitCount(n) == 1) {
                    expected.add(n);
                }
            }
            assertTrue(expected.contains(next) && expected.contains(2 * next), expected::toString);
            // the count is taken before the warning is logged: wait for the last one
            assertTrue(Fixtures.await(() -> warnings.stream().anyMatch(w -> w.endsWith("freed so far: " + expected.getLast())), 10_000),
                    warnings::toString);
            List<Long> warned = warnings.stream().map(w -> Long.parseLong(w.substring(w.lastIndexOf(' ') + 1)))
                    .filter(n -> n > before && n <= after).toList();
            assertEquals(expected, warned, warnings::toString);
            assertTrue(warnings.stream().anyMatch(w -> w.startsWith("DecompressingReceiver was not closed")
                    && w.contains("close it when done")), warnings::toString);
        } finally {
            log.removeHandler(handler);
        }
    }

    /**
     * The warning goes to the application's logging, which may throw (a failing handler or
     * appender). The cleaner logged it first and freed afterwards, so a warning that threw left the
     * owner's native memory allocated for ever, and a parallel sender's worker threads parked for
     * ever (with their compressors) and an open claim's buffer rented. Now everything is freed,
     * stopped and returned whatever the logging does. Each owner is dropped with the count at 0, so
     * that its report is the 1st, which is always logged.
     */
    @Test
    void shouldFreeAndStopWhatWasDroppedUnclosedWhenTheWarningThrows() throws Exception {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger("io.zmqzstd.pipeline");
        List<String> thrown = new CopyOnWriteArrayList<>();
        java.util.logging.Handler failing = handler(r -> {
            thrown.add(r.getMessage());
            throw new IllegalStateException("the application's logging failed");
        });
        long saved = Unclosed.FREED_UNCLOSED.get();
        log.addHandler(failing);
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            Unclosed.FREED_UNCLOSED.set(0);
            List<Dropped> dropped = useAndDrop(link, Fixtures.payload(256 * 1024, 9));
            collectUntil("both owners collected and their memory freed", () -> dropped.stream().allMatch(Dropped::freed));
            assertTrue(Fixtures.await(() -> !thrown.isEmpty(), 10_000), "the warning was logged, and threw");

            Unclosed.FREED_UNCLOSED.set(0);
            thrown.clear();
            List<Thread> workers = new CopyOnWriteArrayList<>();
            WeakReference<Object> sender = claimAndDropParallel(link, workers);
            collectUntil("the parallel sender collected and its threads ended", () -> sender.get() == null
                    && workers.stream().noneMatch(Thread::isAlive));
            assertTrue(Fixtures.await(() -> !thrown.isEmpty(), 10_000), "the warning was logged, and threw");
            assertTrue(Fixtures.await(() -> ctx.bufferPool().outstanding() == 0, 10_000), () -> ctx.bufferPool().stats().toString());
        } finally {
            log.removeHandler(failing);
            Unclosed.FREED_UNCLOSED.set(saved + 3);
        }
    }

    /** A parallel sender of 2 workers (recorded in {@code workers}) with a claim open, dropped unclosed. */
    private static WeakReference<Object> claimAndDropParallel(Fixtures.Link link, List<Thread> workers) {
        ParallelCompressingSender sender = recordingWorkers(link, workers, 2);
        assertTrue(sender.claim(1000, 0).byteSize() >= 1000);
        return new WeakReference<>(sender);
    }

    /** A parallel sender on {@code link}'s client whose {@code count} worker threads are added to {@code workers}. */
    private static ParallelCompressingSender recordingWorkers(Fixtures.Link link, List<Thread> workers, int count) {
        return ParallelCompressingSender.builder(link.client()).workers(count)
                .threadFactory(r -> {
                    Thread t = Thread.ofPlatform().daemon().name("dropped-worker-" + workers.size()).unstarted(r);
                    workers.add(t);
                    return t;
                }).build();
    }

    /** A logging handler that passes each record to {@code publish}. */
    private static java.util.logging.Handler handler(java.util.function.Consumer<java.util.logging.LogRecord> publish) {
        return new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                publish.accept(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
    }

    private static void collectUntil(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 30 s of collections: " + what);
            System.gc();
            Thread.sleep(10); // gives the cleaner's thread its turn; the condition decides
        }
    }
}
