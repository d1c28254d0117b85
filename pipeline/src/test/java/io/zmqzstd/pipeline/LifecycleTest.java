package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LifecycleTest {

    @Test
    void shouldDetectTwoThreadsInsideOneReceiver() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            pull.receiveTimeoutMs(30_000);
            DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
            CompressingSender sender = CompressingSender.builder(push).build();
            // blocks until a message arrives
            BlockedCall blocked = new BlockedCall("first-user", "receive", () -> receiver.receive(0));
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> receiver.receive(ZmqSocket.DONTWAIT));
            assertTrue(e.getMessage().contains("first-user") && e.getMessage().contains(Thread.currentThread().getName()),
                    e.getMessage());
            // the refused call took nothing: the first thread still gets the next message whole
            byte[] data = Fixtures.payload(500, 3);
            assertTrue(sender.send(data, 0));
            assertEquals(DecompressingReceiver.RECEIVED, blocked.join());
            assertArrayEquals(data, receiver.message().part(0).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            receiver.close();
            sender.close();
        }
    }

    /**
     * A call made on a thread of its own, which holds the sender or receiver once it is down in
     * the socket's call: the constructor returns only then, so that the test thread comes second
     * (earlier, the roles could swap).
     */
    private static final class BlockedCall {
        private final Thread thread;
        private volatile Object result;
        private volatile Throwable failure;

        BlockedCall(String name, String socketMethod, java.util.concurrent.Callable<?> call) {
            thread = new Thread(() -> {
                try {
                    result = call.call();
                } catch (Throwable t) {
                    failure = t;
                }
            }, name);
            thread.start();
            assertTrue(Fixtures.await(() -> Fixtures.insideSocketCall(thread, socketMethod), 10_000),
                    name + " never reached the socket's " + socketMethod + " call");
        }

        /** Waits for the call to end; its result, or fails with what it threw. */
        Object join() throws InterruptedException {
            thread.join(10_000);
            assertFalse(thread.isAlive(), thread.getName() + " is still blocked");
            if (failure != null) {
                throw new AssertionError(thread.getName() + " failed", failure);
            }
            return result;
        }

        /** Waits for the call to end and returns what it threw (null if nothing). */
        Throwable joinThrown() throws InterruptedException {
            thread.join(10_000);
            assertFalse(thread.isAlive(), thread.getName() + " is still blocked");
            return failure;
        }
    }

    /**
     * Like the receiver, the sender refuses a second thread while one is inside it: here the first
     * one blocks in the socket's send (PUSH with no peer yet), and is released by connecting one.
     */
    @Test
    void shouldDetectTwoThreadsInsideOneSender() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "inproc");
            CompressingSender sender = CompressingSender.builder(push).build();
            byte[] data = Fixtures.payload(20_000, 4);
            String endpoint = push.lastEndpoint(); // read now: the socket is for one thread at a time
            // no peer: blocks until one connects
            BlockedCall blocked = new BlockedCall("first-sender", "send", () -> sender.send(data, 0));
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> sender.send(data, ZmqSocket.DONTWAIT));
            assertTrue(e.getMessage().contains("first-sender") && e.getMessage().contains(Thread.currentThread().getName()),
                    e.getMessage());
            // the refused call sent nothing: a peer gets exactly the first thread's message
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
            pull.connect(endpoint);
            assertEquals(Boolean.TRUE, blocked.join());
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertArrayEquals(data, receiver.message().partBytes(0));
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT));
            }
            assertEquals(1, sender.stats().messages());
            sender.close();
        }
    }

    /**
     * close() from another thread cannot end a receive blocked in the socket (it throws: two
     * threads inside the receiver); shutting the context down does, with a ZmqException (ETERM)
     * in the blocked thread, after which the receiver closes normally.
     */
    @Test
    void shouldUnblockAReceiveByShuttingTheContextDownNotByClosingTheReceiver() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = Fixtures.bound(ctx, SocketType.PULL, "inproc");
            DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
            // no timeout, no peer: blocks until the context shuts down
            BlockedCall blocked = new BlockedCall("blocked-receiver", "receive", () -> receiver.receive(0));
            IllegalStateException e = assertThrows(IllegalStateException.class, receiver::close);
            assertTrue(e.getMessage().contains("blocked-receiver"), e.getMessage());
            assertFalse(receiver.isClosed());

            ctx.shutdown();
            Throwable thrown = blocked.joinThrown();
            assertTrue(thrown instanceof ZmqException z && z.isContextTerminated(), () -> String.valueOf(thrown));
            receiver.close();
            assertTrue(receiver.isClosed());
        }
    }

    /**
     * Closing the context is how a service stops its threads: a receive blocked in its socket and
     * a parallel sender whose worker is blocked sending to a PUSH with no peer both end with ETERM,
     * the context's close returns (it waits for both calls to leave libzmq before it closes their
     * sockets; before, it closed them underneath and libzmq aborted the process), and the receiver
     * and sender close normally afterwards with every pooled buffer back.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldEndBlockedReceiveAndSendWhenTheContextCloses() throws Exception {
        try (NativeBufferPool pool = new NativeBufferPool()) {
            ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build();
            ZmqSocket pull = Fixtures.bound(ctx, SocketType.PULL, "tcp");
            ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "tcp"); // no peer: a send waits for one
            DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
            ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).build();
            BlockedCall blocked = new BlockedCall("blocked-receiver", "receive", () -> receiver.receive(0));
            for (int i = 0; i < 4; i++) {
                assertTrue(sender.send(Fixtures.payload(20_000, i), 0));
            }
            assertTrue(Fixtures.await(() -> Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> t != blocked.thread && Fixtures.insideSocketCall(t, "send")), 10_000),
                    "no worker reached the socket's send");

            CompletableFuture.runAsync(ctx::close).get(20, TimeUnit.SECONDS);

            Throwable thrown = blocked.joinThrown();
            assertTrue(thrown instanceof ZmqException z && z.isContextTerminated(), () -> String.valueOf(thrown));
            receiver.close();
            IllegalStateException failed = assertThrows(IllegalStateException.class, sender::close);
            assertTrue(failed.getCause() instanceof ZmqException z && z.isContextTerminated(), failed::toString);
            assertEquals(4, sender.stats().droppedMessages());
            assertTrue(pull.isClosed() && push.isClosed());
            assertEquals(0, pool.outstanding());
        }
    }

    /**
     * A producer waiting for room in a full ring (its workers blocked at a PUSH with no peer) is
     * not ended by close() from another thread, which is refused as a second thread inside the
     * sender and changes nothing; closing the context ends it: its send or claim throws the
     * workers' ETERM, the sender then closes, and every pooled buffer is back.
     */
    @ParameterizedTest(name = "claim {0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldEndAProducerWaitingAtAFullRingWhenTheContextClosesNotByClose(boolean claim) throws Exception {
        try (NativeBufferPool pool = new NativeBufferPool()) {
            ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build();
            ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "tcp"); // no peer: the workers' sends wait
            push.sendHwm(1);
            ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).inFlight(2).build();
            java.util.concurrent.atomic.AtomicReference<Throwable> thrown = new java.util.concurrent.atomic.AtomicReference<>();
            Thread producer = new Thread(() -> {
                try {
                    for (int i = 0; i < 100; i++) {
                        if (claim) {
                            sender.claim(1000, 0);
                            sender.commit(1000);
                        } else {
                            sender.send(Fixtures.payload(1000, i), 0);
                        }
                    }
                } catch (Throwable t) {
                    thrown.set(t);
                }
            }, "blocked-producer");
            producer.start();
            assertTrue(Fixtures.await(() -> java.util.Arrays.stream(producer.getStackTrace())
                    .anyMatch(f -> f.getMethodName().equals("awaitHead")), 10_000), "the producer never waited for room");

            IllegalStateException refused = assertThrows(IllegalStateException.class, sender::close);
            assertTrue(refused.getMessage().contains("blocked-producer"), refused::getMessage);
            assertTrue(producer.isAlive(), "a refused close() changes nothing");

            CompletableFuture.runAsync(ctx::close).get(20, TimeUnit.SECONDS);
            producer.join(10_000);
            assertFalse(producer.isAlive(), "the producer is still waiting");
            // The worker's send ends with ETERM, or, when the context's close has already closed
            // the socket by the time the worker calls again, with the binding's "socket is closed"
            assertTrue(thrown.get() instanceof IllegalStateException e && endedByContextClose(e.getCause()),
                    () -> String.valueOf(thrown.get()));
            IllegalStateException failed = assertThrows(IllegalStateException.class, sender::close);
            assertTrue(endedByContextClose(failed.getCause()), failed::toString);
            sender.close(); // idempotent
            assertEquals(0, pool.outstanding(), () -> pool.stats().toString());
        }
    }

    /**
     * An interrupt ends no wait: a parallel sender's producer waiting for room in the ring, and a
     * receive blocked in libzmq, both go on waiting, and return normally once the peer is there,
     * with the interrupt flag still set for the caller. (The README said so of the workers only.)
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldGoOnWaitingWhenAWaitingProducerOrReceiverIsInterrupted() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "inproc"); // no peer yet: the workers' sends wait
            String endpoint = push.lastEndpoint(); // read now: the socket is the sender's once it is built
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(1).inFlight(2).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                java.util.concurrent.CompletableFuture<Boolean> flagKept = new java.util.concurrent.CompletableFuture<>();
                Thread producer = new Thread(() -> {
                    try {
                        for (int i = 0; i < 10; i++) {
                            assertTrue(sender.send(Fixtures.payload(1000, i), 0));
                        }
                        flagKept.complete(Thread.currentThread().isInterrupted());
                    } catch (Throwable t) {
                        flagKept.completeExceptionally(t);
                    }
                }, "interrupted-producer");
                producer.start();
                assertTrue(Fixtures.await(() -> java.util.Arrays.stream(producer.getStackTrace())
                        .anyMatch(f -> f.getMethodName().equals("awaitHead")), 10_000), "the producer never waited for room");
                producer.interrupt();
                producer.join(500);
                assertTrue(producer.isAlive(), "an interrupt ended the producer's wait");

                pull.connect(endpoint);
                assertTrue(flagKept.get(20, TimeUnit.SECONDS), "the producer's interrupt flag was cleared");
                for (int i = 0; i < 10; i++) {
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                    assertArrayEquals(Fixtures.payload(1000, i), receiver.message().partBytes(0));
                }

                BlockedCall receive = new BlockedCall("interrupted-receiver", "receive", () -> {
                    int status = receiver.receive(0);
                    return status == DecompressingReceiver.RECEIVED && Thread.currentThread().isInterrupted();
                });
                receive.thread.interrupt();
                receive.thread.join(500);
                assertTrue(receive.thread.isAlive(), "an interrupt ended the blocked receive");
                assertTrue(sender.send(Fixtures.payload(1000, 10), 0));
                assertEquals(Boolean.TRUE, receive.join(), "received, with the interrupt flag still set");
            }
        }
    }

    private static boolean endedByContextClose(Throwable cause) {
        return cause instanceof ZmqException z && z.isContextTerminated()
                || cause instanceof IllegalStateException i && String.valueOf(i.getMessage()).startsWith("socket is closed");
    }

    /** A ByteBuffer payload's position and limit are left as they were, whether it was sent or would have blocked. */
    /**
     * libzmq ignores flag bits it does not know, so a mistaken flag (0x4000, or SNDMORE given to a
     * receive) passed silently; each is refused naming it, before anything is sent or taken, and
     * the stream goes on. A claim whose payload and topic together pass Long.MAX_VALUE bytes is
     * refused naming its length and the limit (it was the pool's "negative capacity"; see
     * ParallelCompressingSenderTest.shouldRefuseAClaimPastTheFrameBoundAndGoOn for the limit).
     */
    @Test
    void shouldRefuseFlagsLibzmqWouldIgnoreAndAnOverflowingClaimNamingThem() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "inproc");
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
            pull.connect(push.lastEndpoint());
            byte[] data = Fixtures.payload(1000, 3);
            try (CompressingSender sender = CompressingSender.builder(push).build();
                    DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> sender.send(data, 0x4000));
                assertTrue(e.getMessage().contains("flags=16384"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class,
                        () -> sender.sendEnvelope(new byte[] {1}, ZmqSocket.SNDMORE | 0x4000));
                assertTrue(e.getMessage().contains("flags=16386"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> receiver.receive(ZmqSocket.SNDMORE));
                assertTrue(e.getMessage().contains("flags=2"), e.getMessage());
                assertTrue(sender.send(data, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertArrayEquals(data, receiver.message().partBytes(0));
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT), "nothing else was sent");
            }
            try (ParallelCompressingSender parallel = ParallelCompressingSender.builder(push).build()) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> parallel.claim(new byte[3], Long.MAX_VALUE - 1, 0));
                assertTrue(e.getMessage().contains("maxLength=9223372036854775806, limit="), e.getMessage());
                MemorySegment room = parallel.claim(new byte[] {'t'}, 16, 0);
                assertTrue(room.byteSize() >= 16, "the sender goes on claiming");
                parallel.abort();
            }
        }
    }

    /**
     * A null payload, topic or envelope part is refused naming the argument, by both senders, and
     * the stream goes on. Before, the array and ByteBuffer overloads and CompressingSender's topic
     * reached MemorySegment.ofArray/ofBuffer, whose NullPointerException has no message at all.
     */
    @Test
    void shouldNameANullPayloadTopicOrEnvelopePart() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            ZmqSocket push = link.client();
            ZmqSocket pull = link.server();
            byte[] data = Fixtures.payload(1000, 4);
            byte[] topic = {'t'};
            try (CompressingSender sender = CompressingSender.builder(push).build();
                    DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                Fixtures.assertNullNamed("payload", () -> sender.send((byte[]) null, 0));
                Fixtures.assertNullNamed("payload", () -> sender.send((ByteBuffer) null, 0));
                Fixtures.assertNullNamed("topic", () -> sender.publish((byte[]) null, data, 0));
                Fixtures.assertNullNamed("topic", () -> sender.publish((MemorySegment) null, data, 0));
                Fixtures.assertNullNamed("topic", () -> sender.publish((MemorySegment) null, MemorySegment.ofArray(data), 0));
                Fixtures.assertNullNamed("payload", () -> sender.publish(MemorySegment.ofArray(topic), (byte[]) null, 0));
                Fixtures.assertNullNamed("payload", () -> sender.publish(MemorySegment.ofArray(topic), (MemorySegment) null, 0));
                Fixtures.assertNullNamed("payload", () -> sender.publish(topic, (byte[]) null, 0));
                Fixtures.assertNullNamed("part", () -> sender.sendEnvelope((byte[]) null, 0));
                Fixtures.assertNullNamed("payload", () -> sender.send((MemorySegment) null, 0));
                Fixtures.assertNullNamed("payload", () -> sender.publish(topic, (MemorySegment) null, 0));
                Fixtures.assertNullNamed("part", () -> sender.sendEnvelope((MemorySegment) null, 0));
                Fixtures.assertNullNamed("payload", () -> sender.send((MemorySegment) null, 0, 0, 0));
                assertTrue(sender.send(data, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertArrayEquals(data, receiver.message().partBytes(0));
            }
            try (ParallelCompressingSender parallel = ParallelCompressingSender.builder(push).workers(1).build();
                    DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                Fixtures.assertNullNamed("payload", () -> parallel.send((byte[]) null, 0));
                Fixtures.assertNullNamed("payload", () -> parallel.send((ByteBuffer) null, 0));
                Fixtures.assertNullNamed("payload", () -> parallel.publish(topic, (byte[]) null, 0));
                Fixtures.assertNullNamed("payload", () -> parallel.send((MemorySegment) null, 0));
                Fixtures.assertNullNamed("payload", () -> parallel.publish(topic, (MemorySegment) null, 0));
                Fixtures.assertNullNamed("topic", () -> parallel.publish((byte[]) null, data, 0));
                Fixtures.assertNullNamed("topic", () -> parallel.claim((byte[]) null, 16, 0));
                Fixtures.assertNullNamed("topic", () -> parallel.publish((MemorySegment) null, data, 0));
                Fixtures.assertNullNamed("topic", () -> parallel.publish((MemorySegment) null, MemorySegment.ofArray(data), 0));
                Fixtures.assertNullNamed("topic", () -> parallel.claim((MemorySegment) null, 16, 0));
                Fixtures.assertNullNamed("payload", () -> parallel.publish(MemorySegment.ofArray(topic), (byte[]) null, 0));
                Fixtures.assertNullNamed("payload", () -> parallel.publish(MemorySegment.ofArray(topic), (MemorySegment) null, 0));
                // the ranged overloads too: before 2026-11-29 they named "segment", an internal name
                Fixtures.assertNullNamed("payload", () -> parallel.send((MemorySegment) null, 0, 0, 0));
                Fixtures.assertNullNamed("payload", () -> parallel.publish(topic, (MemorySegment) null, 0, 0, 0));
                Fixtures.assertNullNamed("payload", () -> parallel.publish(MemorySegment.ofArray(topic), null, 0, 0, 0));
                Fixtures.assertNullNamed("topic", () -> parallel.publish((byte[]) null, MemorySegment.ofArray(data), 0, 0, 0));
                Fixtures.assertNullNamed("topic", () -> parallel.publish((MemorySegment) null, MemorySegment.ofArray(data), 0, 0, 0));
                assertEquals(0, parallel.inFlight());
                assertTrue(parallel.send(data, 0));
                parallel.flush();
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertArrayEquals(data, receiver.message().partBytes(0));
            }
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
        }
    }

    @Test
    void shouldLeaveByteBufferPositionAndLimitAlone() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = Fixtures.bound(ctx, SocketType.PUSH, "inproc");
            byte[] data = Fixtures.payload(30_000, 5);
            ByteBuffer heap = ByteBuffer.allocate(data.length + 100).position(7);
            heap.put(data).limit(7 + data.length).position(7);
            ByteBuffer direct = ByteBuffer.allocateDirect(data.length + 100).position(11);
            direct.put(data).limit(11 + data.length).position(11);
            try (CompressingSender sender = CompressingSender.builder(push).build()) {
                for (ByteBuffer b : new ByteBuffer[] {heap, direct}) {
                    int position = b.position();
                    int limit = b.limit();
                    assertFalse(sender.send(b, ZmqSocket.DONTWAIT), "no peer yet: would block");
                    assertEquals(position, b.position());
                    assertEquals(limit, b.limit());
                }
                ZmqSocket pull = ctx.socket(SocketType.PULL);
                pull.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
                pull.connect(push.lastEndpoint());
                try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                    for (ByteBuffer b : new ByteBuffer[] {heap, direct}) {
                        int position = b.position();
                        int limit = b.limit();
                        assertTrue(sender.send(b, 0));
                        assertEquals(position, b.position());
                        assertEquals(limit, b.limit());
                        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                        assertArrayEquals(data, receiver.message().partBytes(0));
                    }
                }
            }
        }
    }

    @Test
    void shouldEndMessageViewsOnCloseAndFailLoudly() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            CompressingSender sender = CompressingSender.builder(push).build();
            DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
            byte[] data = Fixtures.payload(1000, 1);
            assertTrue(sender.send(data, 0));
            assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
            ReceivedMessage m = receiver.message();
            MemorySegment part = m.part(0);
            assertEquals(1, m.sequence());
            assertThrows(IndexOutOfBoundsException.class, () -> m.part(1));
            receiver.close();
            receiver.close(); // idempotent
            sender.close();
            sender.close();
            IllegalStateException closed = assertThrows(IllegalStateException.class, m::parts);
            // it said "the last receive did not return RECEIVED" (it had)
            assertTrue(closed.getMessage().contains("receiver is closed"), closed::getMessage);
            assertFalse(m.isValid());
            assertThrows(IllegalStateException.class, () -> part.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
            assertThrows(IllegalStateException.class, () -> receiver.receive(0));
            assertThrows(IllegalStateException.class, () -> sender.send(data, 0));
        }
    }

    /**
     * README, "Closing": sender and receiver borrow the socket and are closed first. A socket
     * closed under them all the same makes their calls throw "socket is closed", with nothing
     * counted, the receiver's last message view ended, a parallel sender's message counted as
     * dropped and its failure rethrown by flush() and again by close(); each still closes, its
     * workers end, and no buffer stays rented.
     */
    @Test
    void shouldFailCallsOnASocketClosedUnderThemAndStillClose() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            List<Thread> workers = new java.util.concurrent.CopyOnWriteArrayList<>();
            CompressingSender sender = CompressingSender.builder(link.client()).build();
            // a socket of its own: no parallel sender is built on one a CompressingSender uses
            ZmqSocket parallelPush = ctx.socket(SocketType.PUSH);
            parallelPush.connect(link.server().lastEndpoint());
            ParallelCompressingSender parallel = ParallelCompressingSender.builder(parallelPush).workers(2)
                    .threadFactory(r -> {
                        Thread t = new Thread(r);
                        workers.add(t);
                        return t;
                    }).build();
            DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build();
            byte[] data = Fixtures.payload(1000, 1);
            assertTrue(sender.send(data, 0));
            assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
            link.client().close();
            parallelPush.close();
            link.server().close();

            IllegalStateException received = assertThrows(IllegalStateException.class, () -> receiver.receive(0));
            assertTrue(received.getMessage().startsWith("socket is closed"), received::getMessage);
            assertFalse(receiver.message().isValid(), "the view of the last message ended with the receive");
            IllegalStateException sent = assertThrows(IllegalStateException.class, () -> sender.send(data, 0));
            assertTrue(sent.getMessage().startsWith("socket is closed"), sent::getMessage);
            assertEquals(1, sender.stats().messages());
            assertEquals(0, sender.stats().abandonedMessages());

            assertTrue(parallel.send(data, 0), "taken; the worker's send fails");
            IllegalStateException flushed = assertThrows(IllegalStateException.class, parallel::flush);
            assertTrue(String.valueOf(flushed.getCause().getMessage()).startsWith("socket is closed"), flushed::toString);
            assertEquals(1, parallel.stats().droppedMessages());
            assertEquals(0, parallel.stats().messages());

            receiver.close();
            sender.close();
            IllegalStateException closed = assertThrows(IllegalStateException.class, parallel::close,
                    "close() rethrows the failure after cleaning up");
            assertTrue(closed.getCause() == flushed.getCause(), closed::toString);
            parallel.close(); // idempotent: once closed it has nothing more to say
            assertTrue(receiver.isClosed() && sender.isClosed() && parallel.isClosed());
            for (Thread t : workers) {
                t.join(10_000);
                assertFalse(t.isAlive(), t::getName);
            }
            assertEquals(0, ctx.bufferPool().outstanding());
        }
    }

    @Test
    void shouldInvalidateMessageOnWouldBlock() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                assertTrue(sender.send(new byte[] {1, 2, 3}, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertEquals(3, receiver.message().totalSize());
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT));
                assertThrows(IllegalStateException.class, () -> receiver.message().part(0));
                assertEquals(1, receiver.stats().wouldBlock());
                assertEquals(0, receiver.stats().poolRents());
            }
        }
    }

    /**
     * A level outside libzstd's range was taken and clamped by zstd without a word (1000 became
     * 22); the command-line tool had to check it itself.
     */
    @Test
    void shouldRefuseALevelOutsideZstdsRangeNamingIt() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            for (int level : new int[] {23, 1000, Integer.MAX_VALUE, -131073, Integer.MIN_VALUE}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> CompressingSender.builder(push).level(level));
                assertTrue(e.getMessage().contains("level=" + level), e::getMessage);
                assertThrows(IllegalArgumentException.class, () -> ParallelCompressingSender.builder(push).level(level));
            }
            for (int level : new int[] {22, 0, -1, -131072}) {
                CompressingSender.builder(push).level(level).build().close();
            }
        }
    }

    /**
     * reserveBuffers named the codec's and the pool's values ("srcSize=-5", "capacityBytes=…"),
     * not the payload size the caller gave.
     */
    @Test
    void shouldRefuseBadReservationsNamingThePayloadSize() {
        try (ZmqContext ctx = new ZmqContext();
             CompressingSender sender = CompressingSender.builder(ctx.socket(SocketType.PUSH)).build()) {
            IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> sender.reserveBuffers(-5, 1));
            assertTrue(negative.getMessage().contains("payloadBytes=-5"), negative::getMessage);
            IllegalArgumentException count = assertThrows(IllegalArgumentException.class, () -> sender.reserveBuffers(10, -1));
            assertTrue(count.getMessage().contains("count=-1"), count::getMessage);
            long huge = 1L << 40;
            IllegalArgumentException tooLarge = assertThrows(IllegalArgumentException.class, () -> sender.reserveBuffers(huge, 1));
            assertTrue(tooLarge.getMessage().contains("payloadBytes=" + huge), tooLarge::getMessage);
            assertEquals(0, ctx.bufferPool().outstanding());
            assertTrue(sender.reserveBuffers(64 * 1024, 2) >= 0);
        }
    }

    /**
     * A sender closed between the parts of a message (an exception in the caller's code after
     * {@code sendEnvelope(…, SNDMORE)}, a try-with-resources closing it) left the started message
     * open in libzmq: the next message sent on the socket was glued to it, and lost with it.
     */
    @Test
    void shouldEndAMessageLeftOpenWhenTheSenderCloses() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            link.server().receiveTimeoutMs(2000); // the old code: the glued message was the last one
            CompressingSender first = CompressingSender.builder(link.client()).build();
            assertTrue(first.sendEnvelope("half".getBytes(java.nio.charset.StandardCharsets.US_ASCII), ZmqSocket.SNDMORE));
            first.close();
            assertEquals(1, first.stats().abandonedMessages(), () -> first.stats().toString());
            byte[] data = Fixtures.payload(2000, 3);
            try (CompressingSender second = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).build()) {
                assertTrue(second.send(data, 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0), "the message left open, ended");
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertEquals(1, receiver.message().parts());
                assertArrayEquals(data, receiver.message().partBytes(0));
            }
        }
    }

    /**
     * libzmq refuses a later part of a message only when the peer went away in the middle of it,
     * and has then dropped the message itself (a blocking send reports that as success). The
     * sender refused it as a would-block, so the caller would send the part again as a new
     * message, and still held the message open: close() then sent its end-of-message part
     * blocking, to no peer, and waited for ever. Now the part counts as taken, the message as
     * abandoned, close() returns, and the next message reaches a new peer whole and alone.
     */
    @ParameterizedTest(name = "the refused part with SNDMORE: {0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldTakeALaterPartThatLibzmqDropsWhenThePeerGoesAwayMidMessage(boolean more) {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            String gone = Fixtures.bound(ctx, SocketType.PULL, "inproc").lastEndpoint();
            push.connect(gone);
            CompressingSender first = CompressingSender.builder(push).build();
            assertTrue(first.sendEnvelope("half".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                    ZmqSocket.SNDMORE | ZmqSocket.DONTWAIT));
            push.disconnect(gone); // the only peer goes away in the middle of the message
            int flags = ZmqSocket.DONTWAIT | (more ? ZmqSocket.SNDMORE : 0);
            assertTrue(first.send(Fixtures.payload(2000, 1), flags), "a later part of a message does not would-block");
            first.close();
            PipelineStats stats = first.stats();
            assertEquals(1, stats.abandonedMessages(), stats::toString);
            assertEquals(0, stats.wouldBlock(), stats::toString);
            assertEquals(0, stats.messages(), stats::toString);

            ZmqSocket pull = Fixtures.bound(ctx, SocketType.PULL, "inproc");
            pull.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
            push.connect(pull.lastEndpoint());
            byte[] data = Fixtures.payload(3000, 2);
            try (CompressingSender second = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                assertTrue(second.send(data, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertEquals(1, receiver.message().parts());
                assertArrayEquals(data, receiver.message().partBytes(0));
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT), "nothing else arrived");
            }
        }
    }

    /**
     * A message begun and then ended by a socket that takes no more parts (its context shut down:
     * ETERM; the socket closed by its owner) is not delivered whole, and counts in
     * {@code abandonedMessages}, whether the failure comes at its next part or at close(). Before,
     * it counted nowhere: neither in messages nor as abandoned, so messages + abandonedMessages
     * no longer added up to the messages begun.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shutdown, next part", "shutdown, close", "socket closed, next part", "socket closed, close"})
    void shouldCountAMessageThatASocketFailureEndsAsAbandoned(String how) {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            CompressingSender sender = CompressingSender.builder(link.client()).build();
            assertTrue(sender.send(Fixtures.payload(500, 1), 0));
            assertTrue(sender.sendEnvelope("begun".getBytes(java.nio.charset.StandardCharsets.US_ASCII), ZmqSocket.SNDMORE));
            if (how.startsWith("shutdown")) {
                ctx.shutdown();
                // the socket takes the shutdown from its command queue at its next call, a send
                // at most once a millisecond: reading ZMQ_EVENTS makes it do so now
                ZmqException e = assertThrows(ZmqException.class, link.client()::events);
                assertTrue(e.isContextTerminated(), e::toString);
            } else {
                link.client().close();
            }
            if (how.endsWith("next part")) {
                RuntimeException e = assertThrows(RuntimeException.class, () -> sender.send(Fixtures.payload(500, 2), 0));
                assertTrue(how.startsWith("shutdown") ? e instanceof ZmqException z && z.isContextTerminated()
                        : e instanceof IllegalStateException, e::toString);
            }
            sender.close();
            PipelineStats stats = sender.stats();
            assertEquals(1, stats.messages(), stats::toString);
            assertEquals(1, stats.abandonedMessages(), stats::toString);
        }
    }

    /**
     * A sender or receiver built on a closed socket was built (a parallel sender started its
     * workers) and failed only at its first send or receive.
     */
    @Test
    void shouldRefuseToBuildOnAClosedSocket() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            push.close();
            pull.close();
            List<Runnable> builds = List.of(() -> CompressingSender.builder(push).build(),
                    () -> ParallelCompressingSender.builder(push).workers(1).build(),
                    () -> DecompressingReceiver.builder(pull).build());
            for (Runnable build : builds) {
                IllegalStateException e = assertThrows(IllegalStateException.class, build::run);
                assertTrue(e.getMessage().contains("socket is closed"), e::getMessage);
            }
            assertEquals(0, ctx.bufferPool().outstanding());
        }
    }

    /**
     * A sender on a socket libzmq never lets send (PULL, SUB), or a receiver on one it never lets
     * receive (PUSH, PUB), is refused by build() naming the type and the types it takes; before
     * 2026-11-27 it was built (a parallel sender started its workers) and its first call failed
     * with ENOTSUP, on a parallel sender in a worker, the message taken and dropped. Every other
     * type builds, but a receiver on STREAM, which carries no messages ({@link StreamSocketTest}).
     */
    @Test
    void shouldRefuseToBuildOnASocketTypeThatCannotDoItsHalf() {
        try (ZmqContext ctx = new ZmqContext()) {
            java.util.concurrent.atomic.AtomicInteger threads = new java.util.concurrent.atomic.AtomicInteger();
            for (SocketType type : SocketType.values()) {
                ZmqSocket socket = ctx.socket(type);
                boolean canSend = type != SocketType.PULL && type != SocketType.SUB;
                boolean canReceive = type != SocketType.PUSH && type != SocketType.PUB && type != SocketType.STREAM;
                List<Runnable> senders = List.of(() -> CompressingSender.builder(socket).build().close(),
                        () -> ParallelCompressingSender.builder(socket).workers(2)
                                .threadFactory(r -> {
                                    threads.incrementAndGet();
                                    return new Thread(r);
                                }).build().close());
                for (Runnable build : senders) {
                    if (canSend) {
                        build.run();
                    } else {
                        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::run, type::name);
                        assertTrue(e.getMessage().startsWith("socket type cannot send: type=" + type + " ")
                                && e.getMessage().contains("ENOTSUP") && e.getMessage().contains("PUSH, XPUB, XSUB")
                                && !e.getMessage().contains(", PULL") && e.getMessage().contains("STREAM"), e::getMessage);
                    }
                }
                if (canReceive) {
                    DecompressingReceiver.builder(socket).build().close();
                } else {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                            () -> DecompressingReceiver.builder(socket).build(), type::name);
                    String refusal = type == SocketType.STREAM ? "carries no messages" : "cannot receive";
                    assertTrue(e.getMessage().startsWith("socket type " + refusal + ": type=" + type + " ")
                            && e.getMessage().contains("PULL, XPUB") && !e.getMessage().contains(", PUSH")
                            && !e.getMessage().contains("STREAM]"), e::getMessage);
                }
                socket.close();
            }
            assertEquals(2 * (SocketType.values().length - 2), threads.get(), "no worker started for a refused sender");
            assertEquals(0, ctx.bufferPool().outstanding());
        }
    }

    @Test
    void shouldRefuseRawFramesTogetherWithDictionary() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            assertThrows(IllegalArgumentException.class, () -> CompressingSender.builder(push)
                    .dictionary(Fixtures.dictionary()).rawFrameBelowBytes(64).build());
        }
    }

    @Test
    void shouldSendSmallPartsRawByDefaultOnlyWithoutDictionaryOrChecksum() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            try (CompressingSender plain = CompressingSender.builder(push).build();
                 CompressingSender checked = CompressingSender.builder(push).checksum(true).build();
                 CompressingSender withDictionary = CompressingSender.builder(push).dictionary(Fixtures.dictionary()).build();
                 CompressingSender off = CompressingSender.builder(push).rawFrameBelowBytes(0).build()) {
                assertEquals(CompressingSender.DEFAULT_RAW_FRAME_BELOW_BYTES, plain.rawFrameBelowBytes());
                assertEquals(0, checked.rawFrameBelowBytes());
                assertEquals(0, withDictionary.rawFrameBelowBytes());
                assertEquals(0, off.rawFrameBelowBytes());
            }
            assertThrows(IllegalArgumentException.class, () -> CompressingSender.builder(push)
                    .checksum(true).rawFrameBelowBytes(64).build());
        }
    }

    @Test
    void shouldSaveAndLoadDictionaryThatStillDecodes(@TempDir Path dir) {
        Path file = dir.resolve("telemetry.dict");
        Dictionaries.save(Fixtures.dictionary(), file);
        assertTrue(Files.exists(file));
        var loaded = Dictionaries.load(file);
        assertEquals(Fixtures.dictionary().id(), loaded.id());
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            try (CompressingSender sender = CompressingSender.builder(push).dictionary(Fixtures.dictionary()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).dictionary(loaded).build()) {
                byte[] data = Fixtures.payload(150, 42);
                assertTrue(sender.send(data, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(data, receiver.message().partBytes(0));
            }
        }
    }
}
