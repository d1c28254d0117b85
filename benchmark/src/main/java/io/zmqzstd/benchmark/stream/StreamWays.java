package io.zmqzstd.benchmark.stream;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.codec.ZstdDecompressor;
import io.zmqzstd.codec.ZstdInputStream;
import io.zmqzstd.codec.ZstdOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/** The stream ways by their {@code @Param} names; the one place that maps a name to a class. */
public final class StreamWays {

    public static final String ZMQZSTD = "zmqzstd";
    public static final String ZSTDJNI = "zstdjni";
    public static final String AIRCOMPRESSOR = "aircompressor";
    public static final String JDK_GZIP = "jdkGzip";

    /** Every name {@link #create} accepts. */
    public static final List<String> NAMES = List.of(ZMQZSTD, ZSTDJNI, AIRCOMPRESSOR, JDK_GZIP);

    /**
     * The buffer the JDK's gzip streams are given: 8 KiB, as {@code BufferedOutputStream} and most copy loops
     * use, where their own default is 512 B (a compressed-side call every 512 B).
     */
    static final int GZIP_BUFFER_BYTES = 8192;

    private StreamWays() {
    }

    /**
     * A way holding a copy of {@code payload}, written in calls of {@code chunk} bytes at zstd {@code level}
     * ({@link #JDK_GZIP} ignores it: the JDK's gzip stream has no level, it deflates at 6), already checked:
     * its frame reads back to the payload through its own stream, and a zstd frame through zstd-jni's
     * one-call decompressor too (an independent reader). The caller owns it and closes it.
     */
    public static StreamWay create(String name, byte[] payload, int chunk, int level) {
        StreamWay way = switch (name) {
            case ZMQZSTD -> new ZmqZstd(payload, chunk, level);
            case ZSTDJNI -> new ZstdJni(payload, chunk, level);
            case AIRCOMPRESSOR -> new Aircompressor(payload, chunk, level);
            case JDK_GZIP -> new JdkGzip(payload, chunk);
            default -> throw new IllegalArgumentException("unknown stream way: way=" + name + ", expected one of " + NAMES);
        };
        try {
            verify(way, payload);
        } catch (RuntimeException | Error e) {
            way.close();
            throw e;
        }
        return way;
    }

    /**
     * What a result line should say about the native code a way runs, beginning with {@code ", "}: the
     * libzstd this project loaded, whether aircompressor runs its bundled libzstd or its Java zstd; empty for
     * the others (zstd-jni bundles its libzstd, the JDK its zlib).
     */
    public static String describe(String name) {
        return switch (name) {
            case ZMQZSTD -> ", libzstd=" + io.zmqzstd.codec.Zstd.versionString();
            case AIRCOMPRESSOR -> ", aircompressor=" + (Aircompressor.NATIVE ? "native" : "java");
            default -> "";
        };
    }

    private static void verify(StreamWay way, byte[] payload) {
        way.read(); // writes the frame first, then checks length and CRC of what it reads back
        if (!way.name().equals(JDK_GZIP)) {
            byte[] frame = way.frameCopy();
            if (!Arrays.equals(com.github.luben.zstd.Zstd.decompress(frame, payload.length), payload)) {
                throw new IllegalStateException("frame does not decode to the payload: way=" + way.name()
                        + ", size=" + payload.length + ", frameBytes=" + frame.length);
            }
        }
    }

    /**
     * This project's {@link ZstdOutputStream} and {@link ZstdInputStream}, a new pair of streams per frame
     * over one {@link ZstdCompressor} and one {@link ZstdDecompressor} borrowed by every stream (the codec
     * README's "Memory" under "Streams": a borrowed owner lends its 256 KiB heap array and native scratch, so
     * a stream allocates only itself). The frame declares no content size, as the peers' stream frames.
     */
    static final class ZmqZstd extends StreamWay {
        private final ZstdCompressor compressor;
        private final ZstdDecompressor decompressor;

        ZmqZstd(byte[] payload, int chunk, int level) {
            super(ZMQZSTD, payload, chunk);
            compressor = new ZstdCompressor(level);
            try {
                decompressor = new ZstdDecompressor();
            } catch (RuntimeException | Error e) {
                compressor.close();
                throw e;
            }
        }

        @Override
        protected OutputStream openWriter(OutputStream sink) {
            return new ZstdOutputStream(sink, compressor);
        }

        @Override
        protected InputStream openReader(InputStream source) {
            return new ZstdInputStream(source, decompressor);
        }

        @Override
        public void close() {
            compressor.close();
            decompressor.close();
        }
    }

    /**
     * zstd-jni's {@link ZstdOutputStreamNoFinalizer} and {@link ZstdInputStreamNoFinalizer} with
     * {@link RecyclingBufferPool#INSTANCE} (their heap buffers taken from and given back to the pool). The
     * output stream has no way to start a new frame on a new sink: each frame makes and frees its
     * {@code ZSTD_CStream}. The input stream has, {@code resetSession(InputStream)}: one stream, and its
     * {@code ZSTD_DStream}, reads every frame and is closed by {@link #close()}.
     */
    static final class ZstdJni extends StreamWay {
        private final int level;
        private ZstdInputStreamNoFinalizer reader;

        ZstdJni(byte[] payload, int chunk, int level) {
            super(ZSTDJNI, payload, chunk);
            this.level = level;
        }

        @Override
        protected OutputStream openWriter(OutputStream sink) throws IOException {
            return new ZstdOutputStreamNoFinalizer(sink, RecyclingBufferPool.INSTANCE, level);
        }

        @Override
        protected InputStream openReader(InputStream source) throws IOException {
            if (reader == null) {
                reader = new ZstdInputStreamNoFinalizer(source, RecyclingBufferPool.INSTANCE);
            } else {
                reader.resetSession(source);
            }
            return reader;
        }

        @Override
        protected void endRead(InputStream stream) {
            // kept for the next frame's resetSession
        }

        @Override
        public void close() {
            if (reader != null) {
                try {
                    reader.close();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException("zstd-jni input stream failed to close", e);
                }
            }
        }
    }

    /**
     * aircompressor's {@code io.airlift.compress.v3.zstd.ZstdOutputStream.create(out, level)} and
     * {@code ZstdInputStream.create(in)}: its FFM streams over the libzstd it bundles
     * ({@code ZstdNativeOutputStream}/{@code ZstdNativeInputStream}) when that loads, else its pure-Java ones
     * (level 3 only); {@link #NATIVE} says which. A new pair of streams per frame, each with its own
     * context: the library has no way to reuse one.
     */
    static final class Aircompressor extends StreamWay {
        /** Whether aircompressor's streams run its bundled libzstd here (else its pure-Java zstd). */
        static final boolean NATIVE = io.airlift.compress.v3.zstd.ZstdNativeOutputStream.isEnabled()
                && io.airlift.compress.v3.zstd.ZstdNativeInputStream.isEnabled();

        private final int level;

        Aircompressor(byte[] payload, int chunk, int level) {
            super(AIRCOMPRESSOR, payload, chunk);
            this.level = level;
        }

        @Override
        protected OutputStream openWriter(OutputStream sink) throws IOException {
            return io.airlift.compress.v3.zstd.ZstdOutputStream.create(sink, level);
        }

        @Override
        protected InputStream openReader(InputStream source) {
            return io.airlift.compress.v3.zstd.ZstdInputStream.create(source);
        }
    }

    /**
     * The JDK's {@link GZIPOutputStream} and {@link GZIPInputStream} with {@link #GZIP_BUFFER_BYTES}: deflate
     * at its default level (6), what a user has without any library. Each stream makes and ends its own
     * {@code Deflater} or {@code Inflater}: neither class takes one from the caller.
     */
    static final class JdkGzip extends StreamWay {

        JdkGzip(byte[] payload, int chunk) {
            super(JDK_GZIP, payload, chunk);
        }

        @Override
        protected OutputStream openWriter(OutputStream sink) throws IOException {
            return new GZIPOutputStream(sink, GZIP_BUFFER_BYTES);
        }

        @Override
        protected InputStream openReader(InputStream source) throws IOException {
            return new GZIPInputStream(source, GZIP_BUFFER_BYTES);
        }
    }
}
