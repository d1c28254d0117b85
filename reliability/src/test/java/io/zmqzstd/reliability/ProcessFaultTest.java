package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.MonitorEvent;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketMonitor;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Faults with real processes: child JVMs running {@link Peer}, killed with SIGKILL mid-stream. */
@Timeout(120)
class ProcessFaultTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Messages the slow-subscriber test publishes. */
    private static final int STREAM_MESSAGES = 1000;
    /** SUB receivers take the first part as the topic (uncompressed envelope). */
    private static final byte[] TOPIC = Peer.TOPIC;

    /**
     * Tracks each sender's stream as the receiver sees it: every message intact, from a known
     * sender, and each sender's sequence contiguous from 1, however the senders' messages
     * interleave (a dead sender's last messages may still arrive after a new one has started).
     */
    private static final class StreamCheck {
        private final Map<Integer, Long> last = new HashMap<>();

        StreamCheck(int... senders) {
            for (int s : senders) {
                last.put(s, 0L);
            }
        }

        void accept(MemorySegment p) {
            int sender = StreamMessage.sender(p);
            long seq = StreamMessage.sequence(p);
            assertTrue(StreamMessage.intact(p), "corrupted message: sender=" + sender + ", seq=" + seq);
            assertTrue(last.containsKey(sender), "message from an unexpected sender: sender=" + sender + ", seq=" + seq);
            assertEquals(last.get(sender) + 1, seq, "sequence of sender " + sender + " not contiguous");
            last.put(sender, seq);
        }

        long last(int sender) {
            return last.get(sender);
        }
    }

    @Test
    void shouldReportNothingFalseWhenTheSenderIsKilledAndReceiveFromANewOne() {
        try (ZmqContext context = new ZmqContext();
             ZmqSocket pull = context.socket(SocketType.PULL)) {
            pull.receiveTimeoutMs(200);
            pull.bind("tcp://127.0.0.1:*");
            String endpoint = pull.lastEndpoint();
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                StreamCheck check = new StreamCheck(1, 2);
                try (ChildProcess sender = ChildProcess.peer("role=push", "endpoint=" + endpoint, "sender=1", "size=2048")) {
                    receiveUntil(receiver, check, 1, 2000);
                    sender.kill(); // SIGKILL mid-stream
                }
                long firstLastBefore = check.last(1);
                // Whatever sender 1 had in flight arrives whole or not at all, whenever it comes:
                // the check accepts it only as the continuation of sender 1's sequence.
                try (ChildProcess sender = ChildProcess.peer("role=push", "endpoint=" + endpoint, "sender=2", "size=2048")) {
                    receiveUntil(receiver, check, 2, 500);
                }
                System.out.println("sender killed: sender 1 last seq " + firstLastBefore + " at the kill, "
                        + check.last(1) + " in the end; sender 2 received to " + check.last(2));
                assertEquals(0, receiver.stats().errors(), "bad frames reported: " + receiver.stats());
            }
        }
    }

    /**
     * The receiver binds and the PUSH connects: a connecting socket keeps its pipe while its peer
     * is gone, so after the receiver is killed blocking sends queue up to the high-water mark and
     * then wait inside send. A new receiver on the same endpoint gets the queue, the blocked send
     * returns, and every message from then on arrives, in order and intact. What the dead
     * connection had already taken from the pipe is lost (PUSH does not resend).
     */
    @Test
    void shouldBlockAtHighWaterMarkWhenTheReceiverIsKilledAndDeliverEverythingToTheNextOne() {
        try (ZmqContext context = new ZmqContext()) {
            streamThroughAKilledReceiver(context, 1024, false, Binder.RECEIVER, (lastSeen, stuckAfter, pool) -> { });
        }
    }

    /**
     * The same fault with messages of 64 KiB of text, whose frames (about 12 KiB) go zero-copy
     * from the context's pool: libzmq holds the pool's buffers in the pipe and in the connection's
     * engine until it has written them. Here the receiver is killed while the sender streams at
     * full speed, so the dead connection takes messages with it. While the sender is blocked, only
     * messages the dead receiver did not report hold a buffer. In the end every buffer is back,
     * those of the lost messages included, and the sender's counters add up: every send counted,
     * zero-copy, nothing abandoned or refused.
     */
    @Test
    void shouldReturnEveryPooledBufferWhenTheReceiverIsKilledAndReplaced() {
        streamPooledThroughAKilledReceiver(Binder.RECEIVER, (lastSeen, stuckAfter, pool) -> {
            long held = pool.outstanding();
            System.out.println("receiver killed: " + held + " pooled buffers held while the sender is blocked");
            assertTrue(held > 0, "nothing held by libzmq while no receiver reads: " + pool.stats());
            // At most messages lastSeen + 1 .. stuckAfter, and the one the blocked send rented.
            assertTrue(held <= stuckAfter - lastSeen + 1, "buffers of delivered messages not back: held="
                    + held + ", sent after the last one received=" + (stuckAfter - lastSeen) + ", " + pool.stats());
        });
    }

    /**
     * The other topology: the sender binds and the receivers connect, so libzmq drops the dead
     * receiver's pipe with the messages queued in it (a bound socket keeps no pipe for a peer that
     * is gone), and with no peer left the blocking send waits. Those messages are lost, and their
     * zero-copy buffers must come back at once: while the sender waits, the pool holds at most the
     * buffer the blocked send rented. A new receiver then gets the blocked message and everything
     * after it in order, and the counters add up as above.
     */
    @Test
    void shouldReturnTheBuffersOfTheDroppedPipeWhenAConnectedReceiverIsKilled() {
        streamPooledThroughAKilledReceiver(Binder.SENDER, (lastSeen, stuckAfter, pool) -> {
            long held = pool.outstanding();
            System.out.println("connected receiver killed: " + held + " pooled buffers held while the "
                    + "sender waits for a peer; " + pool.stats());
            assertTrue(held <= 1, "buffers of the dropped pipe's messages not back: held=" + held + ", " + pool.stats());
        });
    }

    /**
     * Messages of 64 KiB of text (zero-copy frames) through a receiver killed while the sender
     * streams on; then every pooled buffer is back once the last message was written, and the
     * sender's counters add up: every message sent, zero-copy, none abandoned, no would-block.
     */
    private static void streamPooledThroughAKilledReceiver(Binder binder, WhileBlocked whileBlocked) {
        try (ZmqContext context = new ZmqContext()) {
            Outcome outcome = streamThroughAKilledReceiver(context, 64 * 1024, true, binder, whileBlocked);
            assertPoolAndSenderSettled(context.bufferPool(), outcome);
        }
    }

    private static void assertPoolAndSenderSettled(NativeBufferPool pool, Outcome outcome) {
        Await.until("every pooled buffer back after the last message was written", WAIT, () -> pool.outstanding() == 0);
        NativeBufferPool.Stats ps = pool.stats();
        assertEquals(ps.rented(), ps.returned(), ps::toString);
        assertTrue(ps.rented() >= outcome.last(), "messages did not go through the pool: " + ps);
        assertEquals(0, ps.callbackErrors(), ps::toString);
        PipelineStats stats = outcome.stats();
        assertEquals(outcome.last(), stats.messages(), stats::toString);
        assertEquals(outcome.last(), stats.zeroCopySends(), stats::toString);
        assertEquals(0, stats.abandonedMessages(), stats::toString);
        assertEquals(0, stats.wouldBlock(), stats::toString);
    }

    /**
     * A receiver frozen for 2 s (SIGSTOP, then SIGCONT: a long GC pause, a suspended VM) while a
     * PUSH streams to it with blocking sends. Its kernel still acknowledges TCP, but its libzmq
     * answers nothing. Without heartbeats the sender only waits at the high-water mark: the same
     * connection carries on and every message arrives, in order. With heartbeats (200 ms, timeout
     * 600 ms) on both sides the sender takes the silence for a dead peer and closes the connection
     * (its monitor sees {@code DISCONNECTED}) and reconnects once the receiver answers again. What
     * the closed connection held is lost, at most one hole; and the receiver may take the old
     * connection's last queued messages alternately with the new connection's first ones (PULL
     * takes from its connections in turn), so order holds per connection only: the messages before
     * the hole arrive in order, and those after it, never a message twice, corrupt or refused.
     */
    @ParameterizedTest(name = "heartbeat={0}")
    @ValueSource(booleans = {false, true})
    void shouldCarryOnThroughAFrozenReceiver(boolean heartbeat) throws InterruptedException {
        int hwm = KILLED_RECEIVER_HWM;
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        try (ZmqContext context = new ZmqContext();
             ZmqSocket push = context.socket(SocketType.PUSH)) {
            push.sendHwm(hwm);
            if (heartbeat) {
                push.heartbeatIvlMs(200);
                push.heartbeatTimeoutMs(600);
            }
            try (SocketMonitor monitor = push.monitor(Set.of(MonitorEvent.Type.DISCONNECTED));
                 CompressingSender sender = CompressingSender.builder(push).build();
                 BlockingSendThread thread = new BlockingSendThread(sender, context, 1024);
                 ChildProcess receiver = ChildProcess.peer("role=pull", "endpoint=" + endpoint, "bind=true",
                         "hwm=" + hwm, "heartbeatMs=" + (heartbeat ? 200 : 0))) {
                receiver.awaitReady();
                push.connect(endpoint);
                thread.allow(Integer.MAX_VALUE / 2);
                receiver.await("RECV 1 500", WAIT, "RECV 1 500"::equals);
                receiver.signal("STOP");
                try {
                    Thread.sleep(2000); // the freeze itself, not a wait for a condition
                } finally {
                    receiver.signal("CONT");
                }
                long target = thread.sent() + 1000;
                receiver.await("sender 1 past " + target, WAIT, l -> l.startsWith("RECV 1 ")
                        && Long.parseLong(l.substring("RECV 1 ".length())) >= target);
                MonitorEvent disconnected = monitor.tryReceive();
                List<Long> got = received(receiver);
                TreeSet<Long> distinct = new TreeSet<>(got);
                long hole = 1;
                while (distinct.contains(hole)) {
                    hole++;
                }
                long holeEnd = distinct.ceiling(hole) == null ? hole : distinct.ceiling(hole);
                long lost = holeEnd - hole;
                long firstLost = hole;
                System.out.println("frozen receiver, heartbeat=" + heartbeat + ": " + got.size() + " received, lost "
                        + (lost == 0 ? "none" : firstLost + ".." + (holeEnd - 1)) + ", interleaved="
                        + interleaved(got, firstLost) + ", disconnected=" + disconnected);
                assertTrue(receiver.lines().stream().noneMatch(l -> l.startsWith("CORRUPT") || l.startsWith("BAD")),
                        "corrupt or refused: " + receiver.lines().stream().filter(l -> !l.startsWith("RECV")).toList());
                assertEquals(distinct.size(), got.size(), "a message twice");
                assertEquals(distinct.last() - distinct.first() + 1 - lost, distinct.size(), "more than one hole");
                assertEquals(1L, distinct.first());
                if (heartbeat) {
                    assertNotNull(disconnected, "the heartbeat did not close the connection to a silent peer");
                    assertRising(got.stream().filter(seq -> seq < firstLost).toList());
                    assertRising(got.stream().filter(seq -> seq >= firstLost).toList());
                } else {
                    assertNull(disconnected, "without heartbeats a frozen peer's connection stays");
                    assertEquals(0, lost, "lost without a broken connection: " + firstLost + ".." + (holeEnd - 1));
                    assertRising(got);
                }
            }
        }
    }

    /** How many messages before {@code firstLost} arrived after one from the new connection (above it). */
    private static long interleaved(List<Long> got, long firstLost) {
        long count = 0;
        boolean newSeen = false;
        for (long seq : got) {
            newSeen |= seq > firstLost;
            count += newSeen && seq < firstLost ? 1 : 0;
        }
        return count;
    }

    /** How a stream through a killed receiver ended: its last message and the sender's counters then. */
    private record Outcome(long last, PipelineStats stats) {
    }

    /** Which side of the killed-receiver tests binds the endpoint; the other connects. */
    private enum Binder {
        RECEIVER,
        SENDER
    }

    /**
     * A check made while the sender is stuck: the last message the dead receiver reported, the last
     * one sent, the context's pool.
     */
    private interface WhileBlocked {
        void check(long lastSeen, long stuckAfter, NativeBufferPool pool);
    }

    /**
     * Streams {@code size}-byte messages from a {@link BlockingSendThread} to a receiving peer and
     * kills it once it reported message {@link #BEFORE_KILL}: with the sender paused there, or,
     * when {@code killWhileStreaming}, sending on. Waits until the sender is stuck (at the
     * high-water mark of the pipe it keeps when it connects, for want of a peer when it binds), then
     * runs {@code whileBlocked}, starts a new receiver, and asserts that the blocked message and
     * every one after it arrive in order and intact.
     */
    private static Outcome streamThroughAKilledReceiver(ZmqContext context, int size, boolean killWhileStreaming,
                                                        Binder binder, WhileBlocked whileBlocked) {
        int hwm = KILLED_RECEIVER_HWM;
        long beforeKill = BEFORE_KILL;
        long afterUnblock = 500;
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        String[] receiverArgs = killedReceiverArgs(endpoint, binder == Binder.RECEIVER);
        try (ZmqSocket push = context.socket(SocketType.PUSH)) {
            push.sendHwm(hwm);
            if (binder == Binder.SENDER) {
                push.bind(endpoint);
            }
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 BlockingSendThread thread = new BlockingSendThread(sender, context, size)) {
                long lastSeen;
                try (ChildProcess receiver = ChildProcess.peer(receiverArgs)) {
                    receiver.awaitReady();
                    if (binder == Binder.RECEIVER) {
                        push.connect(endpoint);
                    }
                    thread.allow(killWhileStreaming ? Integer.MAX_VALUE / 2 : beforeKill);
                    receiver.await("RECV 1 " + beforeKill, WAIT, ("RECV 1 " + beforeKill)::equals);
                    receiver.kill();
                    lastSeen = lastReceived(receiver);
                }
                // No receiver: the sender fills its pipe to the HWM and then stays inside send.
                // (At least HWM/2 sends: libzmq learns of reads in steps of its low-water mark,
                // HWM/2, so a pipe may count up to that many delivered messages as queued.)
                thread.allow(Integer.MAX_VALUE / 2);
                long stuckAfter = thread.awaitStuck(binder == Binder.RECEIVER ? lastSeen + hwm / 2 : lastSeen,
                        Duration.ofSeconds(1));
                thread.allowNoMore(); // only the send it is blocked in may still complete
                long blocked = stuckAfter + 1;
                System.out.println("receiver killed after it got " + lastSeen + ": sender blocked at seq=" + blocked
                        + " after " + (stuckAfter - lastSeen) + " sends (hwm=" + hwm + ", size=" + size + ")");
                whileBlocked.check(lastSeen, stuckAfter, context.bufferPool());
                try (ChildProcess receiver = ChildProcess.peer(receiverArgs)) {
                    receiver.awaitReady();
                    thread.allow(afterUnblock);
                    long last = blocked + afterUnblock;
                    receiver.await("RECV 1 " + last, WAIT, ("RECV 1 " + last)::equals);
                    // The sending thread counts a send after it returns, which on a busy machine may
                    // be after the receiver has printed the message: await the count, not read it.
                    Await.until("the blocked send returned and every allowed one followed (" + last + ")", WAIT,
                            () -> thread.sent() == last);
                    long first = assertContiguousTo(receiver, last, lastSeen);
                    // The queued ones, the one that was blocked, and all sent after it arrived.
                    assertTrue(first <= blocked, "the message blocked at the HWM never arrived: first=" + first);
                    return new Outcome(last, sender.stats());
                }
            }
        }
    }

    /**
     * The same fault under a {@link ParallelCompressingSender}: while no receiver is there its
     * workers wait at the high-water mark, the ring fills behind them and a DONTWAIT send says so;
     * nothing fails and nothing is dropped. A new receiver gets the queue and everything after it
     * in order, although three threads compressed the messages.
     */
    @Test
    void shouldKeepOrderThroughAParallelSenderWhenTheReceiverIsKilledAndReplaced() {
        int size = 2048;
        long beforeKill = BEFORE_KILL;
        long total = 3000;
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        String[] receiverArgs = killedReceiverArgs(endpoint, true);
        try (ZmqContext context = new ZmqContext();
             ZmqSocket push = context.socket(SocketType.PUSH);
             Arena arena = Arena.ofConfined()) {
            push.sendHwm(KILLED_RECEIVER_HWM);
            MemorySegment payload = arena.allocate(size);
            try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(3).inFlight(16).build()) {
                try (ChildProcess receiver = ChildProcess.peer(receiverArgs)) {
                    receiver.awaitReady();
                    push.connect(endpoint);
                    for (long seq = 1; seq <= beforeKill; seq++) {
                        StreamMessage.write(payload, size, 1, seq);
                        assertTrue(sender.send(payload, 0));
                    }
                    receiver.await("RECV 1 " + beforeKill, WAIT, ("RECV 1 " + beforeKill)::equals);
                    receiver.kill();
                }
                // No receiver: take messages until the ring is full and stays full.
                long taken = beforeKill;
                while (true) {
                    StreamMessage.write(payload, size, 1, taken + 1);
                    if (sender.send(payload, ZmqSocket.DONTWAIT)) {
                        taken++;
                        assertTrue(taken < total, "the sender took everything without a receiver: " + sender.stats());
                    } else if (!sender.flush(500)) {
                        break; // the ring is full and what is in it cannot leave: the workers wait at the HWM
                    }
                }
                System.out.println("receiver killed: parallel sender full after " + (taken - beforeKill)
                        + " messages without a receiver (hwm=" + KILLED_RECEIVER_HWM + ", ring 16); " + sender.stats());
                try (ChildProcess receiver = ChildProcess.peer(receiverArgs)) {
                    receiver.awaitReady();
                    for (long seq = taken + 1; seq <= total; seq++) {
                        StreamMessage.write(payload, size, 1, seq);
                        assertTrue(sender.send(payload, 0));
                    }
                    sender.flush();
                    receiver.await("RECV 1 " + total, WAIT, ("RECV 1 " + total)::equals);
                    long first = assertContiguousTo(receiver, total, beforeKill);
                    assertTrue(first <= taken, "nothing queued during the outage arrived: first=" + first + ", taken=" + taken);
                }
                PipelineStats stats = sender.stats();
                assertEquals(total, stats.messages(), stats::toString);
                assertEquals(0, stats.droppedMessages(), stats::toString);
            }
        }
    }

    /** The sequence of the last {@code RECV 1 n} line of {@code receiver}. */
    private static long lastReceived(ChildProcess receiver) {
        return receiver.lines().reversed().stream().filter(l -> l.startsWith("RECV 1 "))
                .mapToLong(l -> Long.parseLong(l.substring("RECV 1 ".length()))).findFirst().orElseThrow();
    }

    /** The receiver-killed tests' high-water mark, both sides. */
    private static final int KILLED_RECEIVER_HWM = 50;
    /** Messages the first receiver gets before it is killed. */
    private static final long BEFORE_KILL = 300;

    /** A receiving peer that binds {@code endpoint} (or connects to it), HWM {@link #KILLED_RECEIVER_HWM}. */
    private static String[] killedReceiverArgs(String endpoint, boolean bind) {
        return new String[] {"role=pull", "endpoint=" + endpoint, "bind=" + bind, "hwm=" + KILLED_RECEIVER_HWM};
    }

    /**
     * The receiver's lines, from the first message it got to {@code last}: each {@code RECV 1 n}
     * once, in order, intact (no {@code BAD}, no {@code CORRUPT}). Returns the first.
     */
    private static long assertContiguousTo(ChildProcess receiver, long last, long beforeKill) {
        List<String> got = receiver.lines().stream().filter(l -> l.startsWith("RECV") || l.startsWith("BAD")
                || l.startsWith("CORRUPT")).toList();
        long first = Long.parseLong(got.getFirst().substring("RECV 1 ".length()));
        System.out.println("receiver killed: new receiver got " + first + ".." + last
                + ", lost with the dead connection: " + (beforeKill + 1) + ".." + (first - 1));
        assertEquals(last - first + 1, got.size(), "messages lost or duplicated: " + got.subList(0, Math.min(5, got.size())));
        for (int i = 0; i < got.size(); i++) {
            assertEquals("RECV 1 " + (first + i), got.get(i));
        }
        return first;
    }

    /**
     * Sends sequenced messages (sender 1, 1 KiB) with blocking sends on its own thread, as many as
     * the test allows, and shows whether it is inside a send. It owns the {@link CompressingSender}
     * from its first send on; the test only reads its counters.
     */
    private static final class BlockingSendThread implements AutoCloseable {
        private final Semaphore allowed = new Semaphore(0);
        private final AtomicLong sent = new AtomicLong();
        private final ZmqContext context;
        private final Thread thread;
        private volatile boolean inSend;
        private volatile Throwable failure;

        BlockingSendThread(CompressingSender sender, ZmqContext context, int size) {
            this.context = context;
            this.thread = Thread.ofPlatform().daemon().name("blocking-push").start(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment payload = arena.allocate(size);
                    for (long seq = 1; ; seq++) {
                        allowed.acquire();
                        StreamMessage.write(payload, size, 1, seq);
                        inSend = true;
                        boolean ok = sender.send(payload, 0); // blocking: waits while the pipe is at its HWM
                        inSend = false;
                        if (!ok) {
                            throw new AssertionError("a blocking send returned false: seq=" + seq);
                        }
                        sent.set(seq);
                    }
                } catch (InterruptedException e) {
                    // closed by the test
                } catch (Throwable t) {
                    failure = t;
                }
            });
        }

        void allow(long messages) {
            allowed.release((int) messages);
        }

        void allowNoMore() {
            allowed.drainPermits();
        }

        /** The sequence number of the last message whose send returned. */
        long sent() {
            if (failure != null) {
                throw new AssertionError("sending thread failed", failure);
            }
            return sent.get();
        }

        /**
         * Waits until at least {@code atLeast} messages were sent and then the thread sat inside
         * one send for {@code quiet} with its count unchanged; returns that count.
         */
        long awaitStuck(long atLeast, Duration quiet) {
            long deadline = System.nanoTime() + WAIT.toNanos();
            long count = -1;
            long since = System.nanoTime();
            for (;;) {
                long now = System.nanoTime();
                long c = sent();
                if (c != count || !inSend) {
                    count = c;
                    since = now;
                } else if (c >= atLeast && now - since >= quiet.toNanos()) {
                    return c;
                }
                assertTrue(now < deadline, "sender never blocked: sent=" + c + ", inSend=" + inSend);
                try {
                    Thread.sleep(10); // poll interval; the count and the flag decide
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
        }

        @Override
        public void close() {
            thread.interrupt(); // ends a wait for permission
            try {
                thread.join(Duration.ofSeconds(5));
                if (thread.isAlive()) {
                    context.shutdown(); // a test that failed left it inside send: ETERM wakes it
                    thread.join(Duration.ofSeconds(30));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A PUSH to two receivers, one of which stops reading (a stuck collector): libzmq skips a peer
     * whose pipe is at its high-water mark and deals the messages to the other, so blocking sends
     * never block while one peer takes them. HWM 10 on both sides, 64 KiB kernel buffers asked for
     * and 16 KiB of random bytes a message, so only a few dozen fit towards the stuck one. When it
     * reads again, it gets what was queued for it: every message arrives exactly once, at one of
     * the two, each in rising order, and the sender counts them all sent, none refused.
     */
    @Test
    void shouldDealAroundAStuckReceiverWithoutBlockingAndDeliverEachMessageOnce() {
        int messages = 2000;
        int size = 16 * 1024;
        int bufBytes = 64 * 1024;
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        try (Arena arena = Arena.ofConfined();
             ZmqContext context = new ZmqContext();
             ZmqSocket push = context.socket(SocketType.PUSH)) {
            push.sendHwm(10);
            push.sndbuf(bufBytes);
            push.sendTimeoutMs((int) Duration.ofSeconds(10).toMillis()); // a stalled send fails, not hangs
            push.bind(endpoint);
            MemorySegment payload = arena.allocate(size);
            try (SocketMonitor monitor = push.monitor(Set.of(MonitorEvent.Type.HANDSHAKE_SUCCEEDED));
                 CompressingSender sender = CompressingSender.builder(push).build();
                 ChildProcess stuck = ChildProcess.peer("role=pull", "endpoint=" + endpoint, "hwm=10",
                         "bufBytes=" + bufBytes, "hold=true");
                 ChildProcess reader = ChildProcess.peer("role=pull", "endpoint=" + endpoint, "hwm=10",
                         "bufBytes=" + bufBytes)) {
                for (int connected = 0; connected < 2; connected++) {
                    assertTrue(monitor.receive(WAIT) != null, "receiver " + (connected + 1) + " never connected");
                }
                // One warm-up message each (PUSH deals in turn): the stuck one then stops reading.
                for (int i = 0; i < 2; i++) {
                    StreamMessage.writeIncompressible(payload, size, 0, 0);
                    assertTrue(sender.send(payload, 0));
                }
                stuck.await("HOLDING", WAIT, "HOLDING"::equals);
                reader.await("RECV 0 0", WAIT, "RECV 0 0"::equals);
                for (long seq = 1; seq <= messages; seq++) {
                    StreamMessage.writeIncompressible(payload, size, 1, seq);
                    long n = seq;
                    assertTrue(sender.send(payload, 0), () -> "a send blocked although one receiver reads: seq=" + n);
                }
                long toStuck = received(stuck).size();
                stuck.tell("GO");
                Await.until("every message at one receiver or the other", WAIT,
                        () -> received(stuck).size() + received(reader).size() >= messages);
                List<Long> a = received(stuck);
                List<Long> b = received(reader);
                System.out.println("stuck receiver: " + a.size() + " messages (" + toStuck + " read before GO), the other "
                        + b.size() + "; " + sender.stats());
                assertTrue(a.size() > 0 && a.size() <= 200, "messages dealt to the stuck receiver: " + a.size());
                TreeSet<Long> all = new TreeSet<>(a);
                all.addAll(b);
                assertEquals(messages, a.size() + b.size(), "a message twice");
                assertEquals(messages, all.size(), "a message twice or missing");
                assertEquals(1L, all.first());
                assertEquals(messages, all.last());
                assertRising(a);
                assertRising(b);
                for (ChildProcess r : List.of(stuck, reader)) {
                    assertTrue(r.lines().stream().noneMatch(l -> l.startsWith("CORRUPT") || l.startsWith("BAD")), r.lines()::toString);
                }
                PipelineStats stats = sender.stats();
                assertEquals(messages + 2, stats.messages(), stats::toString);
                assertEquals(0, stats.wouldBlock() + stats.abandonedMessages(), stats::toString);
            }
        }
    }

    /** The sequences of sender 1's messages {@code receiver} reported, in the order it got them. */
    private static List<Long> received(ChildProcess receiver) {
        return receiver.lines().stream().filter(l -> l.startsWith("RECV 1 "))
                .map(l -> Long.parseLong(l.substring("RECV 1 ".length()))).toList();
    }

    private static void assertRising(List<Long> seqs) {
        for (int i = 1; i < seqs.size(); i++) {
            assertTrue(seqs.get(i) > seqs.get(i - 1), "out of order: " + seqs.get(i - 1) + " then " + seqs.get(i));
        }
    }

    /**
     * A publisher restarted: the subscriber connects, the publishing process binds and is
     * SIGKILLed mid-stream, and a new one binds the same endpoint. The SUB reconnects by itself
     * and sends its subscription again, so the new publisher's stream arrives without the
     * application doing anything. PUB may drop messages for a subscriber that falls behind, so
     * each publisher's sequence must rise (never a message twice or out of order) rather than be
     * contiguous; every message is intact and the receiver counts no bad frame.
     */
    @Test
    void shouldResubscribeAndReceiveFromARestartedPublisher() {
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        try (ZmqContext context = new ZmqContext();
             ZmqSocket sub = context.socket(SocketType.SUB)) {
            sub.receiveTimeoutMs(200);
            sub.subscribe(TOPIC);
            sub.connect(endpoint);
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(sub).build()) {
                Map<Integer, Long> last = new HashMap<>();
                Map<Integer, Long> received = new HashMap<>();
                for (int publisher = 1; publisher <= 2; publisher++) {
                    try (ChildProcess pub = ChildProcess.peer("role=pub", "endpoint=" + endpoint, "bind=true",
                            "sender=" + publisher, "size=2048")) {
                        long deadline = System.nanoTime() + WAIT.toNanos();
                        while (received.getOrDefault(publisher, 0L) < 300) {
                            assertTrue(System.nanoTime() < deadline, "publisher " + publisher + " not received: "
                                    + received + ", " + pub.lines() + " " + pub.stderr());
                            int status = receiver.receive(0);
                            assertTrue(status != DecompressingReceiver.BAD_FRAME, receiver::lastErrorMessage);
                            if (status == DecompressingReceiver.RECEIVED) {
                                ReceivedMessage m = receiver.message();
                                assertArrayEquals(TOPIC, m.partBytes(0), "topic");
                                MemorySegment p = lastPart(m);
                                int from = StreamMessage.sender(p);
                                long seq = StreamMessage.sequence(p);
                                assertTrue(StreamMessage.intact(p), "corrupted: publisher=" + from + ", seq=" + seq);
                                assertTrue(seq > last.getOrDefault(from, 0L), "publisher " + from + ": " + seq
                                        + " after " + last.get(from));
                                last.put(from, seq);
                                received.merge(from, 1L, Long::sum);
                            }
                        }
                        pub.kill();
                    }
                }
                System.out.println("publisher restarted: received " + received + ", last " + last);
                assertEquals(0, receiver.stats().errors(), receiver.stats()::toString);
            }
        }
    }

    /**
     * A subscriber that does not read while the publisher sends: with HWM 10 on both sides, small
     * kernel buffers (64 KiB asked for) and incompressible 16 KiB messages, only a few dozen of
     * the 1000 messages fit anywhere between the two, so PUB must drop most of them, whatever the
     * machine's speed. The subscriber's pipeline counters (not only its sequence check) show it.
     */
    @Test
    void shouldDropBeyondHighWaterMarkForASlowSubscriberAndCountTheGaps() {
        int messages = STREAM_MESSAGES;
        int size = 16 * 1024;
        int bufBytes = 64 * 1024;
        try (Arena arena = Arena.ofConfined();
             ZmqContext context = new ZmqContext();
             ZmqSocket pub = context.socket(SocketType.PUB)) {
            pub.sendHwm(10);
            pub.sndbuf(bufBytes);
            pub.bind("tcp://127.0.0.1:*");
            MemorySegment payload = arena.allocate(size);
            try (CompressingSender sender = CompressingSender.builder(pub).build();
                 ChildProcess sub = ChildProcess.peer("role=sub", "endpoint=" + pub.lastEndpoint(), "hwm=10",
                         "bufBytes=" + bufBytes, "hold=true", "quiet=true")) {
                sub.awaitReady();
                // Subscriptions travel asynchronously: warm-up messages until one arrives; the
                // subscriber then stops reading until told to go on (the warm-ups published
                // meanwhile wait in its queue: small ones, see publishUntil).
                publishUntil(sender, payload, 0, sub, "HOLDING"::equals);
                for (long seq = 1; seq <= messages; seq++) {
                    StreamMessage.writeIncompressible(payload, size, 1, seq);
                    assertTrue(sender.publish(TOPIC, payload, 0), "PUB never blocks: it drops");
                }
                sub.tell("GO");
                // End markers until the subscriber reports (it may drop some of them too).
                String stats = publishUntil(sender, payload, Peer.END_MARKER, sub, l -> l.startsWith("STATS"));
                Matcher m = Pattern.compile("STATS received=(\\d+) gaps=(\\d+) missing=(\\d+) pipelineMessages=(\\d+) pipelineErrors=(\\d+)")
                        .matcher(stats);
                assertTrue(m.matches(), stats);
                long received = Long.parseLong(m.group(1));
                long gaps = Long.parseLong(m.group(2));
                long missing = Long.parseLong(m.group(3));
                long pipelineMessages = Long.parseLong(m.group(4));
                System.out.println("slow subscriber: sent=" + messages + " " + stats);
                assertEquals(messages, received + missing, "every message is either received or counted missing");
                // What fits between the two (both HWMs, the kernel buffers) does arrive: a stream that
                // lost everything would satisfy every count below as well.
                assertTrue(received > 0, "nothing of the stream reached the subscriber: " + stats);
                assertTrue(missing > 0 && gaps > 0, "a subscriber that does not read, with HWM 10, must lose messages: " + stats);
                // The receiver's own counters show the loss: it delivered exactly what arrived.
                assertEquals(messages - missing, pipelineMessages, "pipeline message count: " + stats);
                assertTrue(pipelineMessages < messages, stats);
                assertEquals(0, Long.parseLong(m.group(5)), "drops are whole messages, never bad frames");
                assertTrue(sub.lines().stream().noneMatch(l -> l.startsWith("CORRUPT") || l.startsWith("BAD")));
                // The publisher cannot see the drops (CompressingSender's class comment): it counts
                // every publish sent, the stream and at least one warm-up and one end marker, none
                // refused or abandoned, each of the stream's frames zero-copy (16 KiB of random
                // bytes, above the pool's threshold) and the markers' copied (below it); libzmq gave
                // the dropped messages' buffers back to the pool.
                PipelineStats sent = sender.stats();
                assertTrue(sent.messages() >= messages + 2, sent::toString);
                assertEquals(messages, sent.zeroCopySends(), sent::toString);
                assertEquals(sent.messages() - messages, sent.copiedSends(), sent::toString);
                assertEquals(0, sent.wouldBlock() + sent.abandonedMessages(), sent::toString);
                NativeBufferPool pool = context.bufferPool();
                Await.until("every pooled buffer back, the dropped messages' included", WAIT, () -> pool.outstanding() == 0);
                assertEquals(pool.stats().rented(), pool.stats().returned(), pool.stats()::toString);
                assertEquals(0, pool.stats().callbackErrors(), pool.stats()::toString);
            }
        }
    }

    @Test
    void shouldReturnEveryZeroCopyBufferWhenTheContextClosesWithMessagesInFlight() {
        try (NativeBufferPool pool = NativeBufferPool.builder().zeroCopyThresholdBytes(1024).build()) {
            ZmqContext context = ZmqContext.builder().bufferPool(pool).defaultLinger(Duration.ZERO).build();
            ZmqSocket tcp = context.socket(SocketType.PUSH);
            ZmqSocket inproc = context.socket(SocketType.PUSH);
            ZmqSocket unread = context.socket(SocketType.PULL);
            // Nobody listens on the tcp port, and nobody reads the inproc PULL: libzmq holds it all.
            tcp.connect("tcp://127.0.0.1:" + Ports.unused());
            unread.bind("inproc://unread");
            inproc.connect("inproc://unread");
            try (CompressingSender a = CompressingSender.builder(tcp).zeroCopyThresholdBytes(1024).build();
                 CompressingSender b = CompressingSender.builder(inproc).zeroCopyThresholdBytes(1024).build()) {
                for (int i = 0; i < 40; i++) {
                    assertTrue(a.send(Frames.random(32 * 1024, i), 0));
                    assertTrue(b.send(Frames.random(32 * 1024, i), 0));
                }
            }
            assertEquals(80, pool.outstanding(), "every buffer is held by libzmq");
            context.close();
            assertEquals(0, pool.outstanding(), "context closed: every buffer back");
            assertEquals(0, pool.stats().callbackErrors());
            assertFalse(pool.isClosed(), "the pool belongs to the caller, not to the context");
            pool.assertNoLeaks();
        }
    }

    /** Size of a warm-up or end marker: small, so that those queued take next to nothing of the kernel buffers. */
    private static final int MARKER_BYTES = 64;

    /**
     * Publishes message ({@code senderId}, sequence 0; an end marker's sequence is the stream's
     * length) of {@link #MARKER_BYTES} every 20 ms until {@code sub} prints a matching line, and
     * returns that line. PUB may drop any of them; pacing keeps few of them in the subscriber's
     * queue. Warm-ups published after the one that made the subscriber hold, until this thread sees
     * its line, wait in front of the stream; as large as the stream's messages (16 KiB) they took
     * the room the stream needs (18 to 27 of those fitted), and a delay of a few hundred ms in
     * seeing the line on a loaded machine would have left none for the stream.
     */
    private static String publishUntil(CompressingSender sender, MemorySegment payload, int senderId,
                                       ChildProcess sub, Predicate<String> line) {
        long seq = senderId == Peer.END_MARKER ? STREAM_MESSAGES : 0;
        long deadline = System.nanoTime() + WAIT.toNanos();
        for (;;) {
            for (String l : sub.lines()) {
                if (line.test(l)) {
                    return l;
                }
            }
            assertTrue(System.nanoTime() < deadline, "subscriber did not answer sender " + senderId + ": " + sub.lines());
            StreamMessage.writeIncompressible(payload, MARKER_BYTES, senderId, seq);
            sender.publish(TOPIC, payload.asSlice(0, MARKER_BYTES), 0);
            try {
                Thread.sleep(20); // pace the messages; the subscriber's line decides
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    /** Receives until {@code sender}'s stream reaches {@code seq}, every message through {@code check}. */
    private static void receiveUntil(DecompressingReceiver receiver, StreamCheck check, int sender, long seq) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (check.last(sender) < seq) {
            assertTrue(System.nanoTime() < deadline, "stream from sender " + sender + " stalled at " + check.last(sender));
            int status = receiver.receive(0);
            assertTrue(status != DecompressingReceiver.BAD_FRAME, () -> "bad frame: " + receiver.lastErrorMessage());
            if (status == DecompressingReceiver.RECEIVED) {
                check.accept(lastPart(receiver.message()));
            }
        }
    }

    static MemorySegment lastPart(ReceivedMessage m) {
        return m.part(m.parts() - 1);
    }
}
