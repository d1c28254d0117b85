package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Payloads;
import io.zmqzstd.transport.NativeBufferPool;

/** The pipeline contestants by their {@code @Param} names. */
public final class PipelineContestants {

    public static final String ZMQZSTD = "zmqzstd";
    public static final String LIBZMQ_BYTES = "libzmqBytes";
    public static final String JEROMQ_ZSTDJNI = "jeromqZstdjni";

    public static final String DICTIONARY_NONE = "none";
    public static final String DICTIONARY_TRAINED = "trained";

    private PipelineContestants() {
    }

    /** Seed of the telemetry payload every pipeline contestant (and the C reference) sends. */
    public static final long PAYLOAD_SEED = 11;

    /** The payload of {@code size} bytes every pipeline contestant sends (a fresh copy). */
    public static byte[] payload(int size) {
        return Payloads.telemetry(size, PAYLOAD_SEED);
    }

    /**
     * A connected, running contestant sending telemetry payloads of {@code size} bytes, with
     * {@code zmqzstd}'s defaults (pool zero-copy threshold, no raw frames). The caller owns it and closes it.
     */
    public static PipelineContestant create(String name, int size, String transport, int level, String dictionary) {
        return create(name, size, transport, level, dictionary, NativeBufferPool.DEFAULT_ZERO_COPY_THRESHOLD_BYTES, 0);
    }

    /**
     * As {@link #create(String, int, String, int, String)}, with {@code zmqzstd}'s zero-copy threshold and
     * raw-frame limit (see {@link ZmqZstdContestant}); the peers have no such knobs and ignore them.
     */
    public static PipelineContestant create(String name, int size, String transport, int level, String dictionary,
            long zeroCopyThresholdBytes, long rawFrameBelowBytes) {
        return create(name, size, transport, level, dictionary, zeroCopyThresholdBytes, rawFrameBelowBytes, 0, 0);
    }

    /**
     * As above; {@code compressionThreads} above 0 makes {@code zmqzstd} send through a
     * {@link io.zmqzstd.pipeline.ParallelCompressingSender} with that many workers (0: one
     * {@link io.zmqzstd.pipeline.CompressingSender} on the sender thread), {@code inFlight} its ring
     * (0: its default). The peers ignore both.
     */
    public static PipelineContestant create(String name, int size, String transport, int level, String dictionary,
            long zeroCopyThresholdBytes, long rawFrameBelowBytes, int compressionThreads, int inFlight) {
        byte[] payload = payload(size);
        byte[] dictionaryBytes = switch (dictionary) {
            case DICTIONARY_NONE -> null;
            case DICTIONARY_TRAINED -> Payloads.trainedTelemetryDictionary();
            default -> throw new IllegalArgumentException("unknown dictionary: dictionary=" + dictionary);
        };
        return switch (name) {
            case ZMQZSTD -> new ZmqZstdContestant(payload, transport, level, dictionaryBytes, zeroCopyThresholdBytes,
                    rawFrameBelowBytes, compressionThreads, inFlight);
            case LIBZMQ_BYTES -> new LibzmqBytesContestant(payload, transport, level, dictionaryBytes);
            case JEROMQ_ZSTDJNI -> new JeromqZstdJniContestant(payload, transport, level, dictionaryBytes);
            default -> throw new IllegalArgumentException("unknown pipeline contestant: contestant=" + name);
        };
    }
}
