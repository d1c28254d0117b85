package io.zmqzstd.reliability;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.pipeline.BadFrameReason;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.pipeline.PipelineStats;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.pipeline.UndeliveredMessageException;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.io.File;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;

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
 * subscribed to {@code a} and {@code b}, which its own thread closes and makes again every cycle;</li>
 * <li>requests and replies ({@link RequestReply}): DEALER clients, made again every cycle, keep
 * {@value RequestReply#WINDOW} requests each in flight to a ROUTER server that answers each with
 * {@link CompressingSender#reply(ReceivedMessage, MemorySegment, long, long, int) reply};</li>
 * <li>a fourth PUSH sender, restarted with the others, sending two-part messages ({@code seq=<n>}, then the
 * frame) to a PULL of its own read by {@link DecompressingReceiver#receiveInto receiveInto} into a destination
 * of {@value #INTO_DST_BYTES} bytes ({@link Into}): every seventh message is one byte too large for it and must
 * come back whole in {@link UndeliveredMessageException};</li>
 * <li>the same messages from a raw peer, restarted with the others: a PUSH {@link ZmqSocket} sending each
 * envelope, then a frame made in-process with a {@link io.zmqzstd.codec.ZstdOutputStream}, which declares no
 * content size, to a PULL of its own read by {@code receiveInto} the same way; the seventh runs out of the
 * destination part-way and must come back whole; every eighth turn the peer sends a bad size-less frame
 * ({@link SizelessBad}) behind an envelope, which must be refused for what it is.</li>
 * </ul>
 * Checked: every PUSH sender's messages arrive intact, exactly once, in order (contiguous per sender id,
 * all of them by the end); every bad frame is refused with its reason ({@code BAD_FRAME}, counted by
 * {@link BadFrameReason}) and the counts per reason equal those injected; the SUB gets intact messages
 * of its topics only, in rising order per topic; its gaps (PUB drops while the SUB reconnects, or at its
 * high-water mark) are counted as {@code subLost}, not as problems; every request is answered once, in order,
 * by its own reply, intact; every message of the {@code receiveInto} stream arrives once, in order, intact,
 * into the destination when it fits and handed back when it does not, and the receiver's
 * {@link io.zmqzstd.pipeline.PipelineStats#undeliveredMessages() undeliveredMessages} equals the messages
 * handed back; so for the size-less stream, whose bad frames are refused, by reason, as many as injected, in
 * the soak's counts and in the receiver's errors. Every {@code reportS} seconds it prints
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
    /** The {@code receiveInto} stream's destination, and its sizes: one exactly the destination, one a byte over. */
    static final int INTO_DST_BYTES = 32 * 1024;
    private static final int[] INTO_SIZES = {64, 1024, 16 * 1024, INTO_DST_BYTES, 1024, 16 * 1024, INTO_DST_BYTES + 1};
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

    /**
     * A bad frame of the size-less stream (none declares its content size) and the reason the receiver must
     * give for it: a checksum broken in a frame that fits the destination, and in one that runs out of it
     * part-way (decompressed again in the region, then refused for what it is, not handed back); a frame cut in
     * half; one that outgrows the per-part limit; one naming a dictionary the receiver lacks; two frames in one
     * part.
     */
    enum SizelessBad {
        CORRUPT_IN_DST(BadFrameReason.CHECKSUM), CORRUPT_PAST_DST(BadFrameReason.CHECKSUM),
        TRUNCATED(BadFrameReason.TRUNCATED), OVER_LIMIT(BadFrameReason.TOO_LARGE),
        UNKNOWN_DICTIONARY(BadFrameReason.DICTIONARY_MISSING), TWO_FRAMES(BadFrameReason.CORRUPT);

        final BadFrameReason reason;

        SizelessBad(BadFrameReason reason) {
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
        AtomicLongArray injected = new AtomicLongArray(BadFrameReason.values().length);
        AtomicLongArray refused = new AtomicLongArray(BadFrameReason.values().length);
        AtomicInteger nextSenderId = new AtomicInteger(1);
        RequestReply rpc = new RequestReply(problems);
        Into into = new Into("into", problems, null);
        Into sizeless = new Into("sizeless", problems, NO_SIZE_HAND_BACK);
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;

        byte[][] badFrames = badFrames();
        byte[][] sizelessBadFrames = sizelessBadFrames();
        try (ZmqContext context = new ZmqContext();
             ZstdDictionary dictionary = Frames.dictionary();
             ZmqSocket pull = context.socket(SocketType.PULL);
             ZmqSocket pub = context.socket(SocketType.PUB);
             ZmqSocket router = context.socket(SocketType.ROUTER);
             ZmqSocket intoPull = context.socket(SocketType.PULL);
             ZmqSocket sizelessPull = context.socket(SocketType.PULL)) {
            pull.receiveTimeoutMs(200);
            pull.bind("tcp://127.0.0.1:*");
            String pullEndpoint = pull.lastEndpoint();
            router.receiveTimeoutMs(200);
            router.bind("tcp://127.0.0.1:*");
            String routerEndpoint = router.lastEndpoint();
            intoPull.receiveTimeoutMs(200);
            intoPull.bind("tcp://127.0.0.1:*");
            String intoEndpoint = intoPull.lastEndpoint();
            sizelessPull.receiveTimeoutMs(200);
            sizelessPull.bind("tcp://127.0.0.1:*");
            String sizelessEndpoint = sizelessPull.lastEndpoint();
            pub.bind("tcp://127.0.0.1:*");
            String pubEndpoint = pub.lastEndpoint();

            Thread sender = Thread.ofPlatform().name("fault-sender").start(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment buf = arena.allocate(SIZES[SIZES.length - 1]);
                    Push plain = null;
                    Push dict = null;
                    Push parallel = null;
                    Push enveloped = null;
                    Push rawSizeless = null;
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
                                plain = Push.restart(plain, context, pullEndpoint, nextSenderId, sentBySender,
                                        Push.Kind.PLAIN, null);
                                dict = Push.restart(dict, context, pullEndpoint, nextSenderId, sentBySender,
                                        Push.Kind.DICTIONARY, dictionary);
                                if (cycle % 4 == 0) {
                                    parallel = Push.restart(parallel, context, pullEndpoint, nextSenderId, sentBySender,
                                            Push.Kind.PARALLEL, null);
                                }
                                enveloped = Push.restart(enveloped, context, intoEndpoint, nextSenderId,
                                        into.sentBySender, Push.Kind.ENVELOPED, null);
                                rawSizeless = Push.restart(rawSizeless, context, sizelessEndpoint, nextSenderId,
                                        sizeless.sentBySender, Push.Kind.SIZELESS, null);
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
                                p.send(buf);
                            }
                            if (enveloped.send(buf) > INTO_DST_BYTES) {
                                into.tooLarge.incrementAndGet();
                            }
                            if (i % 8 == 4) {
                                // before a good message on the same connection, which arrives after it
                                SizelessBad kind = SizelessBad.values()[(int) (i / 8 % SizelessBad.values().length)];
                                rawSizeless.sendBad(sizelessBadFrames[kind.ordinal()]);
                                sizeless.injected.incrementAndGet(kind.reason.ordinal());
                            }
                            if (rawSizeless.send(buf) > INTO_DST_BYTES) {
                                sizeless.tooLarge.incrementAndGet();
                            }
                            if (i % 8 == 0) {
                                Bad kind = Bad.values()[(int) (i / 8 % Bad.values().length)];
                                raw.send(badFrames[kind.ordinal()], 0);
                                injected.incrementAndGet(kind.reason.ordinal());
                            }
                            int size = message(buf, size(pubSeq), pubSender, pubSeq);
                            publisher.publish(TOPICS[(int) (i % TOPICS.length)], buf.asSlice(0, size), 0);
                            pubSeq++;
                            published.lazySet(pubSeq);
                        }
                    } finally {
                        for (Push p : new Push[] {plain, dict, parallel, enveloped, rawSizeless}) {
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
                    Quiet quiet = new Quiet(sender, () -> allArrived(sentBySender, nextBySender));
                    while (true) {
                        int status = r.receive(0);
                        if (status == DecompressingReceiver.WOULD_BLOCK) {
                            if (quiet.over()) {
                                return;
                            }
                            continue;
                        }
                        quiet.reset();
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
                                || p.byteSize() != size(seq)) {
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

            Thread clients = Thread.ofPlatform().name("fault-clients").start(() -> rpc.clients(context, routerEndpoint,
                    deadline, cycleMs, nextSenderId));
            Thread server = Thread.ofPlatform().name("fault-server").start(() -> rpc.serve(router, clients));
            Thread intoReceiver = Thread.ofPlatform().name("fault-into").start(() -> into.receive(intoPull, sender));
            Thread sizelessReceiver = Thread.ofPlatform().name("fault-sizeless").start(
                    () -> sizeless.receive(sizelessPull, sender));

            long start = System.nanoTime();
            // memory first (Soak's three, then RSS split and malloc, FaultSoak's counts after): see ProcessMemory
            String header = "%8s %10s %8s %9s %12s %13s %9s %9s %9s %9s %10s %10s %10s %8s %8s %7s %5s %7s %11s %11s"
                    + " %11s %5s %5s %6s %6s %8s %8s %8s %8s %10s %10s %12s %12s %11s %8s%n";
            String row = "%8d %10d %8d %9d %12d %13d %9d %9d %9d %9d %10d %10d %10d %8d %8d %7d %5d %7d %11d %11d"
                    + " %11d %5d %5d %6d %6d %8d %8d %8d %8d %10d %10d %12d %12d %11d %8d%n";
            System.out.printf(header, "elapsedS", "received", "badFrames", "restarts", "heapAfterGcKB",
                    "nmtCommittedKB", "rssKB", "rssAnonKB", "rssFileKB", "rssShmKB", "nmtMallocKB", "mallocKB",
                    "mallocHeldKB", "anonMaps", "slabKB", "nThreads", "fds", "threads", "outstanding", "rented",
                    "returned", "cctx", "dctx", "cdict", "ddict", "scratch", "subRecv", "subLost", "replies", "intoRecv",
                    "handedBack", "sizelessRecv", "sizelessBack", "sizelessBad", "problems");
            while (sender.isAlive() || receiver.isAlive() || subscriber.isAlive() || clients.isAlive()
                    || server.isAlive() || intoReceiver.isAlive() || sizelessReceiver.isAlive()) {
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
                        rpc.replies.get(), into.received.get(), into.handedBack.get(), sizeless.received.get(),
                        sizeless.handedBack.get(), sum(sizeless.refused), problems.get());
            }
            Map<BadFrameReason, Long> refusedByReason = byReason(refused);
            Map<BadFrameReason, Long> injectedByReason = byReason(injected);
            long sent = sentBySender.values().stream().mapToLong(AtomicLong::get).sum();
            boolean allArrived = allArrived(sentBySender, nextBySender);
            System.out.println("senders=" + sentBySender.size() + " sent=" + sent + " received=" + received.get()
                    + " allArrived=" + allArrived + " published=" + published.get() + " subReceived="
                    + subReceived.get() + " subLost=" + subLost.get() + " restarts=" + restarts.get()
                    + " problems=" + problems.get());
            boolean rpcOk = rpc.requests.get() == rpc.served.get() && rpc.served.get() == rpc.replies.get();
            System.out.println("rpc: clients=" + rpc.clients.get() + " requests=" + rpc.requests.get() + " served="
                    + rpc.served.get() + " replies=" + rpc.replies.get());
            System.out.println(into.summary());
            System.out.println(sizeless.summary());
            System.out.println("injected=" + injectedByReason);
            System.out.println("refused=" + refusedByReason);
            System.out.println("pool=" + context.bufferPool().stats());
            boolean ok = refusedByReason.equals(injectedByReason) && allArrived && rpcOk && into.ok() && sizeless.ok()
                    && problems.get() == 0;
            System.out.println(ok ? "FAULT SOAK OK" : "FAULT SOAK FAILED");
            System.out.flush();
            System.exit(ok ? 0 : 1);
        }
    }

    /** The size of good message {@code seq} of a PUSH sender, a client or the publisher. */
    static int size(long seq) {
        return SIZES[(int) (seq % SIZES.length)];
    }

    /** The size of message {@code seq} of the {@code receiveInto} stream. */
    static int intoSize(long seq) {
        return INTO_SIZES[(int) (seq % INTO_SIZES.length)];
    }

    /** Writes good message ({@code sender}, {@code seq}) of {@code size} bytes into {@code buf}; returns the size. */
    static int message(MemorySegment buf, int size, int sender, long seq) {
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
        try (ZstdDictionary unknown = unknownDictionary()) {
            out[Bad.UNKNOWN_DICTIONARY.ordinal()] = Frames.withDictionary(text, unknown);
        }
        out[Bad.OVER_LIMIT.ordinal()] = Frames.sized(Frames.zeros(MAX_PART + 1), 3);
        out[Bad.EMPTY.ordinal()] = new byte[0];
        return out;
    }

    /** One bad frame per {@link SizelessBad}, by ordinal, none declaring its content size. */
    private static byte[][] sizelessBadFrames() {
        byte[][] out = new byte[SizelessBad.values().length][];
        try (ZstdCompressor checksummed = ZstdCompressor.builder().checksum(true).build();
             ZstdDictionary unknown = unknownDictionary();
             ZstdCompressor withUnknown = ZstdCompressor.builder().dictionary(unknown).build()) {
            byte[] fits = Frames.unsized(Frames.text(INTO_DST_BYTES / 2, 11), checksummed);
            out[SizelessBad.CORRUPT_IN_DST.ordinal()] = Frames.flipped(fits, fits.length - 1);
            byte[] past = Frames.unsized(Frames.text(INTO_DST_BYTES * 3 / 2, 12), checksummed);
            out[SizelessBad.CORRUPT_PAST_DST.ordinal()] = Frames.flipped(past, past.length - 1);
            byte[] whole = Frames.unsized(Frames.text(INTO_DST_BYTES * 2, 13), checksummed);
            out[SizelessBad.TRUNCATED.ordinal()] = Frames.truncated(whole, whole.length / 2);
            out[SizelessBad.OVER_LIMIT.ordinal()] = Frames.unsized(Frames.zeros(MAX_PART + 1), checksummed);
            out[SizelessBad.UNKNOWN_DICTIONARY.ordinal()] = Frames.unsized(Frames.text(1024, 14), withUnknown);
            byte[] small = Frames.unsized(Frames.text(1024, 15), checksummed);
            out[SizelessBad.TWO_FRAMES.ordinal()] = Frames.concat(small, small);
        }
        return out;
    }

    /** The committed dictionary with another ID: one the receivers do not hold. The caller owns it. */
    private static ZstdDictionary unknownDictionary() {
        byte[] other;
        try (ZstdDictionary known = Frames.dictionary()) {
            other = known.bytes();
        }
        other[4] ^= 0x55;
        return ZstdDictionary.of(other);
    }

    /** Counts by {@link BadFrameReason} ordinal as a map of the reasons counted. */
    private static Map<BadFrameReason, Long> byReason(AtomicLongArray counts) {
        Map<BadFrameReason, Long> out = new EnumMap<>(BadFrameReason.class);
        for (BadFrameReason reason : BadFrameReason.values()) {
            if (counts.get(reason.ordinal()) > 0) {
                out.put(reason, counts.get(reason.ordinal()));
            }
        }
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

    /** The bytes of the envelope part in front of message {@code seq} of the {@code receiveInto} streams. */
    private static byte[] envelope(long seq) {
        return bytes("seq=" + seq);
    }

    /** The envelope part in front of a bad frame of the size-less stream. */
    private static final byte[] BAD_ENVELOPE = bytes("bad");

    /** What the receiver's hand-back of a frame without a declared size says, after its sizes. */
    private static final String NO_SIZE_HAND_BACK = "(the frame declares no size: dst ran out part-way)";

    /**
     * A receiver's wait for the end: once its sender thread has ended, it is over when everything
     * arrived, or after 2 s without a message (what is missing never comes).
     */
    private static final class Quiet {

        private final Thread sender;
        private final BooleanSupplier allArrived;
        private long since;

        Quiet(Thread sender, BooleanSupplier allArrived) {
            this.sender = sender;
            this.allArrived = allArrived;
        }

        /** Called on a receive that found nothing: true when the receiver should stop. */
        boolean over() {
            if (sender.isAlive()) {
                return false;
            }
            if (allArrived.getAsBoolean()) {
                return true;
            }
            since = since == 0 ? System.nanoTime() : since;
            return System.nanoTime() - since > 2_000_000_000L;
        }

        /** Called on a receive that found a message. */
        void reset() {
            since = 0;
        }
    }

    /**
     * The request/reply stream: {@value #CLIENTS} DEALER clients at a time, each with its own client id,
     * keep {@value #WINDOW} requests in flight (good messages, sizes as the PUSH senders'); a ROUTER server
     * checks every request (intact, contiguous per client) and answers it with {@code reply}, a message of
     * the request's client id and sequence and of the next size in turn (so an echo would not pass); each
     * client checks every reply is its own request's, in order, intact. Every cycle each client waits for
     * all its replies, closes and is made again on a new socket (a new connection, a new client id).
     */
    static final class RequestReply {

        static final int CLIENTS = 2;
        static final int WINDOW = 8;
        private static final long REPLY_WAIT_NS = 10_000_000_000L;

        final AtomicLong clients = new AtomicLong();
        final AtomicLong requests = new AtomicLong();
        final AtomicLong served = new AtomicLong();
        final AtomicLong replies = new AtomicLong();
        private final AtomicLong problems;

        RequestReply(AtomicLong problems) {
            this.problems = problems;
        }

        private static int replySize(long seq) {
            return size(seq + 1);
        }

        /** The server: answers every request until the clients' thread has ended and nothing more comes. */
        void serve(ZmqSocket router, Thread clientThread) {
            Map<Integer, Long> nextByClient = new HashMap<>();
            try (Arena arena = Arena.ofConfined();
                 DecompressingReceiver r = DecompressingReceiver.builder(router).maxDecompressedSize(MAX_PART).build();
                 CompressingSender s = CompressingSender.builder(router).build()) {
                MemorySegment buf = arena.allocate(SIZES[SIZES.length - 1]);
                while (true) {
                    int status = r.receive(0);
                    if (status == DecompressingReceiver.WOULD_BLOCK) {
                        // the clients wait for every reply before they close, so nothing is left to come
                        if (!clientThread.isAlive()) {
                            return;
                        }
                        continue;
                    }
                    ReceivedMessage m = status == DecompressingReceiver.RECEIVED ? r.message() : null;
                    if (m == null || m.parts() != 2) {
                        problem("server status=" + status + " reason=" + r.lastErrorReason() + " parts="
                                + (m == null ? 0 : m.parts()));
                        continue;
                    }
                    MemorySegment p = m.part(1);
                    int id = StreamMessage.sender(p);
                    long seq = StreamMessage.sequence(p);
                    long expected = nextByClient.getOrDefault(id, 0L);
                    if (seq != expected || !StreamMessage.intact(p) || p.byteSize() != size(seq)) {
                        problem("server client=" + id + " seq=" + seq + " expected=" + expected);
                    }
                    nextByClient.put(id, seq + 1);
                    int size = message(buf, replySize(seq), id, seq);
                    if (!s.reply(m, buf, 0, size, 0)) {
                        problem("server reply refused: client=" + id + " seq=" + seq);
                    }
                    served.incrementAndGet();
                }
            } catch (RuntimeException e) {
                problems.incrementAndGet();
                e.printStackTrace();
            }
        }

        /** The clients, made again every {@code cycleMs} until {@code deadline}, each waiting for its replies first. */
        void clients(ZmqContext context, String endpoint, long deadline, long cycleMs, AtomicInteger ids) {
            Client[] current = new Client[CLIENTS];
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment buf = arena.allocate(SIZES[SIZES.length - 1]);
                long cycleEnd = 0;
                while (System.nanoTime() < deadline) {
                    if (System.nanoTime() >= cycleEnd) {
                        for (int c = 0; c < CLIENTS; c++) {
                            if (current[c] != null) {
                                current[c].drain();
                                current[c].close();
                            }
                            current[c] = new Client(context, endpoint, ids.getAndIncrement());
                            clients.incrementAndGet();
                        }
                        cycleEnd = System.nanoTime() + cycleMs * 1_000_000L;
                    }
                    for (Client c : current) {
                        while (c.sent - c.answered < WINDOW) {
                            c.request(buf);
                        }
                        c.awaitReply();
                    }
                }
                for (Client c : current) {
                    if (c != null) {
                        c.drain();
                    }
                }
            } catch (RuntimeException e) {
                problems.incrementAndGet();
                e.printStackTrace();
            } finally {
                for (Client c : current) {
                    if (c != null) {
                        c.close();
                    }
                }
            }
        }

        private void problem(String what) {
            problems.incrementAndGet();
            System.out.println("PROBLEM " + what);
        }

        /** One client incarnation: its DEALER, the sender of its requests and the receiver of its replies. */
        private final class Client implements AutoCloseable {

            private final ZmqSocket socket;
            private final CompressingSender sender;
            private final DecompressingReceiver receiver;
            private final int id;
            private long sent;
            private long answered;

            Client(ZmqContext context, String endpoint, int id) {
                this.id = id;
                socket = context.socket(SocketType.DEALER);
                socket.receiveTimeoutMs(200);
                socket.connect(endpoint);
                sender = CompressingSender.builder(socket).build();
                receiver = DecompressingReceiver.builder(socket).maxDecompressedSize(MAX_PART).build();
            }

            void request(MemorySegment buf) {
                int size = message(buf, size(sent), id, sent);
                if (!sender.send(buf, 0, size, 0)) {
                    throw new IllegalStateException("request refused: client=" + id + " seq=" + sent);
                }
                sent++;
                requests.incrementAndGet();
            }

            /** Takes the next reply and checks it answers request {@code answered}; throws when none comes. */
            void awaitReply() {
                long giveUp = System.nanoTime() + REPLY_WAIT_NS;
                int status;
                while ((status = receiver.receive(0)) == DecompressingReceiver.WOULD_BLOCK) {
                    if (System.nanoTime() > giveUp) {
                        throw new IllegalStateException("no reply: client=" + id + " awaiting=" + answered
                                + " sent=" + sent + " waitedS=" + REPLY_WAIT_NS / 1_000_000_000L);
                    }
                }
                if (status != DecompressingReceiver.RECEIVED) {
                    throw new IllegalStateException("bad reply: client=" + id + " awaiting=" + answered
                            + " reason=" + receiver.lastErrorReason());
                }
                ReceivedMessage m = receiver.message();
                MemorySegment p = m.part(0);
                if (m.parts() != 1 || p.byteSize() != replySize(answered) || StreamMessage.sender(p) != id
                        || StreamMessage.sequence(p) != answered || !StreamMessage.intact(p)) {
                    problem("reply client=" + id + " awaiting=" + answered + " parts=" + m.parts() + " bytes="
                            + p.byteSize() + " replyClient=" + StreamMessage.sender(p) + " replySeq="
                            + StreamMessage.sequence(p));
                }
                answered++;
                replies.incrementAndGet();
            }

            void drain() {
                while (answered < sent) {
                    awaitReply();
                }
            }

            @Override
            public void close() {
                receiver.close();
                sender.close();
                socket.close();
            }
        }
    }

    /**
     * A {@code receiveInto} stream's receiver: a PULL with one envelope part ({@code seq=<n>}) per message,
     * read into a destination of {@value #INTO_DST_BYTES} bytes. Each message is checked (two parts, its
     * envelope naming its sequence, intact, its size, contiguous per sender id); one that fits must be in the
     * destination, one that does not must come back whole in {@link UndeliveredMessageException}
     * ({@code DESTINATION_TOO_SMALL}) and the stream go on. A bad frame is counted by its reason, and must have
     * been injected as one. At the end it takes the receiver's counts: {@code messages} must equal those
     * received into the destination, {@code undeliveredMessages} those handed back, and its errors by reason
     * those injected.
     */
    static final class Into {

        final Map<Integer, AtomicLong> sentBySender = new ConcurrentHashMap<>();
        final Map<Integer, Long> nextBySender = new ConcurrentHashMap<>();
        final AtomicLong tooLarge = new AtomicLong();
        final AtomicLong received = new AtomicLong();
        final AtomicLong handedBack = new AtomicLong();
        final AtomicLong delivered = new AtomicLong(-1);
        final AtomicLong undelivered = new AtomicLong(-1);
        /** Bad frames sent, refused, and as the receiver's {@code errors} counted them, by reason ordinal. */
        final AtomicLongArray injected = new AtomicLongArray(BadFrameReason.values().length);
        final AtomicLongArray refused = new AtomicLongArray(BadFrameReason.values().length);
        final AtomicLongArray errors = new AtomicLongArray(BadFrameReason.values().length);
        private final String name;
        private final AtomicLong problems;
        /** What every hand-back's message must say, or null. */
        private final String handBackSays;

        Into(String name, AtomicLong problems, String handBackSays) {
            this.name = name;
            this.problems = problems;
            this.handBackSays = handBackSays;
        }

        void receive(ZmqSocket pull, Thread sender) {
            try (Arena arena = Arena.ofConfined();
                 DecompressingReceiver r = DecompressingReceiver.builder(pull).envelopeParts(1)
                         .maxDecompressedSize(MAX_PART).build()) {
                MemorySegment dst = arena.allocate(INTO_DST_BYTES);
                Quiet quiet = new Quiet(sender, () -> allArrived(sentBySender, nextBySender));
                while (true) {
                    int status;
                    try {
                        status = r.receiveInto(dst, 0);
                    } catch (UndeliveredMessageException e) {
                        quiet.reset();
                        boolean whole = e.reason() == UndeliveredMessageException.Reason.DESTINATION_TOO_SMALL
                                && e.parts() == 2 && e.part(0) != null && e.part(1) != null
                                && (handBackSays == null || e.getMessage().contains(handBackSays));
                        check(whole ? e.part(0) : null, whole ? MemorySegment.ofArray(e.part(1)) : null, true,
                                e.getMessage());
                        handedBack.incrementAndGet();
                        continue;
                    }
                    if (status == DecompressingReceiver.WOULD_BLOCK) {
                        if (quiet.over()) {
                            break;
                        }
                        continue;
                    }
                    quiet.reset();
                    if (status == DecompressingReceiver.BAD_FRAME) {
                        refused.incrementAndGet(r.lastErrorReason().ordinal());
                        continue;
                    }
                    ReceivedMessage m = r.message();
                    // a part that fits lies in dst itself, from its start
                    boolean inDst = m != null && m.parts() == 2 && m.segment(1).address() == dst.address()
                            && m.partOffset(1) == 0;
                    check(inDst ? m.partBytes(0) : null, inDst ? m.part(1) : null, false,
                            "status=" + status + " parts=" + m.parts());
                    received.incrementAndGet();
                }
                PipelineStats stats = r.stats();
                delivered.set(stats.messages());
                undelivered.set(stats.undeliveredMessages());
                for (BadFrameReason reason : BadFrameReason.values()) {
                    errors.set(reason.ordinal(), stats.errors(reason));
                }
            } catch (RuntimeException e) {
                problems.incrementAndGet();
                e.printStackTrace();
            }
        }

        /**
         * Every message arrived, into the destination or handed back as it should, as the receiver counted
         * them; the bad frames refused by reason as injected, and as the receiver counted them.
         */
        boolean ok() {
            return allArrived(sentBySender, nextBySender) && handedBack.get() == tooLarge.get()
                    && undelivered.get() == handedBack.get() && delivered.get() == received.get()
                    && byReason(refused).equals(byReason(injected)) && byReason(errors).equals(byReason(injected));
        }

        /** The stream's summary line, its name first. */
        String summary() {
            return name + ": senders=" + sentBySender.size() + " sent="
                    + sentBySender.values().stream().mapToLong(AtomicLong::get).sum() + " intoDst=" + received.get()
                    + " handedBack=" + handedBack.get() + " tooLarge=" + tooLarge.get() + " statsMessages="
                    + delivered.get() + " undeliveredMessages=" + undelivered.get() + " allArrived="
                    + allArrived(sentBySender, nextBySender) + " injected=" + byReason(injected) + " refused="
                    + byReason(refused) + " statsErrors=" + byReason(errors);
        }

        /** Checks one message, null parts when it did not come as it should (then {@code what} says how). */
        private void check(byte[] envelope, MemorySegment payload, boolean handedBack, String what) {
            if (envelope == null || payload == null || payload.byteSize() < StreamMessage.HEADER_BYTES) {
                problems.incrementAndGet();
                System.out.println("PROBLEM " + name + " handedBack=" + handedBack + ": " + what);
                return;
            }
            int id = StreamMessage.sender(payload);
            long seq = StreamMessage.sequence(payload);
            long expected = nextBySender.getOrDefault(id, 0L);
            int size = intoSize(seq);
            if (seq != expected || !Arrays.equals(envelope, envelope(seq)) || !StreamMessage.intact(payload)
                    || payload.byteSize() != size || handedBack != size > INTO_DST_BYTES) {
                problems.incrementAndGet();
                System.out.println("PROBLEM " + name + " sender=" + id + " seq=" + seq + " expected=" + expected + " bytes="
                        + payload.byteSize() + " handedBack=" + handedBack);
            }
            nextBySender.put(id, seq + 1);
        }
    }

    /** One sending incarnation: its PUSH socket, sender, kind and sender id. */
    private record Push(ZmqSocket socket, AutoCloseable sender, Kind kind, int id, AtomicLong sent) {

        /**
         * The plain, dictionary and parallel senders feed the main PULL; the enveloped one the receiveInto stream;
         * the size-less one, a raw peer (its socket and a compressor), the size-less receiveInto stream.
         */
        enum Kind { PLAIN, DICTIONARY, PARALLEL, ENVELOPED, SIZELESS }

        static Push restart(Push old, ZmqContext context, String endpoint, AtomicInteger ids,
                Map<Integer, AtomicLong> sentBySender, Kind kind, ZstdDictionary dictionary) {
            if (old != null) {
                old.close();
            }
            ZmqSocket socket = context.socket(SocketType.PUSH);
            socket.connect(endpoint);
            AutoCloseable s = switch (kind) {
                case PARALLEL -> ParallelCompressingSender.builder(socket).workers(2).build();
                case DICTIONARY -> CompressingSender.builder(socket).dictionary(dictionary).build();
                case PLAIN, ENVELOPED -> CompressingSender.builder(socket).build();
                case SIZELESS -> ZstdCompressor.builder().checksum(true).build();
            };
            int id = ids.getAndIncrement();
            AtomicLong sent = new AtomicLong();
            sentBySender.put(id, sent);
            return new Push(socket, s, kind, id, sent);
        }

        /** Sends this sender's next message; returns its payload's size. */
        int send(MemorySegment buf) {
            long seq = sent.get();
            boolean enveloped = kind == Kind.ENVELOPED || kind == Kind.SIZELESS;
            int size = message(buf, enveloped ? intoSize(seq) : size(seq), id, seq);
            boolean ok;
            if (sender instanceof ParallelCompressingSender p) {
                ok = p.send(buf, 0, size, 0);
            } else if (sender instanceof ZstdCompressor z) {
                // a raw peer: the frame made here by a stream, which does not declare the content size
                byte[] frame = Frames.unsized(buf.asSlice(0, size).toArray(ValueLayout.JAVA_BYTE), z);
                ok = socket.send(envelope(seq), ZmqSocket.SNDMORE) && socket.send(frame, 0);
            } else {
                CompressingSender c = (CompressingSender) sender;
                ok = (kind != Kind.ENVELOPED || c.sendEnvelope(envelope(seq), ZmqSocket.SNDMORE))
                        && c.send(buf, 0, size, 0);
            }
            if (!ok) {
                throw new IllegalStateException("send refused: sender " + id + " seq " + seq);
            }
            sent.set(seq + 1);
            return size;
        }

        /** Sends {@code frame} behind the envelope of a bad frame, as a raw peer: no sequence of this sender's. */
        void sendBad(byte[] frame) {
            if (!socket.send(BAD_ENVELOPE, ZmqSocket.SNDMORE) || !socket.send(frame, 0)) {
                throw new IllegalStateException("send refused: sender " + id + " bad frame");
            }
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
