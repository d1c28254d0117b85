package io.zmqzstd.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Not a test: the probe behind the README's figures on reads of a ZmqMessage racing another
 * thread (transport/README.md, "Ownership and view lifetimes" and "Fixed defects"). Run it on the
 * test class path:
 * {@code java --enable-native-access=ALL-UNNAMED -cp <class path> io.zmqzstd.transport.MessageReadRaceProbe MODE BYTES SECONDS [READ]}.
 * MODE {@code receive}: a thread receives BYTES-byte frames over inproc into one message while
 * this one reads it in a loop (READ {@code size}, {@code more} or {@code address} for that call
 * alone, else all six reads). MODE {@code close}: a reader thread takes a {@code data()} view,
 * this thread closes the message, and the reader reads the view again. It prints what each call
 * met; a JVM killed by libzmq or a fault prints nothing more.
 */
public final class MessageReadRaceProbe {

    private static final Map<String, Integer> SEEN = new TreeMap<>();

    private MessageReadRaceProbe() {
    }

    private static synchronized void note(String what) {
        SEEN.merge(what, 1, Integer::sum);
    }

    /**
     * @param args MODE BYTES SECONDS [READ], see the class comment
     * @throws Exception when a thread cannot be joined
     */
    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int size = Integer.parseInt(args[1]);
        long until = System.nanoTime() + Long.parseLong(args[2]) * 1_000_000_000L;
        String only = args.length > 3 ? args[3] : "all";
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            AtomicBoolean stop = new AtomicBoolean();
            Thread sender = Thread.ofPlatform().start(() -> {
                byte[] b = new byte[size];
                for (int i = 0; !stop.get(); i++) {
                    Arrays.fill(b, (byte) i);
                    try {
                        push.send(b, 0);
                    } catch (RuntimeException e) {
                        return; // the context shut down
                    }
                }
            });
            long rounds = mode.equals("receive") ? readsUnderReceives(pull, size, until, only, stop)
                    : viewsReadAfterClose(pull, until);
            stop.set(true);
            ctx.shutdown();
            sender.join();
            System.out.println("rounds=" + rounds + " " + SEEN);
        }
    }

    private static long readsUnderReceives(ZmqSocket pull, int size, long until, String only, AtomicBoolean stop)
            throws InterruptedException {
        ZmqMessage msg = new ZmqMessage();
        Thread receiver = Thread.ofPlatform().start(() -> {
            while (!stop.get()) {
                try {
                    pull.receive(msg, 0);
                } catch (RuntimeException e) {
                    note("receive: " + e.getMessage());
                }
            }
        });
        MemorySegment dst = MemorySegment.ofArray(new byte[size]);
        long rounds = 0;
        for (; System.nanoTime() < until; rounds++) {
            try {
                switch (only) {
                    case "size" -> msg.size();
                    case "more" -> msg.hasMore();
                    case "address" -> msg.address();
                    default -> {
                        msg.size();
                        msg.hasMore();
                        msg.address();
                        MemorySegment v = msg.data();
                        if (v.byteSize() > 0 && v.get(ValueLayout.JAVA_BYTE, 0) != v.get(ValueLayout.JAVA_BYTE, v.byteSize() - 1)) {
                            note("data torn");
                        }
                        msg.copyTo(dst, 0);
                        byte[] a = msg.toByteArray();
                        if (a.length > 0 && a[0] != a[a.length - 1]) {
                            note("toByteArray torn");
                        }
                    }
                }
                note("ok");
            } catch (RuntimeException e) {
                note(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        stop.set(true);
        pull.context().shutdown();
        receiver.join();
        return rounds;
    }

    private static long viewsReadAfterClose(ZmqSocket pull, long until) throws InterruptedException {
        long rounds = 0;
        for (; System.nanoTime() < until; rounds++) {
            ZmqMessage msg = new ZmqMessage();
            pull.receive(msg, 0);
            AtomicBoolean viewTaken = new AtomicBoolean();
            AtomicBoolean closed = new AtomicBoolean();
            Thread reader = Thread.ofPlatform().start(() -> {
                try {
                    MemorySegment v = msg.data();
                    byte before = v.get(ValueLayout.JAVA_BYTE, 0);
                    viewTaken.set(true);
                    while (!closed.get()) {
                        Thread.onSpinWait();
                    }
                    for (long i = 0; i < v.byteSize(); i += 4096) {
                        v.get(ValueLayout.JAVA_BYTE, i);
                    }
                    note(v.get(ValueLayout.JAVA_BYTE, 0) == before ? "view read after close: same bytes"
                            : "view read after close: other bytes");
                } catch (RuntimeException e) {
                    viewTaken.set(true);
                    note("view: " + e.getMessage());
                }
            });
            while (!viewTaken.get()) {
                Thread.onSpinWait();
            }
            msg.close();
            closed.set(true);
            reader.join();
        }
        return rounds;
    }
}
