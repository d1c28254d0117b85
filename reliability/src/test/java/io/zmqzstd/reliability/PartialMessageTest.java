package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.MonitorEvent;
import io.zmqzstd.transport.SocketMonitor;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A sending host that dies in the middle of a multipart message: its connection ends (FIN, or RST
 * as the kernel sends for a killed process that had unread input) after the first part of a
 * two-part message (envelope, compressed frame), inside the frame's ZMTP header, inside the
 * frame's bytes, or after a whole frame that announced a further part. The peer is a raw TCP socket
 * speaking ZMTP 3.0 (NULL mechanism) byte by byte, so the cut falls exactly where the test says,
 * which a SIGKILL of a real sender cannot promise. libzmq must hand the application whole
 * messages only: the receiver gets the message before the cut, never a part of the cut one, then
 * the next sender's message; the pipeline counts no bad frame.
 */
@Timeout(60)
class PartialMessageTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    /** How long a child sender may take to start and stream. */
    private static final Duration STREAM_WAIT = Duration.ofSeconds(30);
    private static final int SIZE = 4096;

    /** Where the dying sender's bytes end, in its second message. */
    enum Cut {
        /** The envelope part, flagged MORE, and nothing of the frame part. */
        AFTER_ENVELOPE,
        /** The frame part's flags and 3 of its 8 size bytes. */
        IN_FRAME_HEADER,
        /** Half of the frame's bytes. */
        IN_FRAME,
        /** The whole frame, but flagged MORE: the message's last part never comes. */
        BEFORE_LAST_PART
    }

    /** How the connection ends. */
    enum Ending {
        /** The sender read all the receiver sent and closes: FIN. */
        FIN,
        /** SO_LINGER 0: RST, as the kernel ends a killed process's connection with unread input. */
        RST
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Cut.class)
    void shouldNeverDeliverAMessageCutShortWhenTheConnectionEndsWithFin(Cut cut) throws IOException {
        assertOnlyWholeMessagesArrive(cut.toString(), cutShort(cut, Peer.envelope(2), frame(2)), Ending.FIN);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Cut.class)
    void shouldNeverDeliverAMessageCutShortWhenTheConnectionIsReset(Cut cut) throws IOException {
        assertOnlyWholeMessagesArrive(cut.toString(), cutShort(cut, Peer.envelope(2), frame(2)), Ending.RST);
    }

    /**
     * A hostile sender: message 2's frame part declares a size libzmq cannot or should not
     * allocate (1 TiB, more than this machine's memory; 2^63, the top bit set; 16 GiB, which
     * Linux's heuristic overcommit may grant as address space) and is followed by 100 bytes, then
     * the connection ends (RST). libzmq must neither abort nor deliver anything of it: the
     * receiver's process carries on, gets message 1 and the next sender's message 3, and counts
     * no bad frame. (A receiver exposed to untrusted peers should still set the socket's
     * {@code maxMessageSize}, see BoundedResourcesTest: until the connection ends, a granted
     * allocation is libzmq's to fill.)
     */
    @ParameterizedTest(name = "declared={0}")
    @ValueSource(longs = {1L << 40, Long.MIN_VALUE, 1L << 34})
    void shouldSurviveAFramePartDeclaringAnAbsurdSize(long declared) throws IOException {
        byte[] header = Zmtp.longHeader(0, declared);
        byte[] tail = Frames.concat(Zmtp.part(Peer.envelope(2), true), header, new byte[100]);
        assertOnlyWholeMessagesArrive("declared=" + Long.toUnsignedString(declared), tail, Ending.RST);
    }

    /**
     * The same fault with real processes: three senders in turn stream two-part messages of 256 KiB
     * of random bytes (a frame too large to cross the wire in one write) and are SIGKILLed while
     * the receiver reads, so the stream is cut wherever the kernel had got to, almost always inside
     * a message. Every message that arrives is whole and each sender's sequence is contiguous from
     * 1; a sender's last message is missing or whole.
     */
    @Test
    void shouldDeliverOnlyWholeMessagesFromSendersKilledMidStream() {
        int size = 256 * 1024;
        int beforeKill = 20;
        String endpoint = "tcp://127.0.0.1:" + Ports.unused();
        try (ZmqContext context = new ZmqContext();
             ZmqSocket pull = context.socket(SocketType.PULL)) {
            pull.receiveTimeoutMs(200);
            pull.bind(endpoint);
            try (SocketMonitor monitor = pull.monitor(Set.of(MonitorEvent.Type.DISCONNECTED));
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).envelopeParts(1).build()) {
                long checked = 0;
                for (int sender = 1; sender <= 3; sender++) {
                    long last = 0;
                    try (ChildProcess peer = ChildProcess.peer("role=push", "endpoint=" + endpoint, "sender=" + sender,
                            "size=" + size, "enveloped=true", "incompressible=true", "hwm=4")) {
                        long deadline = System.nanoTime() + STREAM_WAIT.toNanos();
                        while (last < beforeKill) {
                            assertTrue(System.nanoTime() < deadline, "sender " + sender + " stalled at " + last
                                    + ": " + peer.lines() + " " + peer.stderr());
                            last = receiveWhole(receiver, sender, last);
                        }
                        peer.kill();
                    }
                    // Whatever the dead connection delivered up to the cut, then nothing.
                    MonitorEvent gone = monitor.receive(WAIT);
                    assertNotNull(gone, "sender " + sender + " killed, but its connection did not end");
                    long atKill = last;
                    for (long next; (next = receiveWhole(receiver, sender, last)) > last; ) {
                        last = next;
                    }
                    System.out.println("sender " + sender + " killed mid-stream: received 1.." + last + " whole ("
                            + (last - atKill) + " after the kill)");
                    checked += last;
                }
                PipelineStats stats = receiver.stats();
                assertEquals(checked, stats.messages(), stats::toString);
                assertEquals(0, stats.errors(), "a message cut short reached the pipeline: " + stats);
            }
        }
    }

    /**
     * Receives one message of the enveloped stream of {@code sender} and checks it: two parts,
     * the envelope naming the frame's sequence, the frame intact and from {@code sender}, the
     * sequence {@code last + 1}. Returns that sequence, or {@code last} when nothing came within
     * the socket's receive timeout.
     */
    private static long receiveWhole(DecompressingReceiver receiver, int sender, long last) {
        int status = receiver.receive(0);
        if (status == DecompressingReceiver.WOULD_BLOCK) {
            return last;
        }
        assertEquals(DecompressingReceiver.RECEIVED, status, () -> "sender " + sender + " after " + last + ": status="
                + status + ", " + receiver.lastErrorReason() + " " + receiver.lastErrorMessage());
        ReceivedMessage m = receiver.message();
        assertEquals(2, m.parts(), "parts of sender " + sender + "'s message after " + last);
        MemorySegment frame = m.part(1);
        long seq = StreamMessage.sequence(frame);
        assertTrue(StreamMessage.intact(frame), "checksum of sender " + sender + "'s message " + seq);
        assertEquals(sender, StreamMessage.sender(frame), "sender of message " + seq);
        assertEquals(last + 1, seq, "sequence of sender " + sender);
        assertArrayEquals(Peer.envelope(seq), m.partBytes(0), "envelope of sender " + sender + "'s message " + seq);
        return seq;
    }

    /**
     * A raw ZMTP sender writes message 1 whole and then {@code tail} (message 2, cut short) and ends
     * its connection; a real sender then sends message 3. Only messages 1 and 3 may arrive.
     */
    private static void assertOnlyWholeMessagesArrive(String cut, byte[] tail, Ending ending) throws IOException {
        int port = Ports.unused();
        String endpoint = "tcp://127.0.0.1:" + port;
        try (ZmqContext context = new ZmqContext();
             ZmqSocket pull = context.socket(SocketType.PULL);
             ZmqSocket push = context.socket(SocketType.PUSH);
             Arena arena = Arena.ofConfined()) {
            pull.receiveTimeoutMs((int) WAIT.toMillis());
            pull.bind(endpoint);
            try (SocketMonitor monitor = pull.monitor(Set.of(MonitorEvent.Type.HANDSHAKE_SUCCEEDED,
                         MonitorEvent.Type.DISCONNECTED));
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).envelopeParts(1).build()) {
                byte[] first = frame(1);
                try (Socket raw = new Socket("127.0.0.1", port)) {
                    raw.setTcpNoDelay(true);
                    OutputStream out = raw.getOutputStream();
                    out.write(Zmtp.greetingAndReady("PUSH"));
                    out.flush();
                    Zmtp.readGreetingAndReady(new DataInputStream(raw.getInputStream()));
                    out.write(Zmtp.part(Peer.envelope(1), true));
                    out.write(Zmtp.part(first, false));
                    out.write(tail);
                    out.flush();
                    if (ending == Ending.RST) {
                        raw.setSoLinger(true, 0);
                    }
                }
                awaitEvent(monitor, MonitorEvent.Type.HANDSHAKE_SUCCEEDED);
                awaitEvent(monitor, MonitorEvent.Type.DISCONNECTED);

                // A sender that lives. Its message may come before a whole one still queued from
                // the dead connection (PULL takes from its connections in turn), so the check
                // after it is that nothing else comes at all.
                push.connect(endpoint);
                MemorySegment third = arena.allocate(SIZE);
                StreamMessage.writeIncompressible(third, SIZE, 1, 3);
                try (CompressingSender sender = CompressingSender.builder(push).build()) {
                    assertTrue(sender.sendEnvelope(Peer.envelope(3), ZmqSocket.SNDMORE));
                    assertTrue(sender.send(third, 0));
                }

                assertWhole(receiver, 1, cut, ending);
                assertWhole(receiver, 3, cut, ending);
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT),
                        "a message after the last whole one: " + cut + ", " + ending);
                PipelineStats stats = receiver.stats();
                assertEquals(2, stats.messages(), stats::toString);
                assertEquals(0, stats.errors(), "a message cut short reached the pipeline: " + stats);
            }
        }
    }

    /** The next message is {@code seq}: two parts, its envelope, its frame intact. */
    private static void assertWhole(DecompressingReceiver receiver, long seq, String cut, Ending ending) {
        int status = receiver.receive(0);
        assertEquals(DecompressingReceiver.RECEIVED, status, () -> "message " + seq + " (" + cut + ", " + ending
                + "): status=" + status + ", " + receiver.lastErrorReason() + " " + receiver.lastErrorMessage());
        ReceivedMessage m = receiver.message();
        assertEquals(2, m.parts(), "parts of message " + seq);
        assertArrayEquals(Peer.envelope(seq), m.partBytes(0), "envelope of message " + seq);
        MemorySegment frame = m.part(1);
        assertEquals(seq, StreamMessage.sequence(frame), "the message after a cut one: " + cut + ", " + ending);
        assertTrue(StreamMessage.intact(frame), "checksum of message " + seq);
    }

    /** Message {@code seq} of sender 1 ({@value #SIZE} random bytes) compressed into one frame. */
    private static byte[] frame(long seq) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(SIZE);
            StreamMessage.writeIncompressible(m, SIZE, 1, seq);
            return Frames.sized(m.toArray(ValueLayout.JAVA_BYTE), 3);
        }
    }

    private static void awaitEvent(SocketMonitor monitor, MonitorEvent.Type type) {
        MonitorEvent e = monitor.receive(WAIT);
        assertNotNull(e, "no " + type + " within " + WAIT);
        assertEquals(type, e.type(), e::toString);
    }

    // ------------------------------------------------------------------ ZMTP 3.0, the sender's side

    /** What the dying sender writes of message 2 before its connection ends. */
    private static byte[] cutShort(Cut cut, byte[] envelope, byte[] frame) {
        byte[] whole = Zmtp.part(frame, cut == Cut.BEFORE_LAST_PART);
        byte[] head = Zmtp.part(envelope, true);
        return switch (cut) {
            case AFTER_ENVELOPE -> head;
            case IN_FRAME_HEADER -> Frames.concat(head, Arrays.copyOf(whole, 1 + 3));
            case IN_FRAME -> Frames.concat(head, Arrays.copyOf(whole, 9 + frame.length / 2));
            case BEFORE_LAST_PART -> Frames.concat(head, whole);
        };
    }
}
