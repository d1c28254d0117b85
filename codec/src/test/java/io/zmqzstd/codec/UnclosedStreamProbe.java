package io.zmqzstd.codec;

import io.zmqzstd.codec.internal.LibZstd;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * Run in a child JVM by {@link NativeLifetimeTest}: drops a {@link ZstdOutputStream} and a
 * {@link ZstdInputStream} that made their own compressor and decompressor, unclosed, and collects
 * until the cleaner has freed both, so that its warnings (the 1st and 2nd of the JVM) go to stderr.
 */
public final class UnclosedStreamProbe {

    private UnclosedStreamProbe() {
    }

    public static void main(String[] args) throws Exception {
        byte[] frame = dropOutputStream();
        dropInputStream(frame);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (LibZstd.UNCLOSED_FREED.get() < 2) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not freed within 60 s: " + LibZstd.UNCLOSED_FREED.get());
            }
            System.gc();
            Thread.sleep(10); // gives the cleaner's thread its turn; the count decides
        }
        System.out.println("freed=" + LibZstd.UNCLOSED_FREED.get());
    }

    private static byte[] dropOutputStream() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ZstdOutputStream out = new ZstdOutputStream(bytes, 3);
        out.write(new byte[1000]);
        out.flush();
        ZstdCompressor c = new ZstdCompressor(3); // the frame, whole, for the input stream
        byte[] frame = c.compress(new byte[1000]);
        c.close();
        return frame;
    }

    private static void dropInputStream(byte[] frame) throws IOException {
        ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(frame));
        if (in.read() != 0) {
            throw new AssertionError("first byte");
        }
    }
}
