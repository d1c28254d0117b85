package io.zmqzstd.reliability;

import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * A sending or receiving process for the fault tests. Arguments are key=value:
 *
 * <pre>
 *   role=push|pull|pub|sub   endpoint=tcp://...   bind=true|false   sender=&lt;id&gt;   size=&lt;bytes&gt;
 *   count=&lt;messages, 0 = forever&gt;   hwm=&lt;messages&gt;   heartbeatMs=&lt;ms, 0 = off&gt;
 *   bufBytes=&lt;ZMQ_SNDBUF and ZMQ_RCVBUF, 0 = the OS default&gt;   quiet=true|false   hold=true|false
 *   enveloped=true|false   incompressible=true|false
 * </pre>
 *
 * Prints one line per event to stdout, which the tests read: {@code READY}, {@code SENT <seq>}
 * (every 100), {@code RECV <sender> <seq>} (every message), {@code BAD <reason>},
 * {@code CORRUPT <sender> <seq>}, {@code GAP <last> <seq>} (sender 1 only), {@code STATS ...} on the
 * end marker, {@code DONE}. With {@code quiet=true} only every 100th {@code RECV} of sender 1.
 * With {@code hold=true} a receiver stops reading after its first message from sender 0 (a
 * warm-up), prints {@code HOLDING}, and goes on only when a line {@code GO} arrives on stdin:
 * a subscriber that is as slow as can be, for exactly as long as the test wants.
 *
 * <p>With {@code enveloped=true} a receiver takes two-part messages, {@code seq=<n>} uncompressed
 * then the compressed message {@code n} of sender 1 ({@link #envelope}), with one envelope part
 * configured, and checks each one itself: whole, and with a sequence above the last one it got (a
 * PUSH deals messages round robin, so each receiver sees a rising subsequence). It prints
 * {@code RECV <seq>} for its first message and every 1000th, {@code BAD <reason> <message>} for a
 * message the pipeline refuses (a frame alone is taken for the envelope: {@code NO_PAYLOAD}),
 * {@code STRAY <why>} for one it delivers that is not whole, and {@code ORDER <last> <seq>}. A
 * sender with {@code enveloped=true} sends such two-part messages (with its own sender id), and
 * with {@code incompressible=true} random bodies, which cost their full size on the wire. A
 * publisher ({@code role=pub}) sends each message under the topic {@link #TOPIC}.
 */
public final class Peer {

    private Peer() {
    }

    public static void main(String[] args) {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        String role = a.get("role");
        PrintStream out = System.out;
        try (ZmqContext context = new ZmqContext();
             ZmqSocket socket = context.socket(SocketType.valueOf(role.toUpperCase()))) {
            int hwm = Integer.parseInt(a.getOrDefault("hwm", "1000"));
            socket.sendHwm(hwm);
            socket.receiveHwm(hwm);
            socket.lingerMs(0);
            int bufBytes = Integer.parseInt(a.getOrDefault("bufBytes", "0"));
            if (bufBytes > 0) {
                socket.sndbuf(bufBytes);
                socket.rcvbuf(bufBytes);
            }
            int heartbeatMs = Integer.parseInt(a.getOrDefault("heartbeatMs", "0"));
            if (heartbeatMs > 0) {
                socket.heartbeatIvlMs(heartbeatMs);
                socket.heartbeatTimeoutMs(heartbeatMs * 3);
            }
            if (role.equals("sub")) {
                socket.subscribe("");
            }
            if (Boolean.parseBoolean(a.getOrDefault("bind", "false"))) {
                socket.bind(a.get("endpoint"));
            } else {
                socket.connect(a.get("endpoint"));
            }
            if (role.equals("push") || role.equals("pub")) {
                send(socket, a, out);
            } else if (Boolean.parseBoolean(a.getOrDefault("enveloped", "false"))) {
                receiveWhole(socket, out);
            } else {
                receive(socket, a, out);
            }
        }
        out.println("DONE");
        out.flush();
    }

    private static void send(ZmqSocket socket, Map<String, String> a, PrintStream out) {
        int sender = Integer.parseInt(a.getOrDefault("sender", "1"));
        int size = Integer.parseInt(a.getOrDefault("size", "1024"));
        long count = Long.parseLong(a.getOrDefault("count", "0"));
        boolean enveloped = Boolean.parseBoolean(a.getOrDefault("enveloped", "false"));
        boolean incompressible = Boolean.parseBoolean(a.getOrDefault("incompressible", "false"));
        boolean pub = socket.type() == SocketType.PUB;
        try (Arena arena = Arena.ofConfined();
             CompressingSender s = CompressingSender.builder(socket).build()) {
            MemorySegment payload = arena.allocate(size);
            out.println("READY");
            out.flush();
            for (long seq = 1; count == 0 || seq <= count; seq++) {
                if (incompressible) {
                    StreamMessage.writeIncompressible(payload, size, sender, seq);
                } else {
                    StreamMessage.write(payload, size, sender, seq);
                }
                if (pub) {
                    s.publish(TOPIC, payload, 0);
                } else {
                    if (enveloped) {
                        s.sendEnvelope(envelope(seq), ZmqSocket.SNDMORE);
                    }
                    s.send(payload, 0);
                }
                if (seq % 100 == 0) {
                    out.println("SENT " + seq);
                    out.flush();
                }
            }
        }
    }

    /** The topic a publisher sends each message under (its first part, uncompressed). */
    static final byte[] TOPIC = "stream".getBytes(StandardCharsets.US_ASCII);

    /** Sender id of the end marker: its sequence field carries how many messages the stream had. */
    static final int END_MARKER = 9;

    private static void receive(ZmqSocket socket, Map<String, String> a, PrintStream out) {
        long count = Long.parseLong(a.getOrDefault("count", "0"));
        boolean hold = Boolean.parseBoolean(a.getOrDefault("hold", "false"));
        boolean quiet = Boolean.parseBoolean(a.getOrDefault("quiet", "false"));
        // The receiver's own message count when sender 1's stream began (warm-ups before it).
        long pipelineBase = -1;
        long received = 0;
        long gaps = 0;
        long missing = 0;
        long last = 0;
        try (DecompressingReceiver r = DecompressingReceiver.builder(socket).build()) {
            out.println("READY");
            out.flush();
            for (long n = 0; count == 0 || n < count; ) {
                int status = r.receive(0);
                if (status == DecompressingReceiver.BAD_FRAME) {
                    out.println("BAD " + r.lastErrorReason());
                } else if (status == DecompressingReceiver.RECEIVED) {
                    ReceivedMessage m = r.message();
                    MemorySegment p = m.part(m.parts() - 1);
                    int sender = StreamMessage.sender(p);
                    long seq = StreamMessage.sequence(p);
                    boolean intact = StreamMessage.intact(p);
                    if (sender == END_MARKER) {
                        missing += Math.max(0, seq - last);
                        gaps += seq > last ? 1 : 0;
                        // What the pipeline's counters say of sender 1's stream: all it delivered
                        // from the stream's first message on, less this marker.
                        long pipelineMessages = pipelineBase < 0 ? 0 : r.stats().messages() - 1 - pipelineBase;
                        out.println("STATS received=" + received + " gaps=" + gaps + " missing=" + missing
                                + " pipelineMessages=" + pipelineMessages + " pipelineErrors=" + r.stats().errors());
                        out.flush();
                        break;
                    }
                    if (sender == 1) {
                        if (pipelineBase < 0) {
                            pipelineBase = r.stats().messages() - 1;
                        }
                        received++;
                        if (seq != last + 1) {
                            out.println("GAP " + last + " " + seq);
                            gaps++;
                            missing += seq - last - 1;
                        }
                        last = seq;
                    }
                    if (!quiet || !intact || sender != 1) {
                        out.println((intact ? "RECV " : "CORRUPT ") + sender + " " + seq);
                    } else if (seq % 100 == 0) {
                        out.println("RECV " + sender + " " + seq);
                    }
                    n++;
                    if (hold && sender == 0) {
                        hold = false;
                        out.println("HOLDING");
                        out.flush();
                        awaitGo(out);
                    }
                }
                out.flush();
            }
        }
    }

    /** The first part of message {@code seq} in the enveloped stream: {@code seq=<n>} in ASCII. */
    static byte[] envelope(long seq) {
        return ("seq=" + seq).getBytes(StandardCharsets.US_ASCII);
    }

    /** Receives the enveloped stream (see the class comment) until killed. */
    private static void receiveWhole(ZmqSocket socket, PrintStream out) {
        long last = 0;
        long received = 0;
        try (DecompressingReceiver r = DecompressingReceiver.builder(socket).envelopeParts(1).build()) {
            out.println("READY");
            out.flush();
            for (;;) {
                int status = r.receive(0);
                if (status == DecompressingReceiver.BAD_FRAME) {
                    out.println("BAD " + r.lastErrorReason() + " " + r.lastErrorMessage());
                    out.flush();
                } else if (status == DecompressingReceiver.RECEIVED) {
                    ReceivedMessage m = r.message();
                    String why = notWhole(m);
                    if (why != null) {
                        out.println("STRAY " + why);
                        out.flush();
                        continue;
                    }
                    long seq = StreamMessage.sequence(m.part(1));
                    if (seq <= last) {
                        out.println("ORDER " + last + " " + seq);
                    }
                    last = seq;
                    received++;
                    if (received == 1 || received % 1000 == 0) {
                        out.println("RECV " + seq);
                    }
                    out.flush();
                }
            }
        }
    }

    /** Why {@code m} is not a whole message of the enveloped stream, or null when it is one. */
    private static String notWhole(ReceivedMessage m) {
        if (m.parts() != 2) {
            return "parts=" + m.parts();
        }
        MemorySegment frame = m.part(1);
        if (!StreamMessage.intact(frame)) {
            return "checksum: envelope=" + new String(m.partBytes(0), StandardCharsets.US_ASCII);
        }
        if (StreamMessage.sender(frame) != 1) {
            return "sender=" + StreamMessage.sender(frame);
        }
        long seq = StreamMessage.sequence(frame);
        if (!Arrays.equals(m.partBytes(0), envelope(seq))) {
            return "envelope=" + new String(m.partBytes(0), StandardCharsets.US_ASCII) + ", seq=" + seq;
        }
        return null;
    }

    /** Blocks until the test writes {@code GO} on stdin. */
    private static void awaitGo(PrintStream out) {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.equals("GO")) {
                    return;
                }
            }
            out.println("NO GO: stdin ended");
        } catch (IOException e) {
            out.println("NO GO: " + e);
        }
    }
}
