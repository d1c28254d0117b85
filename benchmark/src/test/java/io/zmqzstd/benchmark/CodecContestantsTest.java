package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import io.zmqzstd.benchmark.codec.CodecContestant;
import io.zmqzstd.benchmark.codec.CodecContestants;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CodecContestantsTest {

    @ParameterizedTest
    @ValueSource(strings = {"zmqzstd-segment", "zmqzstd-bytes", "zstdjni-direct", "zstdjni-bytes",
        "aircompressor-native", "aircompressor-java"})
    void shouldRoundTripRepeatedlyWithReusedBuffers(String name) {
        byte[] input = Payloads.telemetry(70_000, 5);
        try (CodecContestant codec = CodecContestants.create(name, input, 3)) {
            for (int i = 0; i < 3; i++) {
                long frameLength = codec.compress();
                assertTrue(frameLength > 0 && frameLength < input.length / 2, "frame " + frameLength);
                assertArrayEquals(input, Zstd.decompress(codec.frameCopy(), input.length));
                codec.decompress();
                assertArrayEquals(input, codec.outputCopy());
            }
        }
    }
}
