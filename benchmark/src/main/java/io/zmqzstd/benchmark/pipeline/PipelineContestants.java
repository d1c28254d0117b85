package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Payloads;
import io.zmqzstd.benchmark.Thresholds;
import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.transport.ZmqSocket;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The pipeline contestants by their {@code @Param} names. */
public final class PipelineContestants {

    public static final String ZMQZSTD = "zmqzstd";
    public static final String LIBZMQ_BYTES = "libzmqBytes";
    public static final String JEROMQ_ZSTDJNI = "jeromqZstdjni";
    /**
     * {@link #LIBZMQ_BYTES} and {@link #JEROMQ_ZSTDJNI} with reused arrays instead of new ones per message
     * ({@link ZstdJniBytesPipeline}); not in {@code PipelineBenchmark}'s default list: pass them with
     * {@code -p contestant=...}.
     */
    public static final String LIBZMQ_BYTES_REUSED = "libzmqBytesReused";
    public static final String JEROMQ_ZSTDJNI_REUSED = "jeromqZstdjniReused";
    /**
     * JeroMQ + zstd-jni compressing on {@code compressionThreads} threads of a JDK executor
     * ({@link JeromqZstdJniParallelContestant}), the parallel peer of {@code zmqzstd} with a
     * {@code ParallelCompressingSender}; needs {@code compressionThreads} above 0; not in the default list.
     */
    public static final String JEROMQ_ZSTDJNI_PARALLEL = "jeromqZstdjniParallel";

    /** Every name {@link #create} accepts, the default list's and the others ({@code -p contestant=...}). */
    public static final List<String> NAMES = List.of(ZMQZSTD, LIBZMQ_BYTES, JEROMQ_ZSTDJNI, LIBZMQ_BYTES_REUSED,
            JEROMQ_ZSTDJNI_REUSED, JEROMQ_ZSTDJNI_PARALLEL);

    public static final String DICTIONARY_NONE = "none";
    public static final String DICTIONARY_TRAINED = "trained";

    /** {@code hop}: the sender's PUSH straight to the receiver's PULL. */
    public static final String HOP_NONE = "none";
    /** {@code hop}: through a proxy that forwards the compressed frames untouched ({@link ProxyHop}). */
    public static final String HOP_PROXY = "proxy";
    /**
     * {@code hop}: as {@link #HOP_PROXY}, but forwarded by libzmq's own {@code zmq_proxy_steerable}, what
     * other bindings run as their proxy (and {@code ZmqProxy} ran until 2026-11-28); for the contestants on
     * libzmq only ({@code zmqzstd}, {@code libzmqBytes}, {@code libzmqBytesReused}).
     */
    public static final String HOP_LIBZMQ_PROXY = "libzmqProxy";

    private PipelineContestants() {
    }

    /** The system property that sets {@link #IO_THREADS}. */
    public static final String IO_THREADS_PROPERTY = "zmqzstd.bench.ioThreads";

    /**
     * libzmq (or JeroMQ) I/O threads in every contestant's context: 1, the libraries' default, where one
     * I/O thread does the socket work of both ends; or the system property {@code zmqzstd.bench.ioThreads}
     * (2: each end its own, as a sender and a receiver in two processes have). The same for every
     * contestant of a run. A value that is not a whole number of 1 or more stops the JVM's first
     * contestant with an error naming it (it ran with 1 before 2026-11-27).
     */
    public static final int IO_THREADS = ioThreads(System.getProperty(IO_THREADS_PROPERTY));

    /**
     * The I/O threads {@code value} of {@link #IO_THREADS_PROPERTY} asks for: 1 when it is not set.
     *
     * @throws IllegalArgumentException naming the property and the value when it is not a whole
     *     number of 1 or more
     */
    public static int ioThreads(String value) {
        if (value == null) {
            return 1;
        }
        try {
            int n = Integer.parseInt(value.strip());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw new IllegalArgumentException("-D" + IO_THREADS_PROPERTY + " is a whole number of I/O threads, 1 or more: \""
                + value + "\"");
    }

    /** Seed of the telemetry payload every pipeline contestant (and the C reference) sends. */
    public static final long PAYLOAD_SEED = 11;

    /** The system property that sets {@link #PAYLOAD_KIND}. */
    public static final String PAYLOAD_PROPERTY = "zmqzstd.bench.payload";

    /**
     * The kind of payload the pipeline contestants send ({@link Payloads#generate}): telemetry, or the
     * system property {@code zmqzstd.bench.payload} (e.g. {@code random}, for {@code PipelineOverhead}).
     */
    public static final String PAYLOAD_KIND = System.getProperty(PAYLOAD_PROPERTY, Payloads.TELEMETRY);

    /** The payload of {@code size} bytes every pipeline contestant sends (a fresh copy). */
    public static byte[] payload(int size) {
        return Payloads.generate(PAYLOAD_KIND, size, PAYLOAD_SEED);
    }

    /**
     * A connected, running contestant sending telemetry payloads of {@code size} bytes, with
     * {@code zmqzstd}'s defaults (the library's zero-copy thresholds, no raw frames). The caller owns it and closes it.
     */
    public static PipelineContestant create(String name, int size, String transport, int level, String dictionary) {
        return create(name, size, transport, level, dictionary, Thresholds.LIBRARY_DEFAULT, 0);
    }

    /**
     * As {@link #create(String, int, String, int, String)}, with {@code zmqzstd}'s zero-copy threshold and
     * raw-frame limit (see {@link ZmqZstdContestant}); the peers have no such knobs and ignore them.
     */
    public static PipelineContestant create(String name, int size, String transport, int level, String dictionary,
            long zeroCopyThresholdBytes, long rawFrameBelowBytes) {
        return create(name, size, transport, level, dictionary, zeroCopyThresholdBytes, rawFrameBelowBytes, Parallel.NONE);
    }

    /**
     * How {@code zmqzstd} compresses: {@code workers} above 0 makes it send through a
     * {@link io.zmqzstd.pipeline.ParallelCompressingSender} with that many workers, a ring of
     * {@code inFlight} messages (0: its default), its {@code inlineBelowBytes} and {@code inlineAfterIdleNanos}
     * (negative: its defaults); {@code workers} 0 is one {@link io.zmqzstd.pipeline.CompressingSender} on the
     * sender thread.
     */
    public record Parallel(int workers, int inFlight, long inlineBelowBytes, long inlineAfterIdleNanos, Producer producer) {
        /** One {@code CompressingSender} on the sender thread. */
        public static final Parallel NONE = new Parallel(0, 0, -1, -1);

        private static final Pattern WAY =
                Pattern.compile(ZMQZSTD + "@(\\d+)(?:x(\\d+))?(?:i(\\d+))?(?:g(\\d+))?([wc])?");

        /** With the benchmark's producer, {@link Producer#STAMP}. */
        public Parallel(int workers, int inFlight, long inlineBelowBytes, long inlineAfterIdleNanos) {
            this(workers, inFlight, inlineBelowBytes, inlineAfterIdleNanos, Producer.STAMP);
        }

        /**
         * The compressing threads a way names: {@code zmqzstd@N} N workers, {@code xM} a ring of M,
         * {@code iK} inlineBelowBytes K, {@code gT} inlineAfterIdleNanos T, then {@code w} or {@code c}
         * for a producer that writes every payload ({@link Producer}); a way without {@code @} is
         * {@link #NONE}.
         */
        public static Parallel of(String way) {
            if (way.indexOf('@') < 0) {
                return NONE;
            }
            Matcher m = WAY.matcher(way);
            if (!m.matches()) {
                throw new IllegalArgumentException("a way with workers is zmqzstd@N[xM][iK][gT][w|c]: way=" + way);
            }
            Producer producer = m.group(5) == null ? Producer.STAMP : m.group(5).equals("w") ? Producer.WRITE : Producer.CLAIM;
            return new Parallel(Integer.parseInt(m.group(1)), m.group(2) == null ? 0 : Integer.parseInt(m.group(2)),
                    m.group(3) == null ? -1 : Long.parseLong(m.group(3)), m.group(4) == null ? -1 : Long.parseLong(m.group(4)),
                    producer);
        }

        /**
         * A {@code ParallelCompressingSender} builder on {@code socket} with these workers and every setting
         * given here (the sender's defaults for the rest); the caller adds the frame settings and builds it.
         */
        public ParallelCompressingSender.Builder builder(ZmqSocket socket) {
            ParallelCompressingSender.Builder b = ParallelCompressingSender.builder(socket).workers(workers);
            if (inFlight > 0) {
                b.inFlight(inFlight);
            }
            if (inlineBelowBytes >= 0) {
                b.inlineBelowBytes(inlineBelowBytes);
            }
            if (inlineAfterIdleNanos >= 0) {
                b.inlineAfterIdleNanos(inlineAfterIdleNanos);
            }
            return b;
        }

        /** The contestant a way names, without its compressing threads. */
        public static String contestant(String way) {
            int at = way.indexOf('@');
            return at < 0 ? way : way.substring(0, at);
        }
    }

    /**
     * How the sender thread of a {@code zmqzstd@N} way makes each message. {@code STAMP} (every
     * contestant's way): the payload is made once and each message only stamps its sequence number
     * into it, then {@code send} copies it into the ring. {@code WRITE} and {@code CLAIM} model a
     * producer that writes every payload (a serialiser): {@code WRITE} writes it into its own native
     * segment and sends that (copied again), {@code CLAIM} writes it into memory from
     * {@code ParallelCompressingSender.claim} and commits it (not copied again).
     */
    public enum Producer { STAMP, WRITE, CLAIM }

    /** As above, with {@code zmqzstd}'s compressing threads ({@link Parallel}); the peers ignore them. */
    public static PipelineContestant create(String name, int size, String transport, int level, String dictionary,
            long zeroCopyThresholdBytes, long rawFrameBelowBytes, Parallel parallel) {
        return create(name, size, transport, level, dictionary, zeroCopyThresholdBytes, rawFrameBelowBytes, parallel, null);
    }

    /**
     * As above, with {@code zmqzstd}'s {@code rawIncompressible} setting ({@code null}: the library's
     * default); the peers ignore it.
     */
    public static PipelineContestant create(String name, int size, String transport, int level, String dictionary,
            long zeroCopyThresholdBytes, long rawFrameBelowBytes, Parallel parallel, Boolean rawIncompressible) {
        return create(name, size, transport, level, dictionary, zeroCopyThresholdBytes, rawFrameBelowBytes, parallel,
                rawIncompressible, HOP_NONE);
    }

    /**
     * As above, with {@code hop}: {@link #HOP_NONE}, or {@link #HOP_PROXY} for a proxy between sender and
     * receiver, over the same {@code transport} on both sides ({@link ProxyHop}), which every contestant
     * supports, or {@link #HOP_LIBZMQ_PROXY}, libzmq's own proxy, for the contestants on libzmq.
     *
     * @throws IllegalArgumentException naming the value when {@code name} is not one of {@link #NAMES},
     *         {@code hop} is none of the three, or {@link #HOP_LIBZMQ_PROXY} is asked of a JeroMQ contestant,
     *         before anything is made
     */
    public static PipelineContestant create(String name, int size, String transport, int level, String dictionary,
            long zeroCopyThresholdBytes, long rawFrameBelowBytes, Parallel parallel, Boolean rawIncompressible,
            String hop) {
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("unknown pipeline contestant: contestant=" + name + ", expected one of "
                    + NAMES);
        }
        switch (hop) {
            case HOP_NONE, HOP_PROXY -> { }
            case HOP_LIBZMQ_PROXY -> {
                if (!List.of(ZMQZSTD, LIBZMQ_BYTES, LIBZMQ_BYTES_REUSED).contains(name)) {
                    throw new IllegalArgumentException("hop=" + HOP_LIBZMQ_PROXY + " is libzmq's own proxy, for the"
                            + " contestants on libzmq: contestant=" + name);
                }
            }
            default -> throw new IllegalArgumentException("unknown hop: hop=" + hop + ", expected " + HOP_NONE + ", "
                    + HOP_PROXY + " or " + HOP_LIBZMQ_PROXY);
        }
        boolean proxied = !hop.equals(HOP_NONE);
        byte[] payload = payload(size);
        byte[] dictionaryBytes = switch (dictionary) {
            case DICTIONARY_NONE -> null;
            case DICTIONARY_TRAINED -> Payloads.trainedTelemetryDictionary();
            default -> throw new IllegalArgumentException("unknown dictionary: dictionary=" + dictionary);
        };
        return switch (name) {
            case ZMQZSTD -> new ZmqZstdContestant(payload, transport, level, dictionaryBytes, zeroCopyThresholdBytes,
                    rawFrameBelowBytes, parallel, rawIncompressible, hop);
            case LIBZMQ_BYTES -> new LibzmqBytesContestant(payload, transport, level, dictionaryBytes, false, hop);
            case JEROMQ_ZSTDJNI -> new JeromqZstdJniContestant(payload, transport, level, dictionaryBytes, false, proxied);
            case LIBZMQ_BYTES_REUSED -> new LibzmqBytesContestant(payload, transport, level, dictionaryBytes, true, hop);
            case JEROMQ_ZSTDJNI_REUSED -> new JeromqZstdJniContestant(payload, transport, level, dictionaryBytes, true, proxied);
            case JEROMQ_ZSTDJNI_PARALLEL -> new JeromqZstdJniParallelContestant(payload, transport, level, dictionaryBytes,
                    parallel.workers(), proxied);
            default -> throw new IllegalStateException("a name in NAMES without a contestant: contestant=" + name);
        };
    }
}
