package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.MonitorEvent;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketMonitor;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a long-lived service built from the READMEs alone does across restarts: a receiver in a
 * child JVM that freezes, is noticed dead by the heartbeat, is SIGKILLed and started again, while
 * the service's sender keeps sending with DONTWAIT at a high-water mark; the socket monitor's
 * events in the order the transport README gives; and a graceful shutdown, the context closed
 * from another thread (as a shutdown hook would) while threads are blocked in receive and send.
 */
class RestartJourneyTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** 64 KiB of {@link StreamMessage} text: frames of about 12 KiB, so sends go zero-copy from the pool. */
    private static final int SIZE = 64 * 1024;
    private static final int HWM = 50;
    private static final int HEARTBEAT_IVL_MS = 200;
    private static final int HEARTBEAT_TIMEOUT_MS = 600;

    @Test
    @Timeout(60)
    void shouldRideOutAReceiverFrozenNoticedByTheHeartbeatKilledAndStartedAgain() throws Exception {
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        List<MonitorEvent> events = new CopyOnWriteArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong taken = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicReference<Throwable> senderFailure = new AtomicReference<>();
        AtomicReference<PipelineStats> senderStats = new AtomicReference<>();
        NativeBufferPool pool;
        ChildProcess first = null;
        ChildProcess second = null;
        try (ZmqContext ctx = new ZmqContext()) {
            pool = ctx.bufferPool();
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.sendHwm(HWM);
            // transport/README.md "Heartbeats": "heartbeatIvlMs(n) sends a PING every n ms, and a
            // connection that brings nothing in for heartbeatTimeoutMs after one is closed and
            // reconnected (a monitor sees DISCONNECTED)".
            push.heartbeatIvlMs(HEARTBEAT_IVL_MS);
            push.heartbeatTimeoutMs(HEARTBEAT_TIMEOUT_MS);
            // "Socket monitoring": "monitor before bind/connect to see a connection from its start".
            SocketMonitor monitor = push.monitor(MonitorEvent.Type.ALL);
            Thread monitorReader = Thread.ofPlatform().daemon().name("journey-monitor").start(() -> {
                try {
                    while (!monitor.isClosed()) {
                        MonitorEvent e = monitor.receive(Duration.ofMillis(100));
                        if (e != null) {
                            events.add(e);
                        }
                    }
                } catch (IllegalStateException closed) {
                    // closed by the test's thread between two receives: the events read are all there is
                }
            });
            first = receiver(endpoint);
            push.connect(endpoint);

            Thread producer = Thread.ofPlatform().name("journey-sender").start(() -> {
                try (Arena arena = Arena.ofConfined();
                     CompressingSender sender = CompressingSender.builder(push).build()) {
                    MemorySegment payload = arena.allocate(SIZE);
                    long seq = 1;
                    StreamMessage.write(payload, SIZE, 1, seq);
                    while (!stop.get()) {
                        // root README, Usage: "at the high-water mark: nothing was sent, the payload
                        // is still yours"; so the next attempt sends the same sequence again.
                        if (sender.send(payload, ZmqSocket.DONTWAIT)) {
                            taken.incrementAndGet();
                            StreamMessage.write(payload, SIZE, 1, ++seq);
                        } else {
                            refused.incrementAndGet();
                        }
                        LockSupport.parkNanos(1_000_000); // the service's own pace, about 1,000 events a second at most
                    }
                    senderStats.set(sender.stats());
                } catch (Throwable t) {
                    senderFailure.set(t);
                }
            });

            first.await("receiver 1's message 200", WAIT, "RECV 1 200"::equals);
            assertTrue(events.stream().noneMatch(e -> e.type() == MonitorEvent.Type.DISCONNECTED),
                    "a DISCONNECTED before the freeze: " + events);

            // Frozen (a long GC pause, a suspended VM): the kernel still takes the TCP bytes, only
            // the heartbeat can tell.
            long frozenAt = System.nanoTime();
            first.signal("STOP");
            Await.until("DISCONNECTED from the heartbeat", WAIT,
                    () -> events.stream().anyMatch(e -> e.type() == MonitorEvent.Type.DISCONNECTED));
            long noticedMs = (System.nanoTime() - frozenAt) / 1_000_000;
            assertTrue(first.isAlive(), "the receiver died on its own: its kernel, not the heartbeat, ended the connection");
            // A silence of at least (timeout - interval) must pass before the heartbeat times out.
            assertTrue(noticedMs >= HEARTBEAT_TIMEOUT_MS - HEARTBEAT_IVL_MS,
                    "DISCONNECTED " + noticedMs + " ms after the freeze, sooner than a heartbeat timeout");

            // The operator gives up on it: SIGKILL, then a new receiver on the same endpoint.
            first.kill();
            long refusedAtKill = refused.get();
            // root README, Usage: DONTWAIT "at the high-water mark: nothing was sent"; with no peer the
            // PUSH's pipe (kept by a connecting socket, reliability README) fills and sends are refused.
            Await.until("sends refused at the high-water mark with the receiver gone", WAIT,
                    () -> refused.get() > refusedAtKill + 10);
            int eventsBeforeRestart = events.size();
            second = receiver(endpoint);
            ChildProcess restarted = second;
            Await.until("200 messages at receiver 2", WAIT, () -> sequences(restarted).size() >= 200);
            stop.set(true);
            producer.join(WAIT.toMillis());
            assertTrue(!producer.isAlive(), "the sender thread did not end");
            if (senderFailure.get() != null) {
                throw new AssertionError("the sender failed", senderFailure.get());
            }
            long last = taken.get();
            ChildProcess r2 = second;
            r2.await("the last message taken, " + last, WAIT, ("RECV 1 " + last)::equals);

            // Pool: every message is delivered; the buffers libzmq held come back (transport
            // README "Pool and zero-copy": "every buffer, pooled or not, comes back (outstanding()
            // returns to 0)").
            Await.until("pool outstanding back to 0", WAIT, () -> pool.outstanding() == 0);
            NativeBufferPool.Stats ps = pool.stats();
            assertEquals(ps.rented(), ps.returned(), "rented = returned: " + ps);
            assertEquals(0, ps.callbackErrors(), ps.toString());
            assertEquals(0, ps.strayCallbacks(), ps.toString());
            assertEquals(0, ps.doubleReleases(), ps.toString());

            // Sender's counters (pipeline README "Counters"): would-block returns are the sends that
            // returned false; every send that returned true is a message; nothing abandoned or dropped.
            PipelineStats s = senderStats.get();
            assertEquals(last, s.messages(), "messages: " + s);
            assertEquals(refused.get(), s.wouldBlock(), "wouldBlock: " + s);
            assertEquals(0, s.abandonedMessages(), s.toString());
            assertEquals(0, s.droppedMessages(), s.toString());
            assertEquals(last, s.zeroCopySends(), "64 KiB of text makes frames above the 8 KiB threshold: " + s);
            assertTrue(s.poolRents() >= last, "poolRents: " + s);
            assertTrue(s.wouldBlock() > 0, "the outage never filled the high-water mark: " + s);

            // What the two receivers saw: intact messages, nothing twice, one hole at most, at the
            // dead connection (reliability README, "What the dead connection held is lost").
            List<Long> r1 = sequences(first);
            List<Long> r2seq = sequences(second);
            assertTrue(first.lines().stream().noneMatch(l -> l.startsWith("CORRUPT") || l.startsWith("BAD")), first.lines().toString());
            assertTrue(second.lines().stream().noneMatch(l -> l.startsWith("CORRUPT") || l.startsWith("BAD")), second.lines().toString());
            assertContiguous("receiver 1", r1);
            assertContiguous("receiver 2", r2seq);
            long r1Last = r1.getLast();
            long r2First = r2seq.getFirst();
            assertTrue(r2First > r1Last, "a message twice: receiver 1 up to " + r1Last + ", receiver 2 from " + r2First);
            assertEquals(last, r2seq.getLast());
            System.out.println("restart journey: taken=" + last + " refused=" + refused.get() + " receiver1=1.." + r1Last
                    + " lost=" + (r2First - r1Last - 1) + " receiver2=" + r2First + ".." + last
                    + " heartbeat noticed after " + noticedMs + " ms; events=" + events.size()
                    + " (" + eventsBeforeRestart + " before the restart); sender " + s + "; pool " + ps);

            closeMonitor(monitor, monitorReader);
        } finally {
            if (first != null) {
                first.close();
            }
            if (second != null) {
                second.close();
            }
        }
        // After the context: its pool is closed once libzmq holds nothing (transport README,
        // "Pool and zero-copy", "Lifetime").
        assertEquals(0, pool.outstanding());
        assertMonitorOrder(events);
    }

    /**
     * transport/README.md "Socket monitoring": the connecting side sees CONNECT_DELAYED, CONNECTED,
     * HANDSHAKE_SUCCEEDED; a lost connection DISCONNECTED with "the one CONNECTED ... gave" as its
     * value, then CONNECT_RETRIED; a connect nobody answers, per attempt, CONNECT_DELAYED, CLOSED,
     * CONNECT_RETRIED; and the new connection CONNECTED, HANDSHAKE_SUCCEEDED.
     */
    private static void assertMonitorOrder(List<MonitorEvent> events) {
        List<MonitorEvent.Type> types = events.stream().map(MonitorEvent::type).toList();
        String all = types.toString();
        int connected = types.indexOf(MonitorEvent.Type.CONNECTED);
        int handshake = types.indexOf(MonitorEvent.Type.HANDSHAKE_SUCCEEDED);
        int disconnected = types.indexOf(MonitorEvent.Type.DISCONNECTED);
        assertEquals(MonitorEvent.Type.CONNECT_DELAYED, types.getFirst(), all);
        assertTrue(connected > 0 && handshake > connected && disconnected > handshake, all);
        assertEquals(events.get(connected).value(), events.get(disconnected).value(),
                "DISCONNECTED names the descriptor CONNECTED gave: " + events);
        assertEquals(MonitorEvent.Type.CONNECT_RETRIED, types.get(disconnected + 1), all);
        int lastHandshake = types.lastIndexOf(MonitorEvent.Type.HANDSHAKE_SUCCEEDED);
        assertTrue(lastHandshake > disconnected, all);
        assertEquals(MonitorEvent.Type.CONNECTED, types.get(lastHandshake - 1), all);
        // Events only of the documented kinds, none UNKNOWN, and no failed handshake reported as a success.
        assertTrue(types.stream().noneMatch(t -> t == MonitorEvent.Type.UNKNOWN), all);
        System.out.println("restart journey: monitor events " + all);
    }

    @Test
    @Timeout(60)
    void shouldEndEveryBlockedThreadWithTheDocumentedExceptionWhenAShutdownHookClosesTheContext() throws Exception {
        ZmqContext ctx = new ZmqContext();
        NativeBufferPool pool = ctx.bufferPool();
        String nobody = "tcp://127.0.0.1:" + Ports.unused();

        // A receive loop with nothing to receive.
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.bind("tcp://127.0.0.1:*");
        DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
        AtomicReference<Throwable> receiveEnd = new AtomicReference<>();
        AtomicBoolean receiverClosed = new AtomicBoolean();
        Thread receiving = Thread.ofPlatform().name("journey-receive").start(() -> {
            try {
                receiver.receive(0);
            } catch (Throwable t) {
                receiveEnd.set(t);
            }
            // pipeline README "Ending a wait": "its thread can close the receiver".
            receiver.close();
            receiverClosed.set(true);
        });

        // A blocking sender whose peer never comes: the connecting PUSH queues up to its HWM, then waits.
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.sendHwm(4);
        push.connect(nobody);
        CompressingSender sender = CompressingSender.builder(push).build();
        AtomicLong sent = new AtomicLong();
        AtomicBoolean inSend = new AtomicBoolean();
        AtomicReference<Throwable> sendEnd = new AtomicReference<>();
        Thread sending = Thread.ofPlatform().name("journey-send").start(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment payload = arena.allocate(SIZE);
                for (long seq = 1; ; seq++) {
                    StreamMessage.write(payload, SIZE, 1, seq);
                    inSend.set(true);
                    sender.send(payload, 0);
                    inSend.set(false);
                    sent.incrementAndGet();
                }
            } catch (Throwable t) {
                sendEnd.set(t);
            }
            sender.close();
        });

        // A parallel sender whose workers wait at the HWM while its producer waits in flush().
        ZmqSocket parallelPush = ctx.socket(SocketType.PUSH);
        parallelPush.sendHwm(4);
        parallelPush.connect(nobody);
        ParallelCompressingSender parallel = ParallelCompressingSender.builder(parallelPush).workers(2).inFlight(8).build();
        AtomicLong parallelTaken = new AtomicLong();
        AtomicBoolean inFlush = new AtomicBoolean();
        AtomicReference<Throwable> flushEnd = new AtomicReference<>();
        AtomicReference<Throwable> parallelCloseEnd = new AtomicReference<>();
        Thread flushing = Thread.ofPlatform().name("journey-flush").start(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment payload = arena.allocate(SIZE);
                for (long seq = 1; ; seq++) {
                    StreamMessage.write(payload, SIZE, 2, seq);
                    if (!parallel.send(payload, ZmqSocket.DONTWAIT)) {
                        break; // the ring is full behind workers waiting at the high-water mark
                    }
                    parallelTaken.incrementAndGet();
                }
                inFlush.set(true);
                parallel.flush();
            } catch (Throwable t) {
                flushEnd.set(t);
            }
            try {
                parallel.close();
            } catch (Throwable t) {
                parallelCloseEnd.set(t);
            }
        });

        Stillness sends = new Stillness();
        Await.until("the receive, the send and the flush all waiting", WAIT, () -> inFlush.get() && inSend.get()
                && sends.stillFor(sent, Duration.ofMillis(300)) && inSend.get());
        assertTrue(receiving.isAlive() && sending.isAlive() && flushing.isAlive());

        // As from a shutdown hook: transport README "Threading": "Closing the context is therefore a
        // safe way to stop threads blocked in receives, sends or polls".
        Thread hook = Thread.ofPlatform().name("journey-shutdown-hook").start(ctx::close);
        hook.join(WAIT.toMillis());
        assertTrue(!hook.isAlive(), "ZmqContext.close() did not return");
        for (Thread t : List.of(receiving, sending, flushing)) {
            t.join(WAIT.toMillis());
            assertTrue(!t.isAlive(), t.getName() + " still blocked after the context closed");
        }
        assertTrue(ctx.isClosed());

        // pipeline README "Ending a wait": "the blocked receive then throws ZmqException (ETERM)".
        ZmqException receiveEterm = assertInstanceOf(ZmqException.class, receiveEnd.get(), String.valueOf(receiveEnd.get()));
        assertTrue(receiveEterm.isContextTerminated(), receiveEterm.toString());
        assertTrue(receiverClosed.get(), "the receiver could not be closed after ETERM");
        // transport README "Threading": blocked calls "return ETERM"; the sender passes the
        // socket's ZmqException on.
        Throwable sendFailure = sendEnd.get();
        assertNotNull(sendFailure, "the blocked send returned instead of failing");
        assertTrue(isEterm(sendFailure), "the blocked send did not end with ETERM: " + sendFailure);
        // pipeline README "Ending a wait": the parallel sender's "next send, flush or close rethrows
        // the ETERM failure, and the messages not sent are dropped and counted"; "Failures": as an
        // IllegalStateException with the cause.
        Throwable flushFailure = flushEnd.get();
        assertInstanceOf(IllegalStateException.class, flushFailure, String.valueOf(flushFailure));
        assertTrue(isEterm(flushFailure), "flush's failure does not carry ETERM: " + flushFailure);
        PipelineStats ps = parallel.stats();
        assertTrue(parallel.isClosed(), "the parallel sender is still open after close(): " + parallelCloseEnd.get());
        // "Every message taken is then either in libzmq, in order, or counted in droppedMessages".
        assertEquals(parallelTaken.get(), ps.messages() + ps.droppedMessages(), "taken=" + parallelTaken + " " + ps);
        assertTrue(ps.droppedMessages() > 0, "nothing dropped although the workers were blocked: " + ps);

        // Nothing leaked: the context's pool got every buffer back once libzmq held none.
        assertEquals(0, pool.outstanding(), pool.stats().toString());
        NativeBufferPool.Stats stats = pool.stats();
        assertEquals(stats.rented(), stats.returned(), stats.toString());
        assertEquals(0, stats.callbackErrors(), stats.toString());
        System.out.println("shutdown journey: receive ended with " + receiveEnd.get() + "; send with " + sendFailure
                + " after " + sent.get() + " sent; flush with " + flushFailure + " (cause " + flushFailure.getCause()
                + "), close then " + parallelCloseEnd.get() + "; parallel taken=" + parallelTaken + " " + ps
                + "; pool " + stats);
    }

    private static boolean isEterm(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ZmqException z && z.isContextTerminated()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a counter has not moved for a while, polled by one awaiting thread: the only sign the
     * API gives that a blocking send is waiting rather than between sends.
     */
    private static final class Stillness {
        private long value = -1;
        private long since;

        boolean stillFor(AtomicLong counter, Duration d) {
            long v = counter.get();
            long now = System.nanoTime();
            if (v != value) {
                value = v;
                since = now;
                return false;
            }
            return now - since >= d.toNanos();
        }
    }

    private static ChildProcess receiver(String endpoint) {
        ChildProcess p = ChildProcess.peer("role=pull", "endpoint=" + endpoint, "bind=true", "hwm=" + HWM,
                "heartbeatMs=" + HEARTBEAT_IVL_MS);
        p.awaitReady();
        return p;
    }

    private static List<Long> sequences(ChildProcess p) {
        List<Long> seqs = new ArrayList<>();
        for (String l : p.lines()) {
            if (l.startsWith("RECV 1 ")) {
                seqs.add(Long.parseLong(l.substring(7)));
            }
        }
        return seqs;
    }

    private static void assertContiguous(String who, List<Long> seqs) {
        assertTrue(!seqs.isEmpty(), who + " received nothing");
        for (int i = 1; i < seqs.size(); i++) {
            assertEquals(seqs.get(i - 1) + 1, seqs.get(i), who + ": a hole or a reordering at index " + i);
        }
    }

    private static void closeMonitor(SocketMonitor monitor, Thread reader) throws InterruptedException {
        monitor.close();
        reader.join(WAIT.toMillis());
    }
}
