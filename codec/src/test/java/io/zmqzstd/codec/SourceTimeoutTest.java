package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * A source's timeout ({@link SocketTimeoutException}, any {@link InterruptedIOException}) is not an
 * error of {@link ZstdInputStream}: the next read goes on where the source stopped. Before
 * 2026-11-29 the first timeout ended the stream ("stream failed earlier"), so a reader of a socket
 * with {@code SO_TIMEOUT} had to drop the connection at its first idle moment.
 */
class SourceTimeoutTest {

    private static final byte[] A = TestData.text(40_000, 5);
    private static final byte[] B = TestData.random(3_000, 6);

    /** A skippable frame, frame A, an empty skippable frame, frame B: timeouts land in each. */
    private static byte[] input() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(TestData.skippable(700));
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            out.write(c.compress(A));
            out.write(TestData.skippable(0));
            out.write(c.compress(B));
        }
        return out.toByteArray();
    }

    private static byte[] expected() {
        byte[] all = new byte[A.length + B.length];
        System.arraycopy(A, 0, all, 0, A.length);
        System.arraycopy(B, 0, all, A.length, B.length);
        return all;
    }

    @ParameterizedTest(name = "chunk={0}")
    @ValueSource(ints = {1, 3, 17, 4096, 1 << 20})
    void shouldResumeAfterEachTimeoutWherever(int chunk) throws IOException {
        byte[] input = input();
        SocketTimeoutException timeout = new SocketTimeoutException("Read timed out");
        TimingOutSource source = new TimingOutSource(input, chunk, timeout);
        try (ZstdDecompressor d = new ZstdDecompressor(); ZstdInputStream in = new ZstdInputStream(source, d)) {
            assertArrayEquals(expected(), source.readThrough(in, 5_000));
        }
        assertTrue(source.timeouts >= input.length / chunk, "a timeout before each chunk: " + source.timeouts);
    }

    /** Over a real loopback socket with SO_TIMEOUT: the reader times out mid-frame, then reads on. */
    @Test
    void shouldReadOnAfterASocketTimedOutMidFrame() throws IOException {
        byte[] input = input();
        int half = input.length / 2;
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                Socket peer = server.accept()) {
            client.setSoTimeout(200);
            OutputStream writer = peer.getOutputStream();
            writer.write(input, 0, half);
            writer.flush();
            ZstdInputStream in = new ZstdInputStream(client.getInputStream());
            byte[] got = new byte[A.length + B.length];
            int[] filled = {0};
            assertThrows(SocketTimeoutException.class, () -> {
                while (true) {
                    int n = in.read(got, filled[0], got.length - filled[0]);
                    assertTrue(n > 0, "no end before the rest was written");
                    filled[0] += n;
                }
            });
            assertTrue(filled[0] < A.length, "stopped inside frame A: " + filled[0]);
            writer.write(input, half, input.length - half);
            peer.shutdownOutput();
            int n = in.readNBytes(got, filled[0], got.length - filled[0]);
            assertEquals(got.length - filled[0], n);
            assertEquals(-1, in.read(), "the end after both frames");
            assertArrayEquals(expected(), got);
            in.close();
        }
    }

    /** Any other IOException still ends the stream, as the javadoc says. */
    @Test
    void shouldStillEndTheStreamOnOtherSourceFailures() throws IOException {
        IOException reset = new IOException("connection reset");
        InputStream source = new InputStream() {
            @Override
            public int read() throws IOException {
                throw reset;
            }
        };
        try (ZstdInputStream in = new ZstdInputStream(source)) {
            assertSame(reset, assertThrows(IOException.class, in::read));
            assertSame(reset, assertThrows(IOException.class, in::read).getCause());
        }
    }
}
