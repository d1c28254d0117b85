package io.zmqzstd.reliability;

import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.pipeline.BadFrameReason;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.Dictionaries;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The request/reply service of {@link RequestReplyJourneyTest}, and its clients.
 *
 * <p>{@link #main} is the server, run as a child JVM: a ROUTER bound to {@code args[0]} that
 * answers every request with {@link CompressingSender#reply} (the request echoed behind
 * {@code gen=<args[2]>|}), both ends using the dictionary file {@code args[1]}. Commands in the
 * request body: {@code hold|…} is taken and answered only when the next request comes (a reply
 * that comes late), {@code stats|…} is answered with the server's counters. A bad frame is printed
 * as {@code BAD <reason> part=<i> <message>}, followed by what the message view says.
 */
final class RequestReplyJourneySupport {

    static final String SEP = "|";

    private RequestReplyJourneySupport() {
    }

    public static void main(String[] args) {
        String endpoint = args[0];
        Path dictFile = Path.of(args[1]);
        String prefix = "gen=" + args[2] + SEP;
        try (ZmqContext ctx = new ZmqContext();
             ZstdDictionary dict = Dictionaries.load(dictFile);
             Arena arena = Arena.ofConfined()) {
            ZmqSocket router = ctx.socket(SocketType.ROUTER);
            router.bind(endpoint);
            // envelopeParts(2): a REQ with reqCorrelate puts a request id in front of its empty
            // delimiter, [id][request id][][frame]; a plain REQ's [id][][frame] and our DEALERs'
            // [id][seq][frame] take two envelope parts as well.
            try (DecompressingReceiver rx = DecompressingReceiver.builder(router).dictionary(dict).envelopeParts(2).build();
                 CompressingSender tx = CompressingSender.builder(router).level(3).dictionary(dict).build()) {
                MemorySegment out = arena.allocate(64 * 1024);
                byte[] prefixBytes = prefix.getBytes(StandardCharsets.US_ASCII);
                MemorySegment.copy(prefixBytes, 0, out, ValueLayout.JAVA_BYTE, 0, prefixBytes.length);
                List<byte[]> held = null;
                byte[] heldReply = null;
                System.out.println("READY");
                for (;;) {
                    int r = rx.receive(0);
                    if (r == DecompressingReceiver.BAD_FRAME) {
                        String view;
                        try {
                            view = "VIEW parts=" + rx.message().parts();
                        } catch (IllegalStateException e) {
                            view = "NOVIEW " + e.getMessage();
                        }
                        System.out.println("BAD " + rx.lastErrorReason() + " part=" + rx.lastErrorPart() + " "
                                + rx.lastErrorMessage() + " :: " + view);
                        continue;
                    }
                    if (r != DecompressingReceiver.RECEIVED) {
                        continue;
                    }
                    ReceivedMessage m = rx.message();
                    int last = m.parts() - 1;
                    String body = new String(m.partBytes(last), StandardCharsets.UTF_8);
                    if (held != null) {
                        for (byte[] part : held) {
                            tx.sendEnvelope(part, ZmqSocket.SNDMORE);
                        }
                        tx.send(heldReply, 0);
                        held = null;
                    }
                    if (body.startsWith("hold" + SEP)) {
                        held = new ArrayList<>();
                        for (int i = 0; i < last; i++) {
                            held.add(m.partBytes(i));
                        }
                        heldReply = (prefix + body).getBytes(StandardCharsets.UTF_8);
                        continue;
                    }
                    if (body.startsWith("stats" + SEP)) {
                        PipelineStats in = rx.stats();
                        PipelineStats sent = tx.stats();
                        String s = prefix + "rxMessages=" + in.messages() + SEP + "rxErrors=" + in.errors()
                                + SEP + "rxNotZstd=" + in.errors(BadFrameReason.NOT_ZSTD)
                                + SEP + "rxUncompressed=" + in.uncompressedBytes()
                                + SEP + "txMessages=" + sent.messages() + SEP + "txAbandoned=" + sent.abandonedMessages();
                        tx.reply(m, s.getBytes(StandardCharsets.UTF_8), 0);
                        continue;
                    }
                    long n = m.partSize(last);
                    MemorySegment.copy(m.segment(last), m.partOffset(last), out, prefixBytes.length, n);
                    tx.reply(m, out, 0, prefixBytes.length + n, 0);
                }
            }
        }
    }

    /** Parses {@code key=value|key=value} (the server's stats reply) into numbers. */
    static Map<String, Long> counters(String reply) {
        Map<String, Long> map = new TreeMap<>();
        for (String kv : reply.split("\\|")) {
            int eq = kv.indexOf('=');
            if (eq > 0 && !kv.startsWith("gen=")) {
                map.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
            }
        }
        return map;
    }

    /** A REQ client: one request, then its reply or null when the receive timeout expires. */
    static final class ReqClient implements AutoCloseable {
        final ZmqSocket socket;
        final CompressingSender tx;
        final DecompressingReceiver rx;

        ReqClient(ZmqContext ctx, String endpoint, ZstdDictionary dict, boolean relaxed, boolean correlate, int timeoutMs) {
            socket = ctx.socket(SocketType.REQ);
            socket.lingerMs(0);
            socket.reqRelaxed(relaxed);
            socket.reqCorrelate(correlate);
            socket.receiveTimeoutMs(timeoutMs);
            socket.connect(endpoint);
            tx = CompressingSender.builder(socket).level(3).dictionary(dict).build();
            rx = DecompressingReceiver.builder(socket).dictionary(dict).build();
        }

        String call(String request) {
            tx.send(request.getBytes(StandardCharsets.UTF_8), 0);
            return receive();
        }

        String receive() {
            int r = rx.receive(0);
            if (r == DecompressingReceiver.WOULD_BLOCK) {
                return null;
            }
            if (r != DecompressingReceiver.RECEIVED) {
                throw new AssertionError("bad reply: " + rx.lastErrorMessage());
            }
            return new String(rx.message().partBytes(0), StandardCharsets.UTF_8);
        }

        @Override
        public void close() {
            tx.close();
            rx.close();
            socket.close();
        }
    }

    /**
     * A DEALER client: each request goes out as {@code publish(seq, request)}, the 4-byte sequence
     * an envelope part the ROUTER's {@code reply} sends back, so replies to an earlier request (one
     * resent after a timeout) are told apart and dropped here.
     */
    static final class DealerClient implements AutoCloseable {
        final ZmqSocket socket;
        final CompressingSender tx;
        final DecompressingReceiver rx;
        int staleReplies;

        DealerClient(ZmqContext ctx, String endpoint, ZstdDictionary dict) {
            socket = ctx.socket(SocketType.DEALER);
            socket.lingerMs(0);
            socket.connect(endpoint);
            tx = CompressingSender.builder(socket).level(3).dictionary(dict).build();
            rx = DecompressingReceiver.builder(socket).dictionary(dict).envelopeParts(1).build();
        }

        String call(int seq, String request, int timeoutMs) {
            byte[] id = {(byte) (seq >>> 24), (byte) (seq >>> 16), (byte) (seq >>> 8), (byte) seq};
            tx.publish(id, request.getBytes(StandardCharsets.UTF_8), 0);
            long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
            for (;;) {
                long leftMs = (deadline - System.nanoTime()) / 1_000_000L;
                if (leftMs <= 0) {
                    return null;
                }
                socket.receiveTimeoutMs((int) leftMs);
                int r = rx.receive(0);
                if (r == DecompressingReceiver.WOULD_BLOCK) {
                    return null;
                }
                if (r != DecompressingReceiver.RECEIVED) {
                    throw new AssertionError("bad reply: " + rx.lastErrorMessage());
                }
                ReceivedMessage m = rx.message();
                MemorySegment got = m.segment(0);
                long off = m.partOffset(0);
                int gotSeq = m.partSize(0) == 4 ? got.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), off) : -1;
                if (gotSeq == seq) {
                    return new String(m.partBytes(1), StandardCharsets.UTF_8);
                }
                staleReplies++;
            }
        }

        @Override
        public void close() {
            tx.close();
            rx.close();
            socket.close();
        }
    }
}
