package io.zmqzstd.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.FileInputStream;
import java.io.RandomAccessFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MessageReaderTest {

    private static List<String> all(MessageReader r) throws IOException {
        List<String> out = new ArrayList<>();
        while (r.next()) {
            out.add(new String(r.array(), r.offset(), r.length(), StandardCharsets.ISO_8859_1));
        }
        return out;
    }

    private static InputStream in(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Hands out at most {@code step} bytes per read, like a pipe or a terminal. */
    private static InputStream trickle(byte[] data, int step) {
        return new ByteArrayInputStream(data) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, step));
            }
        };
    }

    /**
     * What send does when a signal ends a read of standard input that waits: the read is woken
     * ({@link WakeableInput#wake()}, on a real FIFO whose writer keeps it open), and after
     * {@link MessageReader#endInput()} the unfinished line, chunk or whole input is the last
     * message; nothing more is read.
     */
    @Test
    void shouldReturnWhatWasReadAsTheLastMessageWhenAWaitingReadIsWokenAndTheInputEnded(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("stdin");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertEquals(0, mkfifo.waitFor());
        String[] modes = {"lines", "chunk", "whole"};
        List<List<String>> expected = List.of(List.of("one", "tw"), List.of("abcd", "ef"), List.of("one\ntw"));
        for (int i = 0; i < modes.length; i++) {
            String mode = modes[i];
            // the writer's open first in another thread: opening a FIFO for reading waits for a writer
            var writer = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    var out = new java.io.FileOutputStream(fifo.toFile());
                    out.write((mode.equals("chunk") ? "abcdef" : "one\ntw").getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    return out; // kept open: the reader waits for more
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (FileInputStream file = new FileInputStream(fifo.toFile())) {
                WakeableInput input = WakeableInput.of(file);
                java.util.concurrent.atomic.AtomicInteger taken = new java.util.concurrent.atomic.AtomicInteger();
                InputStream counted = new java.io.FilterInputStream(input) {
                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        int n = super.read(b, off, len);
                        taken.addAndGet(Math.max(n, 0));
                        return n;
                    }
                };
                MessageReader r = switch (mode) {
                    case "lines" -> MessageReader.delimited(counted, (byte) '\n');
                    case "chunk" -> MessageReader.chunked(counted, 4);
                    default -> MessageReader.whole(counted, 1000);
                };
                List<String> got = new ArrayList<>();
                var reading = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        while (r.next()) {
                            got.add(new String(r.array(), r.offset(), r.length(), StandardCharsets.ISO_8859_1));
                        }
                        return null;
                    } catch (IOException e) {
                        return e;
                    }
                });
                // once it took all that came the reader waits in read (or is about to): the wake ends that read
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (taken.get() < 6 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertEquals(6, taken.get(), mode);
                input.wake();
                Exception woken = reading.get(10, java.util.concurrent.TimeUnit.SECONDS);
                assertTrue(woken instanceof java.nio.channels.AsynchronousCloseException
                        || woken instanceof java.nio.channels.ClosedChannelException, mode + ": " + woken);
                r.endInput();
                got.addAll(all(r));
                assertEquals(expected.get(i), got, mode);
                assertFalse(r.next(), mode);
            } finally {
                writer.get(10, java.util.concurrent.TimeUnit.SECONDS).close();
            }
        }
    }

    @Test
    void shouldSplitLinesLikeText() throws IOException {
        assertEquals(List.of("a", "bb", "", "c"), all(MessageReader.delimited(in("a\nbb\n\nc\n"), (byte) '\n')));
        assertEquals(List.of("a", "last"), all(MessageReader.delimited(in("a\nlast"), (byte) '\n')));
        assertEquals(List.of(), all(MessageReader.delimited(in(""), (byte) '\n')));
        assertEquals(List.of(""), all(MessageReader.delimited(in("\n"), (byte) '\n')));
        assertEquals(List.of("x", "y"), all(MessageReader.delimited(in("x\0y"), (byte) 0)));
    }

    @Test
    void shouldKeepLinesLongerThanTheBufferWhole() throws IOException {
        String longLine = "x".repeat(300_000);
        byte[] data = ("short\n" + longLine + "\nend\n").getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(List.of("short", longLine, "end"), all(MessageReader.delimited(trickle(data, 7000), (byte) '\n')));
    }

    @Test
    void shouldCutChunksOfTheGivenSizeAcrossShortReads() throws IOException {
        byte[] data = new byte[100_001];
        new Random(1).nextBytes(data);
        MessageReader r = MessageReader.chunked(trickle(data, 333), 4096);
        int at = 0;
        int chunks = 0;
        while (r.next()) {
            assertEquals(Math.min(4096, data.length - at), r.length());
            for (int i = 0; i < r.length(); i++) {
                assertEquals(data[at + i], r.array()[r.offset() + i]);
            }
            at += r.length();
            chunks++;
        }
        assertEquals(data.length, at);
        assertEquals(25, chunks);
    }

    /**
     * The chunk buffer grows with the input up to the chunk size: a 1 GiB chunk over a few bytes
     * does not take a 1 GiB array (it did, up front), and a chunk that is not a power of two still
     * comes out whole and exact, its buffer no larger than the chunk.
     */
    @Test
    void shouldGrowTheChunkBufferWithTheInputOnly() throws IOException {
        MessageReader small = MessageReader.chunked(in("a few bytes"), 1 << 30);
        assertEquals(List.of("a few bytes"), all(small));
        assertTrue(small.array().length <= 64 * 1024, "buffer: " + small.array().length);

        byte[] data = new byte[700_001];
        new Random(3).nextBytes(data);
        int chunk = 300_007;
        MessageReader r = MessageReader.chunked(trickle(data, 9000), chunk);
        int at = 0;
        while (r.next()) {
            assertEquals(Math.min(chunk, data.length - at), r.length());
            assertArrayEquals(java.util.Arrays.copyOfRange(data, at, at + r.length()), r.copy());
            assertTrue(r.array().length <= chunk, "buffer: " + r.array().length);
            at += r.length();
        }
        assertEquals(data.length, at);
    }

    @Test
    void shouldReadTheWholeStreamAsOneMessage() throws IOException {
        byte[] data = new byte[200_000];
        new Random(2).nextBytes(data);
        MessageReader r = MessageReader.whole(trickle(data, 5000), MessageReader.MAX_ARRAY_BYTES);
        assertEquals(true, r.next());
        assertArrayEquals(data, r.copy());
        assertEquals(false, r.next());
        MessageReader empty = MessageReader.whole(in(""), MessageReader.MAX_ARRAY_BYTES);
        assertEquals(true, empty.next());
        assertEquals(0, empty.length());
        assertEquals(false, empty.next());
    }

    /** Zero bytes without end, none of them stored; counts what was read. */
    private static final class Endless extends InputStream {
        long read;

        @Override
        public int read() {
            read++;
            return 0;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            read += len;
            return len; // the caller's array is zeroed already, or holds zeros from the previous read
        }
    }

    /** --whole over its limit: refused once one byte more has come, not after reading the rest. */
    @Test
    void shouldStopReadingAWholeInputOneBytePastTheLimit() throws IOException {
        Endless endless = new Endless();
        MessageReader.TooLongException e = assertThrows(MessageReader.TooLongException.class,
                () -> MessageReader.whole(endless, 1_000_000).next());
        assertEquals(1_000_001, endless.read);
        assertEquals(1_000_000, e.limitBytes());
        assertFalse(e.heap());

        byte[] exactly = new byte[1_000_000];
        new Random(3).nextBytes(exactly);
        MessageReader r = MessageReader.whole(trickle(exactly, 70_000), 1_000_000);
        assertTrue(r.next());
        assertArrayEquals(exactly, r.copy());
        assertFalse(r.next());
    }

    /** A file's remaining size is known without reading it (a sparse file: no gigabytes on disk). */
    @Test
    void shouldKnowHowMuchOfAFileIsLeft(@TempDir Path dir) throws IOException {
        Path sparse = dir.resolve("sparse.bin");
        try (RandomAccessFile f = new RandomAccessFile(sparse.toFile(), "rw")) {
            f.setLength(3L << 30);
        }
        try (FileInputStream in = new FileInputStream(sparse.toFile())) {
            assertEquals(3L << 30, MessageReader.knownRemainingBytes(in));
            in.readNBytes(10);
            assertEquals((3L << 30) - 10, MessageReader.knownRemainingBytes(in));
        }
        assertEquals(-1, MessageReader.knownRemainingBytes(in("abc")));
        // this JVM's own standard input, a pipe from surefire (or /dev/null): no size, nothing read; not closed
        assertEquals(-1, MessageReader.knownRemainingBytes(new FileInputStream(java.io.FileDescriptor.in)));
    }

    @Test
    void shouldExposeTheMessageAsASegmentOverTheSameBytes() throws IOException {
        MessageReader r = MessageReader.delimited(in("abc\ndef\n"), (byte) '\n');
        r.next();
        r.next();
        assertEquals('d', r.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, r.offset()));
    }
}
