package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A caller's segment whose memory faults under a Java copy: a mapping of a file shortened since it
 * was mapped, whose pages past the file's new end raise SIGBUS, which the JDK reports as a bare
 * {@link InternalError} naming nothing. Until 2026-11-28 that error came out of a receive into such
 * a mapping (the frame lost with it), of {@link ZmqMessage#set} and {@link ZmqMessage#copyTo}, and
 * of an XSUB's send from one. Now each names the segment and what became of the frame, and a
 * receive hands the frame back in its exception. Also here: flags a call does not take are
 * refused, where libzmq ignored them.
 */
class MemoryFaultTest extends ContextTestBase {

    private static final int MAPPED_BYTES = 64 * 1024;

    private Path file;
    private FileChannel channel;
    private Arena arena;
    private ZmqSocket pull;
    private ZmqSocket push;

    @BeforeEach
    void open() throws IOException {
        file = Files.createTempFile("memory-fault", ".bin");
        Files.write(file, new byte[MAPPED_BYTES]);
        channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        arena = Arena.ofConfined();
        pull = socket(SocketType.PULL);
        push = socket(SocketType.PUSH);
        push.connect(Endpoints.bindAny(pull, "inproc"));
    }

    @AfterEach
    void closeFile() throws IOException {
        arena.close();
        channel.close();
        Files.deleteIfExists(file);
    }

    /** A writable mapping of the whole file, then the file truncated to nothing under it. */
    private MemorySegment shortenedMapping() throws IOException {
        MemorySegment mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, MAPPED_BYTES, arena);
        channel.truncate(0);
        return mapped;
    }

    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    @Test
    void shouldHandBackAFrameItCouldNotWriteIntoTheDestination() throws IOException {
        MemorySegment mapped = shortenedMapping();
        byte[] first = pattern(10_000);
        assertTrue(push.send(first, ZmqSocket.SNDMORE));
        assertTrue(push.send("second part".getBytes(), 0));
        assertTrue(push.send("next message".getBytes(), 0));

        UndeliveredFrameException e = assertThrows(UndeliveredFrameException.class, () -> pull.receive(mapped, 0));
        assertTrue(e.getMessage().startsWith("dst could not be written: a fault in its memory"), e.getMessage());
        assertTrue(e.getMessage().contains("frame of 10000 bytes taken off the queue: its bytes are in this exception's frame()"),
                e.getMessage());
        assertTrue(e.getMessage().contains("the message's later parts stay queued"), e.getMessage());
        assertInstanceOf(InternalError.class, e.getCause(), "the JDK's report of the fault");
        assertArrayEquals(first, e.frame(), "the whole frame, nothing lost");
        assertEquals(10_000, e.frameSize());
        assertTrue(pull.hasMore());

        assertArrayEquals("second part".getBytes(), pull.receiveBytes(0), "the stream goes on with the next part");
        assertFalse(pull.hasMore());
        try (Arena ok = Arena.ofConfined()) {
            MemorySegment dst = ok.allocate(64);
            assertEquals(12, pull.receive(dst, 0), "and a receive into good memory works");
            assertArrayEquals("next message".getBytes(), dst.asSlice(0, 12).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
        assertNull(pull.receiveBytes(ZmqSocket.DONTWAIT));
    }

    @Test
    void shouldNameAMappingThatSetCouldNotRead() throws IOException {
        MemorySegment mapped = shortenedMapping();
        try (ZmqMessage message = new ZmqMessage()) {
            message.set(MemorySegment.ofArray(new byte[] {1, 2, 3}));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> message.set(mapped));
            assertTrue(e.getMessage().startsWith("src could not be read: a fault in its memory"), e.getMessage());
            assertTrue(e.getMessage().contains("length=" + MAPPED_BYTES + ", mapped=true (the message is left empty)"),
                    e.getMessage());
            assertInstanceOf(InternalError.class, e.getCause());
            assertEquals(0, message.size(), "empty, never holding bytes nobody wrote");
            message.set(MemorySegment.ofArray(new byte[] {4, 5}));
            assertTrue(push.send(message, 0), "the message works on");
            assertArrayEquals(new byte[] {4, 5}, pull.receiveBytes(0));
        }
    }

    @Test
    void shouldKeepTheFrameWhenCopyToCouldNotWrite() throws IOException {
        MemorySegment mapped = shortenedMapping();
        byte[] bytes = pattern(5000);
        try (ZmqMessage message = new ZmqMessage()) {
            message.set(MemorySegment.ofArray(bytes));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> message.copyTo(mapped, 100));
            assertTrue(e.getMessage().startsWith("dst could not be written: a fault in its memory"), e.getMessage());
            assertTrue(e.getMessage().contains("offset=100, length=5000, mapped=true (the frame stays in the message)"),
                    e.getMessage());
            assertArrayEquals(bytes, message.toByteArray(), "the frame is still there");
        }
    }

    @Test
    void shouldNameAMappingAnXsubCouldNotCheck() throws IOException {
        MemorySegment mapped = shortenedMapping();
        ZmqSocket xsub = socket(SocketType.XSUB);
        ZmqSocket xpub = socket(SocketType.XPUB);
        xsub.connect(Endpoints.bindAny(xpub, "inproc"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> xsub.send(mapped, 0, ZmqSocket.XPUB_DEFAULT_MAX_MESSAGE_BYTES + 1, 0));
        assertTrue(e.getMessage().startsWith("data could not be read: a fault in its memory"), e.getMessage());
        assertTrue(e.getMessage().endsWith("(nothing was sent)"), e.getMessage());
        assertInstanceOf(InternalError.class, e.getCause());
        assertTrue(xsub.send(new byte[] {1, 'a'}, 0), "the socket goes on");
        assertArrayEquals(new byte[] {1, 'a'}, xpub.receiveBytes(0), "the subscription that follows arrives, nothing before it");
    }

    @Test
    void shouldRefuseFlagsACallDoesNotTake() {
        int receiveFlag = 0x100;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> push.send(new byte[] {1}, receiveFlag));
        assertEquals("send flags must be 0, DONTWAIT (1), SNDMORE (2) or both: flags=256 (nothing was done)", e.getMessage());
        try (Arena a = Arena.ofConfined(); ZmqMessage message = new ZmqMessage()) {
            MemorySegment native8 = a.allocate(8);
            assertThrows(IllegalArgumentException.class, () -> push.send(native8, 0, 8, -1));
            message.set(MemorySegment.ofArray(new byte[] {9}));
            assertThrows(IllegalArgumentException.class, () -> push.send(message, 4));
            assertEquals(1, message.size(), "the message keeps its frame");
            PooledBuffer buffer = ctx.bufferPool().rent(16);
            assertThrows(IllegalArgumentException.class, () -> push.sendPooled(buffer, 16, 8));
            assertTrue(buffer.isRented(), "the buffer stays the caller's");
            buffer.release();

            assertTrue(push.send(new byte[] {7}, 0));
            e = assertThrows(IllegalArgumentException.class, () -> pull.receive(message, ZmqSocket.SNDMORE));
            assertEquals("receive flags must be 0 or DONTWAIT (1): flags=2 (nothing was done)", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> pull.receiveBytes(ZmqSocket.SNDMORE));
            assertThrows(IllegalArgumentException.class, () -> pull.receive(new byte[4], 3));
            assertThrows(IllegalArgumentException.class, () -> pull.receive(native8, 0x10));
            assertArrayEquals(new byte[] {7}, pull.receiveBytes(0), "only the frame sent with good flags arrived, once");
            assertNull(pull.receiveBytes(ZmqSocket.DONTWAIT));
        }
    }
}
