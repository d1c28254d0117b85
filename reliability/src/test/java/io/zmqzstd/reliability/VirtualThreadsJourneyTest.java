package io.zmqzstd.reliability;

import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.testkit.ForkedJvm;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import static io.zmqzstd.reliability.VirtualThreadsJourneySupport.event;
import static io.zmqzstd.reliability.VirtualThreadsJourneySupport.producerOf;
import static io.zmqzstd.reliability.VirtualThreadsJourneySupport.seqOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a user builds from the READMEs alone for a service on virtual threads and executors:
 * many virtual threads each with a socket and a {@code CompressingSender} of their own, a consumer
 * on a platform thread, one {@code ParallelCompressingSender} shared by several producers, senders
 * and receivers handed between threads, and the whole stopped from another thread. Every claim
 * about threads it relies on is quoted where it is checked.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VirtualThreadsJourneyTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int RECEIVE_TIMEOUT_MS = 100;

    /**
     * Root README: "blocking calls on a platform thread (a virtual thread blocked in libzmq holds its
     * carrier ...)"; transport README "Threading": "virtual threads may use the non-blocking forms
     * (`DONTWAIT`, which return would-block instead of waiting)"; "`ZmqContext.socket()`,
     * `shutdown()` and `close()` are thread-safe".
     */
    @Test
    void shouldDeliverEveryEventOfManyVirtualThreadsEachWithItsOwnSenderInOrderPerProducer() throws Exception {
        int producers = 100;
        int perProducer = 60;
        int size = 700;
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.receiveTimeoutMs(RECEIVE_TIMEOUT_MS);
            pull.bind(endpoint);
            int total = producers * perProducer;
            CompletableFuture<int[]> consumed = new CompletableFuture<>();
            // pipeline README "Virtual threads": "Run receive loops on platform threads"
            Thread consumer = Thread.ofPlatform().name("consumer").start(() -> {
                try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                    int[] next = new int[producers];
                    int got = receiveEvents(receiver, next, total, size);
                    PipelineStats stats = receiver.stats();
                    assertEquals(got, stats.messages());
                    assertEquals(0, stats.errors());
                    consumed.complete(next);
                } catch (Throwable t) {
                    consumed.completeExceptionally(t);
                }
            });

            long[] refusals = new long[producers];
            try (ExecutorService service = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> tasks = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    int id = p;
                    tasks.add(service.submit(() -> {
                        assertTrue(Thread.currentThread().isVirtual());
                        ZmqSocket push = ctx.socket(SocketType.PUSH);
                        push.sendHwm(8);
                        push.connect(endpoint);
                        try (CompressingSender sender = CompressingSender.builder(push).level(3).build();
                             Arena arena = Arena.ofConfined()) {
                            MemorySegment payload = arena.allocate(size);
                            long falses = 0;
                            for (int seq = 0; seq < perProducer; seq++) {
                                MemorySegment.copy(event(id, seq, size), 0, payload, ValueLayout.JAVA_BYTE, 0, size);
                                // root README: "at the high-water mark: nothing was sent, the payload is still yours"
                                while (!sender.send(payload, ZmqSocket.DONTWAIT)) {
                                    falses++;
                                    LockSupport.parkNanos(200_000); // back-off: the docs offer no wait that frees the carrier
                                }
                            }
                            PipelineStats stats = sender.stats(); // on the owner's thread: figures that add up
                            assertEquals(perProducer, stats.messages());
                            // pipeline README "Counters": "would-block returns (sends that returned false ...)"
                            assertEquals(falses, stats.wouldBlock());
                            refusals[id] = falses;
                        }
                        push.close();
                        return null;
                    }));
                }
                for (Future<?> task : tasks) {
                    task.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                }
            }
            int[] next = consumed.get(WAIT.toSeconds() + 5, TimeUnit.SECONDS);
            consumer.join();
            for (int p = 0; p < producers; p++) {
                assertEquals(perProducer, next[p], "events of producer " + p);
            }
            System.out.println("virtual producers: " + producers + " x " + perProducer + ", would-block returns "
                    + Arrays.stream(refusals).sum());
        }
    }

    /**
     * pipeline README "One thread at a time": "A `ParallelCompressingSender` is the same towards its
     * producer (one thread at a time in `send`, `publish`, `flush`, `close`)"; "hand it over with a
     * happens-before edge, e.g. a queue". Several producers therefore share it under a lock.
     */
    @Test
    void shouldCarryTheEventsOfSeveralProducersSharingAParallelSenderUnderALock() throws Exception {
        int producers = 4;
        int perProducer = 400;
        int size = 2048;
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.receiveTimeoutMs(RECEIVE_TIMEOUT_MS);
            pull.bind("inproc://shared-parallel");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect("inproc://shared-parallel");
            ReentrantLock lock = new ReentrantLock();
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(2).inFlight(16).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
                 ExecutorService service = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> tasks = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    int id = p;
                    tasks.add(service.submit(() -> {
                        for (int seq = 0; seq < perProducer; seq++) {
                            byte[] e = event(id, seq, size);
                            lock.lock();
                            try {
                                assertTrue(sender.send(e, 0));
                            } finally {
                                lock.unlock();
                            }
                        }
                        return null;
                    }));
                }
                int got = receiveEvents(receiver, new int[producers], producers * perProducer, size);
                for (Future<?> task : tasks) {
                    task.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                }
                assertEquals(producers * perProducer, got);
                lock.lock();
                try {
                    sender.flush();
                    // "Counters from another thread": "(a `ParallelCompressingSender`'s workers count as they send: there, after `flush()`)"
                    assertEquals(producers * perProducer, sender.stats().messages());
                    assertEquals(0, sender.stats().droppedMessages());
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /**
     * pipeline README "One thread at a time": a second thread in `send`/`flush` while the producer
     * waits for room gets "an `IllegalStateException` naming both threads"; `stats()` and
     * `isClosed()` "are for any thread"; "Ending a wait": an interrupt ends no wait of a producer
     * "waiting in `send` ... for the ring to drain"; it "returns as it would have, and leaves the
     * interrupt flag set".
     */
    @Test
    void shouldRefuseASecondProducerNamingBothAndLetTheInterruptedWaiterGoOn() throws Exception {
        int size = 4096;
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.receiveHwm(2);
            pull.receiveTimeoutMs(RECEIVE_TIMEOUT_MS);
            pull.bind("inproc://refuse-second");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendHwm(2);
            push.connect("inproc://refuse-second");
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(2).inFlight(4).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                int sends = 40;
                AtomicBoolean flagAfterInterruptedSend = new AtomicBoolean();
                AtomicReference<Throwable> producerFailure = new AtomicReference<>();
                AtomicBoolean interrupted = new AtomicBoolean();
                Thread producer = Thread.ofPlatform().name("producer-A").start(() -> {
                    try {
                        for (int seq = 0; seq < sends; seq++) {
                            assertTrue(sender.send(event(0, seq, size), 0));
                            if (interrupted.get() && !flagAfterInterruptedSend.get()) {
                                flagAfterInterruptedSend.set(Thread.currentThread().isInterrupted());
                                Thread.interrupted();
                            }
                        }
                    } catch (Throwable t) {
                        producerFailure.set(t);
                    }
                });
                // nobody receives: the workers block at the high-water mark, the ring fills, the producer waits
                Await.until("the producer waiting for room in a full ring", WAIT, () ->
                        sender.inFlight() == sender.inFlightCapacity()
                                && (producer.getState() == Thread.State.WAITING || producer.getState() == Thread.State.TIMED_WAITING));
                PipelineStats before = sender.stats();          // any thread
                assertFalse(sender.isClosed());
                IllegalStateException second = assertThrows(IllegalStateException.class,
                        () -> sender.send(event(1, 0, size), ZmqSocket.DONTWAIT));
                String me = Thread.currentThread().getName();
                assertTrue(second.getMessage().contains("producer-A") && second.getMessage().contains(me), second.getMessage());
                System.out.println("second producer refused: " + second.getMessage());
                IllegalStateException flush = assertThrows(IllegalStateException.class, sender::flush);
                assertTrue(flush.getMessage().contains("producer-A"), flush.getMessage());
                assertTrue(before.messages() < sends);

                interrupted.set(true);
                producer.interrupt();
                assertTrue(producer.isAlive());
                // one producer's events only: the refused second producer's event was not taken
                int got = receiveEvents(receiver, new int[1], sends, size);
                producer.join(WAIT.toMillis()); // join: the happens-before edge that hands the sender back
                assertEquals(null, producerFailure.get());
                assertTrue(flagAfterInterruptedSend.get(), "the interrupt flag is left set for the caller");
                assertEquals(sends, got);
                sender.flush();
                assertEquals(sends, sender.stats().messages());
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT));
            }
        }
    }

    /**
     * pipeline README "One thread at a time": a sender or receiver may be handed over "with a
     * happens-before edge, e.g. a queue"; "a thread the receiver or the view is handed to with a
     * happens-before edge after a receive reads that message as the receiving thread does"; "Failures":
     * another thread's confined memory is "the caller's error: `send` throws it at once, nothing is
     * taken and the sender goes on".
     */
    @Test
    void shouldGoOnWithSendersAndReceiversHandedBetweenThreads() throws Exception {
        try (ZmqContext ctx = new ZmqContext();
             ExecutorService receiving = Executors.newSingleThreadExecutor(Thread.ofPlatform().name("receiving-", 0).factory())) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.receiveTimeoutMs(RECEIVE_TIMEOUT_MS);
            pull.bind("inproc://handover");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect("inproc://handover");
            SynchronousQueue<Object[]> queue = new SynchronousQueue<>();
            Thread first = Thread.ofVirtual().name("first-owner").start(() -> {
                CompressingSender sender = CompressingSender.builder(push).build();
                for (int seq = 0; seq < 10; seq++) {
                    assertTrue(sender.send(event(0, seq, 300), ZmqSocket.DONTWAIT));
                }
                MemorySegment confined = Arena.ofConfined().allocate(300); // this thread's own memory
                try {
                    queue.put(new Object[] {sender, confined});
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            AtomicReference<Throwable> secondFailure = new AtomicReference<>();
            AtomicReference<PipelineStats> secondStats = new AtomicReference<>();
            Thread second = Thread.ofVirtual().name("second-owner").start(() -> {
                try {
                    Object[] handed = queue.take();
                    try (CompressingSender sender = (CompressingSender) handed[0]) {
                        RuntimeException wrong = assertThrows(RuntimeException.class,
                                () -> sender.send((MemorySegment) handed[1], ZmqSocket.DONTWAIT));
                        System.out.println("another thread's confined payload: " + wrong);
                        for (int seq = 10; seq < 20; seq++) {
                            assertTrue(sender.send(event(0, seq, 300), ZmqSocket.DONTWAIT));
                        }
                        secondStats.set(sender.stats());
                    }
                } catch (Throwable t) {
                    secondFailure.set(t);
                }
            });
            first.join();
            second.join();
            assertEquals(null, secondFailure.get());
            assertEquals(20, secondStats.get().messages(), "the refused confined payload was not counted");

            DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
            int[] next = new int[1];
            assertEquals(10, receiveEvents(receiver, next, 10, 300));
            // handed to an executor's platform thread: submit and get are the happens-before edges
            ReceivedMessage view = receiving.submit(() -> {
                assertEquals(10, receiveEvents(receiver, next, 10, 300));
                return receiver.message();
            }).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertArrayEquals(event(0, 19, 300), view.partBytes(0), "the view read on the thread it was handed to");
            assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT));
            assertEquals(20, receiver.stats().messages());
            assertEquals(0, receiver.stats().errors());
            receiver.close();
        }
    }

    /**
     * Receives {@code count} events, each the next of its producer ({@code next[producer]}, moved on)
     * and intact; a bad frame or an event of a producer outside {@code next} fails.
     */
    private static int receiveEvents(DecompressingReceiver receiver, int[] next, int count, int size) {
        int got = 0;
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (got < count && System.nanoTime() < deadline) {
            int r = receiver.receive(0);
            assertFalse(r == DecompressingReceiver.BAD_FRAME, () -> receiver.lastErrorMessage());
            if (r != DecompressingReceiver.RECEIVED) {
                continue;
            }
            byte[] body = receiver.message().partBytes(0);
            int p = producerOf(body);
            assertTrue(p >= 0 && p < next.length, "event of an unexpected producer " + p);
            assertEquals(next[p], seqOf(body), "order of producer " + p);
            assertArrayEquals(event(p, next[p], size), body);
            next[p]++;
            got++;
        }
        return got;
    }

    /**
     * pipeline README "One thread at a time": "That includes `close()` while another thread is blocked
     * in `receive(0)`: it throws and frees nothing"; "Ending a wait": after `ZmqContext.close()` from
     * any thread "the blocked receive then throws `ZmqException` (ETERM), and its thread can close the
     * receiver"; a parallel sender's "every later `send`, `flush` and `close` rethrows the ETERM
     * failure ... and the messages not sent are dropped and counted"; transport README "Threading":
     * "close marks each socket closed (a call that begins afterwards throws `IllegalStateException`)".
     */
    @Test
    void shouldStopReceiversVirtualSendersAndAParallelSenderWhenTheContextIsClosedFromAnotherThread() throws Exception {
        ZmqContext ctx = new ZmqContext();
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.bind("inproc://stop");
        ZmqSocket slowPull = ctx.socket(SocketType.PULL); // nobody reads it: the parallel sender's workers block
        slowPull.receiveHwm(2);
        slowPull.bind("inproc://stop-slow");

        ZmqSocket idlePull = ctx.socket(SocketType.PULL); // nobody sends to it: its receive stays blocked
        idlePull.bind("inproc://stop-idle");

        AtomicLong received = new AtomicLong();
        ReceiveLoop busy = new ReceiveLoop(pull, "busy-receiver", received);
        ReceiveLoop blocked = new ReceiveLoop(idlePull, "blocked-receiver", new AtomicLong());

        int virtualSenders = 8;
        ConcurrentLinkedQueue<String> senderEnds = new ConcurrentLinkedQueue<>();
        AtomicLong taken = new AtomicLong();
        AtomicLong counted = new AtomicLong();
        AtomicLong sending = new AtomicLong();
        ExecutorService service = Executors.newVirtualThreadPerTaskExecutor();
        List<Future<Long>> virtualTasks = new ArrayList<>();
        for (int v = 0; v < virtualSenders; v++) {
            int id = v;
            virtualTasks.add(service.submit(() -> {
                ZmqSocket push = ctx.socket(SocketType.PUSH);
                push.connect("inproc://stop");
                CompressingSender sender = CompressingSender.builder(push).build();
                byte[] e = event(id, 0, 500);
                long mine = 0;
                try {
                    while (true) {
                        if (sender.send(e, ZmqSocket.DONTWAIT)) {
                            if (mine++ == 0) {
                                sending.incrementAndGet();
                            }
                            taken.incrementAndGet();
                            // a send that does not block never unmounts: without this the first two virtual
                            // threads keep both carriers and the other six never start
                            Thread.yield();
                        } else {
                            LockSupport.parkNanos(100_000);
                        }
                    }
                } catch (RuntimeException end) {
                    counted.addAndGet(sender.stats().messages());
                    senderEnds.add(end.getClass().getSimpleName() + ": " + end.getMessage());
                    sender.close();
                }
                return mine;
            }));
        }

        ZmqSocket slowPush = ctx.socket(SocketType.PUSH);
        slowPush.sendHwm(2);
        slowPush.lingerMs(0);
        slowPush.connect("inproc://stop-slow");
        ParallelCompressingSender parallel = ParallelCompressingSender.builder(slowPush).workers(2).inFlight(8).build();
        AtomicLong parallelTaken = new AtomicLong();
        AtomicReference<Throwable> flushEnd = new AtomicReference<>();
        AtomicReference<Throwable> closeEnd = new AtomicReference<>();
        Thread flusher = Thread.ofPlatform().name("flusher").start(() -> {
            try {
                for (int seq = 0; seq < 12; seq++) {
                    if (parallel.send(event(9, seq, 1000), ZmqSocket.DONTWAIT)) {
                        parallelTaken.incrementAndGet();
                    }
                }
                parallel.flush();
            } catch (Throwable t) {
                flushEnd.set(t);
            } finally {
                try {
                    parallel.close();
                } catch (Throwable t) {
                    closeEnd.set(t);
                }
            }
        });

        Await.until("every virtual sender's events flowing", WAIT, () -> sending.get() == virtualSenders && received.get() > 200);
        Await.until("the idle receiver inside its receive", WAIT, blocked::insideSocketReceive);
        Await.until("the flusher waiting for blocked workers", WAIT,
                () -> flusher.getState() == Thread.State.WAITING || flusher.getState() == Thread.State.TIMED_WAITING);

        // "close() while another thread is blocked in receive(0): it throws and frees nothing"
        DecompressingReceiver blockedReceiver = blocked.receiver.get();
        IllegalStateException closeBeside = assertThrows(IllegalStateException.class, blockedReceiver::close);
        assertTrue(closeBeside.getMessage().contains("blocked-receiver"), closeBeside.getMessage());
        assertFalse(blockedReceiver.isClosed());

        Thread closer = Thread.ofPlatform().name("shutdown-hook").start(ctx::close);
        closer.join(WAIT.toMillis());
        assertFalse(closer.isAlive(), "ZmqContext.close() returned");
        busy.thread.join(WAIT.toMillis());
        blocked.thread.join(WAIT.toMillis());
        flusher.join(WAIT.toMillis());
        service.shutdown();
        assertTrue(service.awaitTermination(WAIT.toSeconds(), TimeUnit.SECONDS));

        // "Ending a wait": the blocked receive "throws `ZmqException` (ETERM), and its thread can close the receiver"
        ZmqException eterm = assertInstanceOf(ZmqException.class, blocked.end.get());
        assertTrue(eterm.isContextTerminated(), eterm.getMessage());
        assertTrue(blockedReceiver.isClosed(), "its own thread closed it after ETERM");
        // a receive loop that was not blocked at that moment meets the closed socket instead (transport
        // README: "a call that begins afterwards throws `IllegalStateException`"); the pipeline README's
        // "Ending a wait" names only ETERM, so a loop has to catch both
        Throwable busyEnd = busy.end.get();
        assertTrue(busyEnd instanceof ZmqException z && z.isContextTerminated()
                || busyEnd instanceof IllegalStateException && busyEnd.getMessage().startsWith("socket is closed"), String.valueOf(busyEnd));
        assertTrue(busy.receiver.get().isClosed());

        long sum = 0;
        for (Future<Long> task : virtualTasks) {
            sum += task.get();
        }
        assertEquals(taken.get(), sum);
        assertEquals(virtualSenders, senderEnds.size(), senderEnds.toString());
        for (String end : senderEnds) {
            assertTrue(end.startsWith("IllegalStateException") || end.startsWith("ZmqException"), end);
        }
        assertEquals(taken.get(), counted.get(), "each virtual sender's messages = its sends that returned true");
        assertTrue(received.get() <= taken.get());

        IllegalStateException flushFailure = assertInstanceOf(IllegalStateException.class, flushEnd.get());
        ZmqException cause = assertInstanceOf(ZmqException.class, flushFailure.getCause(), flushFailure.toString());
        assertTrue(cause.isContextTerminated());
        assertNotNull(closeEnd.get(), "close() rethrows the failure too");
        assertTrue(parallel.isClosed());
        PipelineStats stats = parallel.stats();
        assertEquals(parallelTaken.get(), stats.messages() + stats.droppedMessages(),
                "taken = messages + droppedMessages: " + stats);
        assertTrue(stats.droppedMessages() > 0, stats.toString());
        System.out.println("shutdown: virtual senders' ends " + senderEnds.iterator().next() + "; parallel " + stats);
    }

    /**
     * A refusal between two unnamed virtual threads (an executor's, as most are): the docs promise
     * "an `IllegalStateException` naming both threads"; the blocked call "goes on undisturbed".
     */
    @Test
    void shouldTellTwoUnnamedVirtualThreadsApartWhenRefusingTheSecond() throws Exception {
        try (ZmqContext ctx = new ZmqContext();
             ExecutorService service = Executors.newVirtualThreadPerTaskExecutor()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.bind("inproc://unnamed");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect("inproc://unnamed");
            DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
            AtomicReference<Thread> blockedThread = new AtomicReference<>();
            Future<Integer> blocked = service.submit(() -> {
                blockedThread.set(Thread.currentThread());
                return receiver.receive(0);
            });
            Await.until("the first virtual thread inside receive", WAIT, () -> blockedThread.get() != null);
            String refusal = service.submit(() -> {
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (System.nanoTime() < deadline) {
                    try {
                        receiver.receive(ZmqSocket.DONTWAIT); // WOULD_BLOCK until the other is inside
                    } catch (IllegalStateException e) {
                        return e.getMessage() + " | me=" + Thread.currentThread();
                    }
                    LockSupport.parkNanos(1_000_000);
                }
                return "never refused";
            }).get(WAIT.toSeconds() + 5, TimeUnit.SECONDS);
            System.out.println("refusal between unnamed virtual threads: " + refusal + " | blocked=" + blockedThread.get());
            try (CompressingSender sender = CompressingSender.builder(push).build()) {
                assertTrue(sender.send(event(0, 0, 100), 0));
            }
            assertEquals(DecompressingReceiver.RECEIVED, blocked.get(WAIT.toSeconds(), TimeUnit.SECONDS));
            // refused, the call inside undisturbed, each unnamed virtual thread named by its id (root README:
            // "a thread without a name, such as an executor's virtual thread, by its id"; until 2026-11-29
            // the message read "thread=, while in a call on thread=")
            assertTrue(refusal.startsWith("DecompressingReceiver used by two threads at once: thread=#"), refusal);
            assertTrue(refusal.contains("while in a call on thread=#" + blockedThread.get().threadId() + " (virtual)"), refusal);
            receiver.close();
        }
    }

    /**
     * transport README "Threading": "a call into libzmq that blocks ... keeps its virtual thread's
     * carrier for as long as it blocks ... while one virtual thread waited in `receive(buf, 0)`, a
     * second one did not run within 2 s". Checked in a child JVM with one carrier, as stated.
     */
    @Test
    void shouldKeepTheCarrierOfAVirtualThreadBlockedInAReceiveAsTheTransportSays() throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(30), VirtualThreadsJourneySupport.class,
                List.of("-Djdk.virtualThreadScheduler.parallelism=1", "-Djdk.virtualThreadScheduler.maxPoolSize=1"), "1000");
        assertTrue(out.contains(VirtualThreadsJourneySupport.PINNED + "\n")
                || out.contains(VirtualThreadsJourneySupport.PINNED + "\r\n"), out);
        assertTrue(out.contains(VirtualThreadsJourneySupport.RELEASED), out);
    }

    /** A receive loop on a platform thread, as the docs advise, that records how it ended and then closes its receiver. */
    private static final class ReceiveLoop {
        final Thread thread;
        final AtomicReference<DecompressingReceiver> receiver = new AtomicReference<>();
        final AtomicReference<Throwable> end = new AtomicReference<>();

        ReceiveLoop(ZmqSocket socket, String name, AtomicLong received) {
            DecompressingReceiver r = DecompressingReceiver.builder(socket).build();
            receiver.set(r);
            // Thread.start is the happens-before edge that hands the receiver to its loop
            thread = Thread.ofPlatform().name(name).start(() -> {
                try {
                    while (true) {
                        if (r.receive(0) == DecompressingReceiver.RECEIVED) {
                            received.incrementAndGet();
                        }
                    }
                } catch (Throwable t) {
                    end.set(t);
                } finally {
                    r.close();
                }
            });
        }

        /** Whether the loop's thread is inside the socket's receive, so inside the receiver's call too. */
        boolean insideSocketReceive() {
            for (StackTraceElement frame : thread.getStackTrace()) {
                if (frame.getClassName().equals(ZmqSocket.class.getName()) && frame.getMethodName().equals("receive")) {
                    return true;
                }
            }
            return false;
        }
    }
}
