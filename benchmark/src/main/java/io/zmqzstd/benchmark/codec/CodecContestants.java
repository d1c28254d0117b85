package io.zmqzstd.benchmark.codec;

import java.util.Arrays;
import java.util.List;

/** The codec contestants by their {@code @Param} names; the one place that maps a name to a class. */
public final class CodecContestants {

    public static final String ZMQZSTD_SEGMENT = "zmqzstd-segment";
    public static final String ZMQZSTD_BYTES = "zmqzstd-bytes";
    public static final String ZSTDJNI_DIRECT = "zstdjni-direct";
    public static final String ZSTDJNI_BYTES = "zstdjni-bytes";
    public static final String AIRCOMPRESSOR_NATIVE = "aircompressor-native";
    public static final String AIRCOMPRESSOR_JAVA = "aircompressor-java";

    /** Every name {@link #create} accepts. */
    public static final List<String> NAMES = List.of(ZMQZSTD_SEGMENT, ZMQZSTD_BYTES, ZSTDJNI_DIRECT, ZSTDJNI_BYTES,
            AIRCOMPRESSOR_NATIVE, AIRCOMPRESSOR_JAVA);

    private CodecContestants() {
    }

    /**
     * A contestant holding a copy of {@code input}, ready to compress it at {@code level}, already
     * checked: its frame decodes (by zstd-jni, an independent reader) and its own round trip gives back
     * {@code input}. The caller owns it and closes it.
     */
    public static CodecContestant create(String name, byte[] input, int level) {
        CodecContestant contestant = switch (name) {
            case ZMQZSTD_SEGMENT -> new ZmqZstdContestants.Segment(input, level);
            case ZMQZSTD_BYTES -> new ZmqZstdContestants.Bytes(input, level);
            case ZSTDJNI_DIRECT -> new ZstdJniContestants.Direct(input, level);
            case ZSTDJNI_BYTES -> new ZstdJniContestants.Bytes(input, level);
            case AIRCOMPRESSOR_NATIVE -> new AircompressorContestants.Native(input, level);
            case AIRCOMPRESSOR_JAVA -> new AircompressorContestants.Java(input);
            default -> throw new IllegalArgumentException("unknown codec contestant: contestant=" + name);
        };
        try {
            verify(name, contestant, input);
        } catch (RuntimeException | Error e) {
            contestant.close();
            throw e;
        }
        return contestant;
    }

    private static void verify(String name, CodecContestant contestant, byte[] input) {
        contestant.compress();
        byte[] frame = contestant.frameCopy();
        byte[] decodedByReference = com.github.luben.zstd.Zstd.decompress(frame, input.length);
        if (!Arrays.equals(decodedByReference, input)) {
            throw new IllegalStateException("frame does not decode to the input: contestant=" + name
                    + ", size=" + input.length + ", frameBytes=" + frame.length);
        }
        long decompressed = contestant.decompress();
        if (decompressed != input.length || !Arrays.equals(contestant.outputCopy(), input)) {
            throw new IllegalStateException("round trip differs from input: contestant=" + name
                    + ", size=" + input.length + ", decompressed=" + decompressed);
        }
    }
}
