package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Receivers killed while a PUSH sends two-part messages to them as fast as it can: whenever a
 * receiver dies between the parts of a message going to it, libzmq drops the message and refuses
 * its next part, which must then reach no one (before 2026-11-27 the transport sent the refused
 * frame again, and libzmq took it as a message of its own to another receiver).
 */
@Timeout(120)
class MidMessageKillTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Receivers alive at once, each binding its own endpoint; the PUSH connects to all of them. */
    private static final int RECEIVERS = 2;
    /** Kills, one receiver after the other, unless {@link #KILLING} runs out first. */
    private static final int KILLS = 30;
    /** How long the test goes on killing at most: a replacement is a JVM start, slow on a busy machine. */
    private static final Duration KILLING = Duration.ofSeconds(12);
    /** Payload bytes: compressing it between the parts is the window a death must fall into. */
    private static final int SIZE = 8 * 1024;

    /**
     * What holds whatever the timing: no receiver, killed or not, ever gets a message that is not
     * whole ({@code seq=<n>} then message n, intact), each one's sequence rises, and every attempt
     * of the sender is a message sent, a message abandoned (a refusal inside it) or a would-block
     * of its first part.
     */
    @Test
    void shouldDeliverOnlyWholeMessagesWhenReceiversDieBetweenTheirParts() throws InterruptedException {
        long started = System.nanoTime();
        String[] endpoints = new String[RECEIVERS];
        ChildProcess[] receivers = new ChildProcess[RECEIVERS];
        List<ChildProcess> all = new ArrayList<>();
        int kills = 0;
        SendThread thread;
        try (ZmqContext context = new ZmqContext();
             ZmqSocket push = context.socket(SocketType.PUSH)) {
            // IMMEDIATE: the pipe of a connection that breaks is terminated, not kept for the
            // reconnect (a kept pipe would take the message's parts on and never refuse one).
            push.immediate(true);
            push.lingerMs(0);
            push.reconnectIvlMs(10);
            push.sendTimeoutMs(100); // the first part waits at most this long; the frame has DONTWAIT
            try {
                for (int i = 0; i < RECEIVERS; i++) {
                    endpoints[i] = "tcp://127.0.0.1:" + Ports.unused();
                    receivers[i] = start(endpoints[i], all);
                    push.connect(endpoints[i]);
                }
                thread = new SendThread(push);
                try {
                    for (ChildProcess r : receivers) {
                        awaitFirstMessage(r);
                    }
                    long killUntil = System.nanoTime() + KILLING.toNanos();
                    while (kills < KILLS && System.nanoTime() - killUntil < 0) {
                        int i = kills % RECEIVERS;
                        receivers[i].kill(); // SIGKILL, with the PUSH sending to it
                        kills++;
                        receivers[i] = start(endpoints[i], all);
                        // the PUSH has reconnected and sends to it: the next kill of it breaks a live pipe
                        awaitFirstMessage(receivers[i]);
                    }
                } catch (AssertionError e) {
                    thread.addFailureTo(e); // a receiver waiting for messages may be the sender's failure
                    throw e;
                } finally {
                    thread.stop();
                }
            } finally {
                for (ChildProcess r : all) {
                    r.kill(); // and every line it wrote is read
                }
            }
        }
        PipelineStats stats = thread.stats();
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        System.out.println("receivers killed between parts: kills=" + kills + ", attempts=" + thread.attempts()
                + ", messages=" + stats.messages() + ", abandoned=" + stats.abandonedMessages()
                + ", wouldBlock=" + stats.wouldBlock() + ", elapsedMs=" + elapsedMs);
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            ChildProcess r = all.get(i);
            for (String l : r.lines()) {
                if (!l.equals("READY") && !l.startsWith("RECV ")) {
                    wrong.add("receiver " + i + ": " + l);
                }
            }
            assertRising(r.lines());
        }
        assertTrue(wrong.isEmpty(), () -> wrong.size() + " lines of receivers that got what was not a whole message"
                + " in order (sender: " + stats + "): " + wrong.subList(0, Math.min(5, wrong.size())));
        assertTrue(kills >= RECEIVERS, "too few kills to show anything: kills=" + kills);
        // a part is refused only inside a message whose receiver died: one at most per kill
        assertTrue(stats.abandonedMessages() <= kills, () -> "more messages abandoned than receivers killed: " + stats);
        assertEquals(thread.attempts(), stats.messages() + stats.abandonedMessages() + stats.wouldBlock(),
                () -> "attempts not accounted for: " + stats);
        // every first part taken began a message that was either sent or abandoned
        assertEquals(stats.envelopeParts(), stats.messages() + stats.abandonedMessages(), stats::toString);
        assertEquals(0, stats.droppedMessages(), stats::toString);
    }

    /** A receiver of the enveloped stream bound to {@code endpoint}, running and remembered in {@code all}. */
    private static ChildProcess start(String endpoint, List<ChildProcess> all) {
        ChildProcess r = ChildProcess.peer("role=pull", "endpoint=" + endpoint, "bind=true", "enveloped=true");
        all.add(r);
        r.awaitReady();
        return r;
    }

    private static void awaitFirstMessage(ChildProcess r) {
        r.await("a first message", WAIT, l -> l.startsWith("RECV ") || l.startsWith("BAD") || l.startsWith("STRAY"));
    }

    /** The sequences a receiver printed rise (it checks each message itself and prints {@code ORDER} otherwise). */
    private static void assertRising(List<String> lines) {
        long last = 0;
        for (String l : lines) {
            if (l.startsWith("RECV ")) {
                long seq = Long.parseLong(l.substring("RECV ".length()));
                assertTrue(seq > last, "sequence fell: " + last + " then " + seq);
                last = seq;
            }
        }
    }

    /**
     * Sends message n as {@code seq=<n>} ({@code sendEnvelope} with SNDMORE, waiting up to the
     * socket's send timeout) and then message n of sender 1 compressed, with DONTWAIT, until
     * stopped. The payload is written between the two parts, as an application that has sent its
     * envelope and then builds the body would: that and the compression are the window in which
     * libzmq may learn that the receiver the message goes to is gone.
     */
    private static final class SendThread {
        private final Thread thread;
        private volatile boolean stop;
        private volatile Throwable failure;
        private long attempts;
        private PipelineStats stats;

        SendThread(ZmqSocket push) {
            this.thread = Thread.ofPlatform().name("enveloped-push").start(() -> {
                try (Arena arena = Arena.ofConfined();
                     CompressingSender sender = CompressingSender.builder(push).build()) {
                    MemorySegment payload = arena.allocate(SIZE);
                    long seq = 1;
                    while (!stop) {
                        attempts++;
                        if (!sender.sendEnvelope(Peer.envelope(seq), ZmqSocket.SNDMORE)) {
                            continue; // would block: nothing of message seq was sent
                        }
                        StreamMessage.write(payload, SIZE, 1, seq);
                        // true also when refused inside the message: libzmq dropped it (abandoned)
                        if (!sender.send(payload, ZmqSocket.DONTWAIT)) {
                            throw new AssertionError("a frame after its envelope returned false: seq=" + seq);
                        }
                        seq++;
                    }
                    stats = sender.stats();
                } catch (Throwable t) {
                    failure = t;
                }
            });
        }

        void stop() throws InterruptedException {
            stop = true;
            thread.join(WAIT);
            assertTrue(!thread.isAlive(), "the sending thread did not stop");
        }

        void addFailureTo(Throwable t) {
            if (failure != null) {
                t.addSuppressed(failure);
            }
        }

        /** Messages begun: each a send of a first part, taken or not. Read after {@link #stop}. */
        long attempts() {
            return attempts;
        }

        /** The sender's counters when it stopped. Read after {@link #stop}. */
        PipelineStats stats() {
            if (failure != null) {
                throw new AssertionError("sending thread failed", failure);
            }
            return stats;
        }
    }
}
