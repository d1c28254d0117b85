package io.zmqzstd.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** recv's output buffer: what each write to standard output holds, and what it counts as written. */
class OutputSinkTest {

    /** Records each write to the stream on its own. */
    private static final class Writes extends OutputStream {
        final List<byte[]> writes = new ArrayList<>();
        final ByteArrayOutputStream all = new ByteArrayOutputStream();

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            writes.add(Arrays.copyOfRange(b, off, off + len));
            all.write(b, off, len);
        }
    }

    /**
     * A full buffer goes out up to the end of its last whole message, so that a line another thread
     * writes to standard error at any time (a progress or event line) falls between messages when
     * both go to one file. The buffer went out whole when full: 64 KiB is no multiple of 101 bytes,
     * so the first write ended inside a line.
     */
    @Test
    void shouldWriteOnlyWholeMessagesWhenTheBufferFills() throws Exception {
        Writes stream = new Writes();
        byte[] line = ("x".repeat(100) + "\n").getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        OutputSink sink = new OutputSink(stream);
        for (int i = 0; i < 2000; i++) {
            sink.write(line);
            sink.endMessage();
            expected.write(line);
            long inWrites = stream.all.size() / line.length;
            assertEquals(inWrites, sink.writtenMessages(), "messages written whole after message " + (i + 1));
        }
        assertTrue(stream.writes.size() >= 3, () -> "writes=" + stream.writes.size());
        for (byte[] w : stream.writes) {
            assertEquals(0, w.length % line.length, () -> "a write of " + w.length + " bytes ends inside a message");
        }
        sink.flush();
        assertArrayEquals(expected.toByteArray(), stream.all.toByteArray());
        assertEquals(2000, sink.writtenMessages());
    }

    /**
     * A message longer than the buffer is written in pieces as it fills, and counted once its last
     * piece has gone out; the short message before it goes out whole, on its own.
     */
    @Test
    void shouldWriteAMessageLongerThanTheBufferInPieces() throws Exception {
        Writes stream = new Writes();
        byte[] large = new byte[200 * 1024];
        Arrays.fill(large, (byte) 'y');
        OutputSink sink = new OutputSink(stream);
        sink.write("one\n".getBytes(StandardCharsets.US_ASCII));
        sink.endMessage();
        sink.write(large);
        sink.write(new byte[] {'\n'});
        assertEquals(1, sink.writtenMessages(), "the large message is not ended yet");
        sink.endMessage();
        sink.flush();
        assertEquals(2, sink.writtenMessages());
        assertArrayEquals("one\n".getBytes(StandardCharsets.US_ASCII), stream.writes.get(0));
        assertEquals(4 + large.length + 1, stream.all.size());
        assertTrue(stream.writes.stream().skip(1).allMatch(w -> w.length <= 64 * 1024), () -> "writes=" + stream.writes.size());
    }
}
