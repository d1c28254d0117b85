package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Faults with real processes: child JVMs running {@link Peer}, killed with SIGKILL mid-stream. */
@Timeout(120)
class ProcessFaultTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** SUB receivers take the first part as the topic (uncompressed envelope). */
    private static final byte[] TOPIC = "stream".getBytes();

    /** Tracks one sender's stream as seen by the receiver: intact and contiguous, or the test fails. */
    private static final class StreamCheck {
        final int sender;
        long last;

        StreamCheck(int sender) {
            this.sender = sender;
        }

        void accept(MemorySegment p) {
            assertTrue(StreamMessage.intact(p), "corrupted message: sender=" + StreamMessage.sender(p)
                    + ", seq=" + StreamMessage.sequence(p));
            assertEquals(sender, StreamMessage.sender(p), "message from an unexpected sender");
            long seq = StreamMessage.sequence(p);
            assertEquals(last + 1, seq, "sequence not strictly increasing without gaps: last=" + last);
            last = seq;
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
                StreamCheck first = new StreamCheck(1);
                try (ChildProcess sender = ChildProcess.peer("role=push", "endpoint=" + endpoint, "sender=1", "size=2048")) {
                    receiveUntil(receiver, first, 2000);
                    sender.kill(); // SIGKILL mid-stream
                }
                // Whatever was in flight either arrives whole or not at all.
                while (receiver.receive(0) == DecompressingReceiver.RECEIVED) {
                    first.accept(lastPart(receiver.message()));
                }
                assertEquals(0, receiver.stats().errors(), "bad frames reported: " + receiver.stats());

                StreamCheck second = new StreamCheck(2);
                try (ChildProcess sender = ChildProcess.peer("role=push", "endpoint=" + endpoint, "sender=2", "size=2048")) {
                    receiveUntil(receiver, second, 500);
                }
                assertEquals(0, receiver.stats().errors());
            }
        }
    }

    @Test
    void shouldBlockAtHighWaterMarkWhenTheReceiverIsKilledAndDeliverEverythingToTheNextOne() {
        try (Arena arena = Arena.ofConfined();
             ZmqContext context = new ZmqContext();
             ZmqSocket push = context.socket(SocketType.PUSH)) {
            push.sendHwm(50);
            push.bind("tcp://127.0.0.1:*");
            String endpoint = push.lastEndpoint();
            MemorySegment payload = arena.allocate(1024);
            long seq = 0;
            try (CompressingSender sender = CompressingSender.builder(push).build()) {
                try (ChildProcess receiver = ChildProcess.peer("role=pull", "endpoint=" + endpoint, "hwm=50")) {
                    receiver.awaitReady();
                    while (seq < 300) {
                        StreamMessage.write(payload, 1024, 1, ++seq);
                        assertTrue(sender.send(payload, 0));
                    }
                    receiver.await("RECV 1 300", WAIT, "RECV 1 300"::equals);
                    receiver.kill();
                }
                // With its only peer gone the PUSH socket cannot deliver: sends stop at the HWM
                // (a blocking send would wait here; DONTWAIT says so).
                StreamMessage.write(payload, 1024, 1, ++seq);
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (sender.send(payload, ZmqSocket.DONTWAIT)) {
                    assertTrue(System.nanoTime() < deadline, "sender never blocked");
                    StreamMessage.write(payload, 1024, 1, ++seq);
                }
                try (ChildProcess receiver = ChildProcess.peer("role=pull", "endpoint=" + endpoint, "hwm=50")) {
                    receiver.awaitReady();
                    // The first message that goes out after the new receiver is up...
                    deadline = System.nanoTime() + WAIT.toNanos();
                    while (!sender.send(payload, ZmqSocket.DONTWAIT)) {
                        assertTrue(System.nanoTime() < deadline, "sender never unblocked for the new receiver");
                        Thread.onSpinWait();
                    }
                    long firstAfter = seq;
                    // ...and every one after it arrives, intact and in order.
                    for (int i = 0; i < 500; i++) {
                        StreamMessage.write(payload, 1024, 1, ++seq);
                        assertTrue(sender.send(payload, 0));
                    }
                    String lastLine = "RECV 1 " + seq;
                    receiver.await(lastLine, WAIT, lastLine::equals);
                    List<String> got = receiver.lines().stream().filter(l -> l.startsWith("RECV") || l.startsWith("BAD")
                            || l.startsWith("CORRUPT")).toList();
                    assertEquals(seq - firstAfter + 1, got.size(), "messages lost or duplicated: " + got.subList(0, Math.min(5, got.size())));
                    for (int i = 0; i < got.size(); i++) {
                        assertEquals("RECV 1 " + (firstAfter + i), got.get(i));
                    }
                }
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
        int messages = 1000;
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
                // Subscriptions travel asynchronously: publish warm-up messages until one is seen;
                // the subscriber then stops reading until told to go on.
                long warm = 0;
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (sub.lines().stream().noneMatch("HOLDING"::equals)) {
                    assertTrue(System.nanoTime() < deadline, "subscriber never joined: " + sub.lines());
                    StreamMessage.writeIncompressible(payload, size, 0, ++warm);
                    sender.publish(TOPIC, payload, 0);
                    Thread.onSpinWait();
                }
                for (long seq = 1; seq <= messages; seq++) {
                    StreamMessage.writeIncompressible(payload, size, 1, seq);
                    assertTrue(sender.publish(TOPIC, payload, 0), "PUB never blocks: it drops");
                }
                sub.tell("GO");
                // End markers until the subscriber reports (it may drop some of them too).
                deadline = System.nanoTime() + WAIT.toNanos();
                while (sub.lines().stream().noneMatch(l -> l.startsWith("STATS"))) {
                    assertTrue(System.nanoTime() < deadline, "subscriber never reported: " + sub.lines());
                    StreamMessage.write(payload, size, Peer.END_MARKER, messages);
                    sender.publish(TOPIC, payload, 0);
                    try {
                        Thread.sleep(20); // pace the markers; the STATS line decides
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
                String stats = sub.await("STATS", WAIT, l -> l.startsWith("STATS"));
                Matcher m = Pattern.compile("STATS received=(\\d+) gaps=(\\d+) missing=(\\d+) pipelineMessages=(\\d+) pipelineErrors=(\\d+)")
                        .matcher(stats);
                assertTrue(m.matches(), stats);
                long received = Long.parseLong(m.group(1));
                long gaps = Long.parseLong(m.group(2));
                long missing = Long.parseLong(m.group(3));
                long pipelineMessages = Long.parseLong(m.group(4));
                System.out.println("slow subscriber: sent=" + messages + " " + stats);
                assertEquals(messages, received + missing, "every message is either received or counted missing");
                assertTrue(missing > 0 && gaps > 0, "a subscriber that does not read, with HWM 10, must lose messages: " + stats);
                // The receiver's own counters show the loss: it delivered exactly what arrived.
                assertEquals(messages - missing, pipelineMessages, "pipeline message count: " + stats);
                assertTrue(pipelineMessages < messages, stats);
                assertEquals(0, Long.parseLong(m.group(5)), "drops are whole messages, never bad frames");
                assertTrue(sub.lines().stream().noneMatch(l -> l.startsWith("CORRUPT") || l.startsWith("BAD")));
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

    private static void receiveUntil(DecompressingReceiver receiver, StreamCheck check, long seq) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (check.last < seq) {
            assertTrue(System.nanoTime() < deadline, "stream from sender " + check.sender + " stalled at " + check.last);
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
