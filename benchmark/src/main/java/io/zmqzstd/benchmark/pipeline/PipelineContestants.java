package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.Payloads;

/** The pipeline contestants by their {@code @Param} names. */
public final class PipelineContestants {

    public static final String ZMQZSTD = "zmqzstd";
    public static final String LIBZMQ_BYTES = "libzmqBytes";
    public static final String JEROMQ_ZSTDJNI = "jeromqZstdjni";

    public static final String DICTIONARY_NONE = "none";
    public static final String DICTIONARY_TRAINED = "trained";

    private PipelineContestants() {
    }

    /**
     * A connected, running contestant sending telemetry payloads of {@code size} bytes. {@code zmqzstd}
     * joins once the pipeline module exists. The caller owns it and closes it.
     */
    public static PipelineContestant create(String name, int size, String transport, int level, String dictionary) {
        byte[] payload = Payloads.telemetry(size, 11);
        byte[] dictionaryBytes = switch (dictionary) {
            case DICTIONARY_NONE -> null;
            case DICTIONARY_TRAINED -> Payloads.trainedTelemetryDictionary();
            default -> throw new IllegalArgumentException("unknown dictionary: dictionary=" + dictionary);
        };
        return switch (name) {
            case LIBZMQ_BYTES -> new LibzmqBytesContestant(payload, transport, level, dictionaryBytes);
            case JEROMQ_ZSTDJNI -> new JeromqZstdJniContestant(payload, transport, level, dictionaryBytes);
            default -> throw new IllegalArgumentException("unknown pipeline contestant: contestant=" + name);
        };
    }
}
