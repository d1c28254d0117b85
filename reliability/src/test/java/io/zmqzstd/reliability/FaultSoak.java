package io.zmqzstd.reliability;

import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.pipeline.BadFrameReason;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.io.File;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A soak run of error paths (by hand; CI runs it briefly, see {@code FaultSoakTest}): for a duration,
 * a loop over tcp loopback mixes, into one PULL read by a {@link DecompressingReceiver} (per-part
 * limit {@value #MAX_PART} bytes, dictionary {@code telemetry.dict}):
 * <ul>
 * <li>good messages of 64 B, 1 KiB, 16 KiB (random, so raw zero-copy frames) and 64 KiB (text) from a
 * {@link CompressingSender}, a {@link CompressingSender} with the dictionary, and a
 * {@link ParallelCompressingSender} (2 workers), each with its own PUSH socket and sender id;</li>
 * <li>bad frames from a raw PUSH: corrupt (a checksummed frame with a byte flipped in its checksum),
 * truncated, not zstd, naming an unknown dictionary, over the receiver's limit, and empty;</li>
 * <li>every {@code cycleMs}, the plain sender, the dictionary sender and the raw peer closed and made again
 * on new sockets (new connections, a new sender id each), and every fourth cycle the parallel sender and
 * its socket too (its worker threads stop and new ones start);</li>
 * <li>a PUB publishing the same messages under topics {@code a}, {@code b} and {@code c} to a SUB
 * subscribed to {@code a} and {@code b}, which its own thread closes and makes again every cycle.</li>
 * </ul>
 * Checked: every PUSH sender's messages arrive intact, exactly once, in order (contiguous per sender id,
 * all of them by the end); every bad frame is refused with its reason ({@code BAD_FRAME}, counted by
 * {@link BadFrameReason}) and the counts per reason equal those injected; the SUB gets intact messages
 * of its topics only, in rising order per topic; its gaps (PUB drops while the SUB reconnects, or at its
 * high-water mark) are counted as {@code subLost}, not as problems. Every {@code reportS} seconds it prints
 * the same memory columns as {@link Soak} (its {@code nmtCommittedKb}, {@code rssKb}), RSS split and
 * {@code malloc}'s side ({@link ProcessMemory}: anon, file and shmem RSS, NMT's malloc, glibc's in use and
 * held, anonymous mappings), the pool's slabs, the process's native threads, plus open file
 * descriptors, live Java threads ({@code Thread.activeCount()}: the main thread group's, where the senders'
 * and the parallel sender's worker threads run), pool rented/returned/outstanding, the codec's live native objects
 * (compression and decompression contexts, digested dictionaries, stream scratch) and the receiver's
 * errors. Exit status 1 on any problem. Command: see reliability/README.md, "Soak".
 */
public final class FaultSoak {

    static final int MAX_PART = 256 * 1024;
    private static final int[] SIZES = {64, 1024, 16 * 1024, 64 * 1024};
    private static final byte[][] TOPICS = {bytes("a"), bytes("b"), bytes("c")};

    /** A bad frame kind and the reason the receiver must give for it. */
    enum Bad {
        CORRUPT(BadFrameReason.CHECKSUM), TRUNCATED(BadFrameReason.TRUNCATED), NOT_ZSTD(BadFrameReason.NOT_ZSTD),
        UNKNOWN_DICTIONARY(BadFrameReason.DICTIONARY_MISSING), OVER_LIMIT(BadFrameReason.TOO_LARGE),
        EMPTY(BadFrameReason.EMPTY);

        final BadFrameReason reason;

        Bad(BadFrameReason reason) {
            this.reason = reason;
        }
    }

    private FaultSoak() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = Soak.arguments(args);
        long seconds = Long.parseLong(a.getOrDefault("seconds", "600"));
        long reportS = Long.parseLong(a.getOrDefault("reportS", "15"));
        long cycleMs = Long.parseLong(a.getOrDefault("cycleMs", "1000"));

        Map<Integer, AtomicLong> sentBySender = new ConcurrentHashMap<>();
        Map<Integer, Long> nextBySender = new ConcurrentHashMap<>();
        AtomicLong received = new AtomicLong();
        AtomicLong problems = new AtomicLong();
        AtomicLong subReceived = new AtomicLong();
        AtomicLong subLost = new AtomicLong();
        AtomicLong published = new AtomicLong();
        AtomicLong restarts = new AtomicLong();
        AtomicLongArray injected = new AtomicLongArray(Bad.values().length);
        AtomicLongArray refused = new AtomicLongArray(BadFrameReason.values().length);
        AtomicInteger nextSenderId = new AtomicInteger(1);
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;

        byte[][] badFrames = badFrames();
        try (ZmqContext context = new ZmqContext();
             ZstdDictionary dictionary = Frames.dictionary();
             ZmqSocket pull = context.socket(SocketType.PULL);
             ZmqSocket pub = context.socket(SocketType.PUB)) {
            pull.receiveTimeoutMs(200);
            pull.bind("tcp://127.0.0.1:*");
            String pullEndpoint = pull.lastEndpoint();
            pub.bind("tcp://127.0.0.1:*");
            String pubEndpoint = pub.lastEndpoint();

            Thread sender = Thread.ofPlatform().name("fault-sender").start(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment buf = arena.allocate(SIZES[SIZES.length - 1]);
                    Push plain = null;
                    Push dict = null;
                    Push parallel = null;
                    ZmqSocket raw = null;
                    try (CompressingSender publisher = CompressingSender.builder(pub).build()) {
                        long cycleEnd = 0;
                        long cycle = 0;
                        int pubSender = nextSenderId.getAndIncrement();
                        long pubSeq = 0;
                        for (long i = 0; System.nanoTime() < deadline; i++) {
                            if (System.nanoTime() >= cycleEnd) {
                                // disconnect and reconnect: close the sockets (their linger delivers what they hold)
                                // and open new ones, each with a new sender id
                                plain = Push.restart(plain, context, pullEndpoint, nextSenderId, sentBySender, null, false);
                                dict = Push.restart(dict, context, pullEndpoint, nextSenderId, sentBySender, dictionary, false);
                                if (cycle % 4 == 0) {
                                    parallel = Push.restart(parallel, context, pullEndpoint, nextSenderId, sentBySender,
                                            null, true);
                                }
                                if (raw != null) {
                                    raw.close();
                                }
                                raw = context.socket(SocketType.PUSH);
                                raw.connect(pullEndpoint);
                                if (cycle > 0) {
                                    restarts.incrementAndGet();
                                }
                                cycle++;
                                cycleEnd = System.nanoTime() + cycleMs * 1_000_000L;
                            }
                            for (Push p : new Push[] {plain, dict, parallel}) {
                                p.send(buf, i);
                            }
                            if (i % 8 == 0) {
                                Bad kind = Bad.values()[(int) (i / 8 % Bad.values().length)];
                                raw.send(badFrames[kind.ordinal()], 0);
                                injected.incrementAndGet(kind.ordinal());
                            }
                            int size = message(buf, i, pubSender, pubSeq);
                            publisher.publish(TOPICS[(int) (i % TOPICS.length)], buf.asSlice(0, size), 0);
                            pubSeq++;
                            published.lazySet(pubSeq);
                        }
                    } finally {
                        for (Push p : new Push[] {plain, dict, parallel}) {
                            if (p != null) {
                                p.close();
                            }
                        }
                        if (raw != null) {
                            raw.close();
                        }
                    }
                } catch (RuntimeException e) {
                    problems.incrementAndGet();
                    e.printStackTrace();
                }
            });

            Thread receiver = Thread.ofPlatform().name("fault-receiver").start(() -> {
                try (DecompressingReceiver r = DecompressingReceiver.builder(pull).maxDecompressedSize(MAX_PART)
                        .dictionary(dictionary).build()) {
                    long quietSince = 0;
                    while (true) {
                        int status = r.receive(0);
                        if (status == DecompressingReceiver.WOULD_BLOCK) {
                            if (!sender.isAlive()) {
                                if (allArrived(sentBySender, nextBySender)) {
                                    return;
                                }
                                // once the sender has ended, 2 s without a message: what is missing never comes
                                quietSince = quietSince == 0 ? System.nanoTime() : quietSince;
                                if (System.nanoTime() - quietSince > 2_000_000_000L) {
                                    return;
                                }
                            }
                            continue;
                        }
                        quietSince = 0;
                        if (status == DecompressingReceiver.BAD_FRAME) {
                            refused.incrementAndGet(r.lastErrorReason().ordinal());
                            continue;
                        }
                        ReceivedMessage m = r.message();
                        MemorySegment p = m.part(0);
                        int id = StreamMessage.sender(p);
                        long seq = StreamMessage.sequence(p);
                        long expected = nextBySender.getOrDefault(id, 0L);
                        if (m.parts() != 1 || seq != expected || !StreamMessage.intact(p)
                                || p.byteSize() != SIZES[(int) (seq % SIZES.length)]) {
                            problems.incrementAndGet();
                            System.out.println("PROBLEM sender=" + id + " seq=" + seq + " expected=" + expected);
                        }
                        nextBySender.put(id, seq + 1);
                        received.incrementAndGet();
                    }
                }
            });

            Thread subscriber = Thread.ofPlatform().name("fault-subscriber").start(() -> {
                long[] lastByTopic = {-1, -1, -1};
                while (sender.isAlive()) {
                    try (ZmqSocket sub = context.socket(SocketType.SUB);
                         DecompressingReceiver r = DecompressingReceiver.builder(sub).envelopeParts(1).build()) {
                        sub.receiveTimeoutMs(100);
                        sub.subscribe(TOPICS[0]);
                        sub.subscribe(TOPICS[1]);
                        sub.connect(pubEndpoint);
                        long end = System.nanoTime() + cycleMs * 1_000_000L;
                        while (System.nanoTime() < end && sender.isAlive()) {
                            int status = r.receive(0);
                            if (status == DecompressingReceiver.WOULD_BLOCK) {
                                continue;
                            }
                            ReceivedMessage m = status == DecompressingReceiver.RECEIVED ? r.message() : null;
                            int topic = m == null || m.parts() != 2 ? -1 : topic(m.partBytes(0));
                            if (topic < 0 || topic > 1 || !StreamMessage.intact(m.part(1))) {
                                problems.incrementAndGet();
                                System.out.println("PROBLEM sub status=" + status + " reason=" + r.lastErrorReason());
                                continue;
                            }
                            long seq = StreamMessage.sequence(m.part(1));
                            // the publisher's message seq goes out under topic seq % 3
                            if (seq <= lastByTopic[topic] || seq % TOPICS.length != topic) {
                                problems.incrementAndGet();
                                System.out.println("PROBLEM sub topic=" + topic + " seq=" + seq + " last=" + lastByTopic[topic]);
                            } else if (lastByTopic[topic] >= 0) {
                                subLost.addAndGet((seq - lastByTopic[topic]) / TOPICS.length - 1);
                            }
                            lastByTopic[topic] = seq;
                            subReceived.incrementAndGet();
                        }
                    }
                }
            });

            long start = System.nanoTime();
            // memory first (Soak's three, then RSS split and malloc, FaultSoak's counts after): see ProcessMemory
            String header = "%8s %10s %8s %9s %12s %13s %9s %9s %9s %9s %10s %10s %10s %8s %8s %7s %5s %7s %11s %11s"
                    + " %11s %5s %5s %6s %6s %8s %8s %8s %8s%n";
            String row = "%8d %10d %8d %9d %12d %13d %9d %9d %9d %9d %10d %10d %10d %8d %8d %7d %5d %7d %11d %11d"
                    + " %11d %5d %5d %6d %6d %8d %8d %8d %8d%n";
            System.out.printf(header, "elapsedS", "received", "badFrames", "restarts", "heapAfterGcKB",
                    "nmtCommittedKB", "rssKB", "rssAnonKB", "rssFileKB", "rssShmKB", "nmtMallocKB", "mallocKB",
                    "mallocHeldKB", "anonMaps", "slabKB", "nThreads", "fds", "threads", "outstanding", "rented",
                    "returned", "cctx", "dctx", "cdict", "ddict", "scratch", "subRecv", "subLost", "problems");
            while (sender.isAlive() || receiver.isAlive() || subscriber.isAlive()) {
                receiver.join(reportS * 1000);
                System.gc();
                long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                NativeBufferPool.Stats pool = context.bufferPool().stats();
                ProcessMemory mem = ProcessMemory.now();
                System.out.printf(row, (System.nanoTime() - start) / 1_000_000_000L, received.get(), sum(refused),
                        restarts.get(), heap / 1024, mem.nmtCommittedKb(), mem.rssKb(), mem.rssAnonKb(),
                        mem.rssFileKb(), mem.rssShmemKb(), mem.nmtMallocKb(), mem.mallocInUseKb(),
                        mem.mallocHeldKb(), mem.anonMappings(), pool.slabBytes() / 1024, mem.nativeThreads(),
                        openFds(), Thread.activeCount(), pool.outstanding(), pool.rented(), pool.returned(),
                        LibZstd.LIVE_CCTX.get(), LibZstd.LIVE_DCTX.get(), LibZstd.LIVE_CDICT.get(),
                        LibZstd.LIVE_DDICT.get(), LibZstd.LIVE_SCRATCH.get(), subReceived.get(), subLost.get(),
                        problems.get());
            }
            Map<BadFrameReason, Long> refusedByReason = new EnumMap<>(BadFrameReason.class);
            Map<BadFrameReason, Long> injectedByReason = new EnumMap<>(BadFrameReason.class);
            for (BadFrameReason reason : BadFrameReason.values()) {
                if (refused.get(reason.ordinal()) > 0) {
                    refusedByReason.put(reason, refused.get(reason.ordinal()));
                }
            }
            for (Bad kind : Bad.values()) {
                injectedByReason.merge(kind.reason, injected.get(kind.ordinal()), Long::sum);
            }
            long sent = sentBySender.values().stream().mapToLong(AtomicLong::get).sum();
            boolean allArrived = allArrived(sentBySender, nextBySender);
            System.out.println("senders=" + sentBySender.size() + " sent=" + sent + " received=" + received.get()
                    + " allArrived=" + allArrived + " published=" + published.get() + " subReceived="
                    + subReceived.get() + " subLost=" + subLost.get() + " restarts=" + restarts.get()
                    + " problems=" + problems.get());
            System.out.println("injected=" + injectedByReason);
            System.out.println("refused=" + refusedByReason);
            System.out.println("pool=" + context.bufferPool().stats());
            boolean badCounted = refusedByReason.equals(injectedByReason);
            System.out.println(badCounted && allArrived && problems.get() == 0 ? "FAULT SOAK OK" : "FAULT SOAK FAILED");
            System.out.flush();
            System.exit(badCounted && allArrived && problems.get() == 0 ? 0 : 1);
        }
    }

    /** Writes good message ({@code sender}, {@code seq}) into {@code buf}, its size by {@code seq}; returns the size. */
    static int message(MemorySegment buf, long i, int sender, long seq) {
        int size = SIZES[(int) (seq % SIZES.length)];
        if (size == 16 * 1024) {
            StreamMessage.writeIncompressible(buf, size, sender, seq);
        } else {
            StreamMessage.write(buf, size, sender, seq);
        }
        return size;
    }

    private static boolean allArrived(Map<Integer, AtomicLong> sent, Map<Integer, Long> next) {
        for (Map.Entry<Integer, AtomicLong> e : sent.entrySet()) {
            if (next.getOrDefault(e.getKey(), 0L) != e.getValue().get()) {
                return false;
            }
        }
        return true;
    }

    /** One bad frame per {@link Bad}, by ordinal. */
    private static byte[][] badFrames() {
        byte[] text = Frames.text(32 * 1024, 7);
        byte[][] out = new byte[Bad.values().length][];
        byte[] checksummed = Frames.checksummed(text);
        out[Bad.CORRUPT.ordinal()] = Frames.flipped(checksummed, checksummed.length - 1);
        byte[] sized = Frames.sized(text, 3);
        out[Bad.TRUNCATED.ordinal()] = Frames.truncated(sized, sized.length / 2);
        out[Bad.NOT_ZSTD.ordinal()] = text.clone();
        byte[] other;
        try (ZstdDictionary known = Frames.dictionary()) {
            other = known.bytes();
        }
        other[4] ^= 0x55; // another dictionary ID: a dictionary the receiver does not hold
        try (ZstdDictionary unknown = ZstdDictionary.of(other)) {
            out[Bad.UNKNOWN_DICTIONARY.ordinal()] = Frames.withDictionary(text, unknown);
        }
        out[Bad.OVER_LIMIT.ordinal()] = Frames.sized(Frames.zeros(MAX_PART + 1), 3);
        out[Bad.EMPTY.ordinal()] = new byte[0];
        return out;
    }

    private static int topic(byte[] t) {
        return t.length == 1 && t[0] >= 'a' && t[0] <= 'c' ? t[0] - 'a' : -1;
    }

    private static long sum(AtomicLongArray counts) {
        long s = 0;
        for (int i = 0; i < counts.length(); i++) {
            s += counts.get(i);
        }
        return s;
    }

    /** Open file descriptors of this process ({@code /proc/self/fd}); -1 where there is none. */
    static long openFds() {
        String[] fds = new File("/proc/self/fd").list();
        return fds == null ? -1 : fds.length;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** One sending incarnation: its PUSH socket, sender and sender id. */
    private record Push(ZmqSocket socket, AutoCloseable sender, int id, AtomicLong sent) {

        static Push restart(Push old, ZmqContext context, String endpoint, AtomicInteger ids,
                Map<Integer, AtomicLong> sentBySender, ZstdDictionary dictionary, boolean parallel) {
            if (old != null) {
                old.close();
            }
            ZmqSocket socket = context.socket(SocketType.PUSH);
            socket.connect(endpoint);
            AutoCloseable s;
            if (parallel) {
                s = ParallelCompressingSender.builder(socket).workers(2).build();
            } else if (dictionary != null) {
                s = CompressingSender.builder(socket).dictionary(dictionary).build();
            } else {
                s = CompressingSender.builder(socket).build();
            }
            int id = ids.getAndIncrement();
            AtomicLong sent = new AtomicLong();
            sentBySender.put(id, sent);
            return new Push(socket, s, id, sent);
        }

        void send(MemorySegment buf, long i) {
            long seq = sent.get();
            int size = message(buf, i, id, seq);
            boolean ok = sender instanceof ParallelCompressingSender p ? p.send(buf, 0, size, 0)
                    : ((CompressingSender) sender).send(buf, 0, size, 0);
            if (!ok) {
                throw new IllegalStateException("send refused: sender " + id + " seq " + seq);
            }
            sent.set(seq + 1);
        }

        void close() {
            try {
                sender.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            socket.close();
        }
    }
}
