package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.benchmark.stream.StreamWay;
import io.zmqzstd.benchmark.stream.StreamWays;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.zip.CRC32C;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.api.Test;

/** {@link StreamBenchmark}'s ways round-trip, and its per-operation checks fail on what they exist to catch. */
class StreamWaysTest {

    /** Not a multiple of any chunk: the last write and read are short. */
    private static final int SIZE = 70_000;

    @ParameterizedTest
    @FieldSource("io.zmqzstd.benchmark.stream.StreamWays#NAMES")
    void shouldRoundTripRepeatedlyThroughTheReusedSinkAndSource(String name) throws IOException {
        byte[] payload = Payloads.telemetry(SIZE, 5);
        CRC32C crc = new CRC32C();
        crc.update(payload);
        for (int chunk : new int[] {1000, 8192, 65536}) {
            try (StreamWay way = StreamWays.create(name, payload, chunk, 3)) {
                long frameBytes = way.write();
                assertTrue(frameBytes > 0 && frameBytes < SIZE / 2, name + ": frame " + frameBytes);
                for (int i = 0; i < 3; i++) {
                    assertEquals(frameBytes, way.write(), name);
                    assertEquals(crc.getValue(), way.read(), name + ", chunk=" + chunk);
                }
                byte[] frame = way.frameCopy();
                assertEquals(frameBytes, frame.length, name);
                // an independent reader: zstd-jni's one-call decompressor, the JDK's gzip for gzip
                byte[] decoded = name.equals(StreamWays.JDK_GZIP)
                        ? new GZIPInputStream(new ByteArrayInputStream(frame)).readAllBytes()
                        : com.github.luben.zstd.Zstd.decompress(frame, SIZE);
                assertArrayEquals(payload, decoded, name);
            }
        }
    }

    @Test
    void shouldRefuseAnUnknownWayNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StreamWays.create("zstd", new byte[16], 8192, 3));
        assertTrue(e.getMessage().contains("way=zstd"), e.getMessage());
    }

    /** A read that returns other bytes than were written, or fewer, fails the operation, naming the way. */
    @ParameterizedTest
    @CsvSource({"flip, 70000", "drop, 69999"})
    void shouldFailAReadThatDiffersFromThePayload(String fault, long read) {
        try (StreamWay way = new StoredWay(Payloads.telemetry(SIZE, 5), fault)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, way::read);
            assertTrue(e.getMessage().startsWith("read back differs from the payload: way=stored-" + fault)
                    && e.getMessage().contains("read=" + read), e.getMessage());
        }
    }

    @Test
    void shouldFailAWriteWhoseFrameLengthChanges() {
        try (StreamWay way = new StoredWay(Payloads.telemetry(SIZE, 5), "grow")) {
            way.write();
            IllegalStateException e = assertThrows(IllegalStateException.class, way::write);
            assertTrue(e.getMessage().startsWith("frame length changed: way=stored-grow"), e.getMessage());
        }
    }

    /**
     * Stores the payload as it is; {@code flip} changes one byte of what it reads back (at offset 40,000,
     * the fifth 8 KiB chunk), {@code drop} ends the read one byte early, {@code grow} writes one more byte per
     * frame than the frame before.
     */
    private static final class StoredWay extends StreamWay {
        private final String fault;
        private int frames;

        StoredWay(byte[] payload, String fault) {
            super("stored-" + fault, payload, 8192);
            this.fault = fault;
        }

        @Override
        protected OutputStream openWriter(OutputStream sink) throws IOException {
            if (fault.equals("grow")) {
                for (int i = 0; i < frames; i++) {
                    sink.write(0);
                }
                frames++;
            }
            return new FilterOutputStream(sink) {
                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                }
            };
        }

        @Override
        protected InputStream openReader(InputStream source) {
            return new FilterInputStream(source) {
                private long at;

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    int limit = fault.equals("drop") ? (int) Math.min(len, SIZE - 1 - at) : len;
                    if (limit <= 0) {
                        return -1;
                    }
                    int n = in.read(b, off, limit);
                    if (n > 0 && fault.equals("flip") && at <= 40_000 && 40_000 < at + n) {
                        b[off + (int) (40_000 - at)] ^= 1;
                    }
                    at += Math.max(n, 0);
                    return n;
                }
            };
        }
    }
}
