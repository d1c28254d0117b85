package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A reused ZmqMessage over inproc zero-copy, where the received frame is the pooled buffer itself; set() replacing it. */
class MessageTest {

    private static final int SIZE = 4096;

    private NativeBufferPool pool;
    private ZmqContext ctx;
    private ZmqSocket pull;
    private ZmqSocket push;

    @BeforeEach
    void open() {
        pool = NativeBufferPool.builder().zeroCopyThresholdBytes(0).build();
        ctx = ZmqContext.builder().bufferPool(pool).build();
        pull = ctx.socket(SocketType.PULL);
        push = ctx.socket(SocketType.PUSH);
        pull.receiveTimeoutMs(5000);
        push.connect(Endpoints.bindAny(pull, "inproc"));
    }

    @AfterEach
    void close() {
        ctx.close();
        Buffers.assertAllBack(pool);
        pool.close();
    }

    private void sendPooled(byte fill) {
        PooledBuffer b = pool.rent(SIZE);
        b.segment().fill(fill);
        assertTrue(push.sendPooled(b, SIZE, 0));
    }

    /** Runs {@code action} on another thread and waits for it: a hand-over in both directions. */
    private static void onAnotherThread(Runnable action) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                action.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.join();
        assertNull(failure.get());
    }

    @Test
    void shouldReturnTheBufferWhenClosedOnAnotherThreadThanTheViewsOwner() throws Exception {
        ZmqMessage msg = new ZmqMessage();
        sendPooled((byte) 5);
        onAnotherThread(() -> {
            assertTrue(pull.receive(msg, 0));
            assertEquals(5, msg.data().get(ValueLayout.JAVA_BYTE, SIZE - 1));
        });
        assertEquals(1, pool.outstanding(), "the frame holds the pooled buffer");
        msg.close(); // here, not on the thread whose view is open
        assertEquals(0, pool.outstanding(), "zmq_msg_close ran: the buffer is back");
        assertThrows(IllegalStateException.class, msg::size);
    }

    @Test
    void shouldReceiveAndViewOnAnotherThreadAfterAHandOver() throws Exception {
        try (ZmqMessage msg = new ZmqMessage()) {
            sendPooled((byte) 1);
            sendPooled((byte) 2);
            onAnotherThread(() -> {
                assertTrue(pull.receive(msg, 0));
                assertEquals(1, msg.data().get(ValueLayout.JAVA_BYTE, 0));
            });
            assertTrue(pull.receive(msg, 0)); // replaces the frame whose view another thread made
            assertEquals(1, pool.outstanding(), "the first frame's buffer is back");
            MemorySegment view = msg.data(); // this thread's own view
            assertEquals(2, view.get(ValueLayout.JAVA_BYTE, 0));
            msg.clear();
            assertEquals(0, pool.outstanding());
            assertThrows(IllegalStateException.class, () -> view.get(ValueLayout.JAVA_BYTE, 0),
                    "a stale view on the thread that made it still fails loudly");
        }
    }

    @Test
    void shouldGiveEachThreadItsOwnViewOfTheSameFrame() throws Exception {
        try (ZmqMessage msg = new ZmqMessage()) {
            sendPooled((byte) 7);
            assertTrue(pull.receive(msg, 0));
            MemorySegment mine = msg.data();
            onAnotherThread(() -> assertEquals(7, msg.data().get(ValueLayout.JAVA_BYTE, 0)));
            // The other thread's view replaced this one, which it could only drop, not close; the
            // frame is unchanged, so both this view and a fresh one read it.
            assertEquals(7, mine.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(7, msg.data().get(ValueLayout.JAVA_BYTE, 0));
        }
    }

    /**
     * README "Ownership and view lifetimes": {@code data()} is a read-only view of libzmq's memory,
     * usable only on the thread that called {@code data()}: a write is refused by the segment, and
     * the view read on another thread throws {@link WrongThreadException}, the frame unchanged.
     */
    @Test
    void shouldGiveAReadOnlyViewUsableOnlyOnTheThreadThatAskedForIt() throws Exception {
        try (ZmqMessage msg = new ZmqMessage()) {
            sendPooled((byte) 5);
            assertTrue(pull.receive(msg, 0));
            MemorySegment view = msg.data();
            assertTrue(view.isReadOnly());
            assertThrows(IllegalArgumentException.class, () -> view.set(ValueLayout.JAVA_BYTE, 0, (byte) 9));
            assertThrows(IllegalArgumentException.class, () -> view.fill((byte) 9));
            onAnotherThread(() -> assertThrows(WrongThreadException.class, () -> view.get(ValueLayout.JAVA_BYTE, 0)));
            assertEquals(5, view.get(ValueLayout.JAVA_BYTE, 0), "the frame is unchanged and the view still this thread's");
            assertEquals(5, view.get(ValueLayout.JAVA_BYTE, SIZE - 1));
        }
    }

    @Test
    void shouldShareAPooledFrameOnCopyAndReturnItOnlyWhenBothAreClosed() {
        try (ZmqMessage received = new ZmqMessage(); ZmqMessage copy = new ZmqMessage()) {
            sendPooled((byte) 9);
            assertTrue(pull.receive(received, 0));
            MemorySegment view = received.data();
            copy.copyFrom(received);
            assertEquals(received.address(), copy.address(), "shared, not copied");
            assertEquals(SIZE, copy.size());
            assertEquals(9, view.get(ValueLayout.JAVA_BYTE, 0), "the source and its view are unchanged");
            received.clear();
            assertEquals(1, pool.outstanding(), "the copy still holds the buffer");
            assertEquals(9, copy.data().get(ValueLayout.JAVA_BYTE, SIZE - 1));
            copy.copyFrom(copy); // into itself: nothing happens
            assertEquals(SIZE, copy.size());
            copy.clear();
            assertEquals(0, pool.outstanding(), "back once both let go");
        }
    }

    /**
     * The Javadoc's list of what ends a view of the frame: clear, set, copyFrom and moveFrom into
     * the message, and a send of it. Each is checked on a pooled zero-copy frame, whose memory a
     * stale read would otherwise reach after it went back to the pool.
     */
    @Test
    void shouldEndTheViewOnEveryCallThatReplacesTheFrame() {
        try (ZmqMessage msg = new ZmqMessage(); ZmqMessage other = new ZmqMessage()) {
            other.set(MemorySegment.ofArray(new byte[64]));
            List<Consumer<ZmqMessage>> replacing = List.of(
                    ZmqMessage::clear,
                    m -> m.set(MemorySegment.ofArray(new byte[64])),
                    m -> m.copyFrom(other),
                    m -> m.moveFrom(other),
                    m -> assertTrue(push.send(m, 0)));
            for (var replace : replacing) {
                sendPooled((byte) 7);
                assertTrue(pull.receive(msg, 0));
                MemorySegment view = msg.data();
                assertEquals(7, view.get(ValueLayout.JAVA_BYTE, 0));
                replace.accept(msg);
                assertThrows(IllegalStateException.class, () -> view.get(ValueLayout.JAVA_BYTE, 0));
                if (other.size() == 0) {
                    other.set(MemorySegment.ofArray(new byte[64])); // moveFrom emptied it
                }
            }
            assertTrue(pull.receive(msg, 0), "the sent frame arrives");
            assertEquals(7, msg.data().get(ValueLayout.JAVA_BYTE, SIZE - 1));
        }
    }

    @Test
    void shouldMoveAFrameAndLeaveTheSourceEmpty() {
        try (ZmqMessage received = new ZmqMessage(); ZmqMessage moved = new ZmqMessage()) {
            sendPooled((byte) 4);
            assertTrue(pull.receive(received, 0));
            long address = received.address();
            MemorySegment staleView = received.data();
            moved.moveFrom(received);
            assertEquals(0, received.size());
            assertThrows(IllegalStateException.class, () -> staleView.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(address, moved.address());
            assertEquals(4, moved.data().get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(1, pool.outstanding());
            assertTrue(push.send(moved, 0), "a moved frame sends like any other");
            assertTrue(pull.receive(received, 0));
            assertEquals(address, received.address(), "inproc passed the same buffer along");
            received.clear();
            assertEquals(0, pool.outstanding());
        }
        ZmqMessage closed = new ZmqMessage();
        closed.close();
        try (ZmqMessage m = new ZmqMessage()) {
            assertThrows(IllegalStateException.class, () -> m.moveFrom(closed));
            assertThrows(IllegalStateException.class, () -> closed.copyFrom(m));
        }
    }

    /**
     * set(data()) copies the frame into one of its own: the new frame is built and filled before
     * the old one is freed. Freeing first, as set did, ended the view and freed its bytes before
     * they were read: the copy failed and left the message holding uninitialised bytes. The last
     * step sets a frame small enough for libzmq to keep inside the zmq_msg_t itself, from its own view.
     */
    @Test
    void shouldSetAMessageFromItsOwnView() {
        byte[] pattern = new byte[SIZE];
        for (int i = 0; i < SIZE; i++) {
            pattern[i] = (byte) (i * 31 + 7);
        }
        try (ZmqMessage msg = new ZmqMessage()) {
            PooledBuffer b = pool.rent(SIZE);
            MemorySegment.copy(pattern, 0, b.segment(), ValueLayout.JAVA_BYTE, 0, SIZE);
            assertTrue(push.sendPooled(b, SIZE, 0));
            assertTrue(pull.receive(msg, 0));
            long pooledAddress = msg.address();

            msg.set(msg.data());
            assertArrayEquals(pattern, msg.toByteArray());
            assertNotEquals(pooledAddress, msg.address(), "a frame of its own");
            assertEquals(0, pool.outstanding(), "the pooled frame it replaced is freed");

            msg.set(msg.data().asSlice(100, 20)); // a slice of the view: 20 bytes, kept inline
            assertArrayEquals(Arrays.copyOfRange(pattern, 100, 120), msg.toByteArray());
            msg.set(msg.data().asSlice(5, 10)); // inline from inline
            assertArrayEquals(Arrays.copyOfRange(pattern, 105, 115), msg.toByteArray());
        }
    }

    /**
     * A source that cannot be read (its arena closed, or confined to another thread) is refused
     * before anything changes: the message keeps its frame. set used to free the frame first and
     * leave the message holding the new size in uninitialised bytes.
     */
    @Test
    void shouldRefuseAnUnreadableSourceAndKeepTheFrame() throws Exception {
        try (ZmqMessage msg = new ZmqMessage()) {
            sendPooled((byte) 8);
            assertTrue(pull.receive(msg, 0));
            MemorySegment dead;
            try (Arena closed = Arena.ofConfined()) {
                dead = closed.allocate(16);
            }
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> msg.set(dead));
            assertTrue(e.getMessage().contains("no longer alive"), e.getMessage());
            assertEquals(SIZE, msg.size());
            assertEquals(8, msg.data().get(ValueLayout.JAVA_BYTE, SIZE - 1));
            try (Arena mine = Arena.ofConfined()) {
                MemorySegment confinedHere = mine.allocate(16);
                onAnotherThread(() -> assertThrows(WrongThreadException.class, () -> msg.set(confinedHere)));
            }
            assertEquals(SIZE, msg.size());
            assertEquals(8, msg.data().get(ValueLayout.JAVA_BYTE, 0));
            assertEquals(1, pool.outstanding(), "still the received pooled frame");
        }
    }

    /** A frame libzmq cannot allocate (ENOMEM) leaves the message empty, its old frame freed, and ready for the next set. */
    @Test
    void shouldLeaveTheMessageEmptyAndUsableWhenTheFrameCannotBeAllocated() {
        try (ZmqMessage msg = new ZmqMessage()) {
            sendPooled((byte) 2);
            assertTrue(pull.receive(msg, 0));
            MemorySegment enormous = LibZmq.EVERYTHING.asSlice(0, 1L << 62); // never read: its copy cannot be allocated
            ZmqException e = assertThrows(ZmqException.class, () -> msg.set(enormous));
            assertEquals(LibZmq.ENOMEM, e.errno());
            assertEquals(0, msg.size());
            assertEquals(0, pool.outstanding(), "the previous frame is freed");
            msg.set(MemorySegment.ofArray(new byte[] {1, 2, 3}));
            assertArrayEquals(new byte[] {1, 2, 3}, msg.toByteArray());
        }
    }

    @Test
    void shouldDropThePreviousFrameOnAWouldBlockReceive() {
        try (ZmqMessage msg = new ZmqMessage()) {
            sendPooled((byte) 3);
            assertTrue(pull.receive(msg, 0));
            assertEquals(1, pool.outstanding());
            assertFalse(pull.receive(msg, ZmqSocket.DONTWAIT));
            assertEquals(0, msg.size(), "libzmq freed the previous frame before it found nothing to receive");
            assertEquals(0, pool.outstanding());
        }
    }

    /**
     * The edges the class comment promises: the next receive ends the previous frame's view and
     * gives its pooled buffer back; an empty frame gives 0 bytes everywhere; a second close does
     * nothing, and after close every accessor and every earlier view throws.
     */
    @Test
    void shouldEndTheViewOnTheNextReceiveAndRefuseEverythingOnceClosed() {
        ZmqMessage msg = new ZmqMessage();
        assertEquals(0, msg.toByteArray().length);
        assertEquals(0, msg.data().byteSize());
        msg.copyTo(MemorySegment.ofArray(new byte[0]), 0);
        sendPooled((byte) 1);
        sendPooled((byte) 2);
        assertTrue(pull.receive(msg, 0));
        MemorySegment first = msg.data();
        assertTrue(pull.receive(msg, 0));
        assertThrows(IllegalStateException.class, () -> first.get(ValueLayout.JAVA_BYTE, 0));
        assertEquals(1, pool.outstanding(), "the first frame's buffer is back, the second's is in msg");
        MemorySegment second = msg.data();
        assertEquals(2, second.get(ValueLayout.JAVA_BYTE, SIZE - 1));
        msg.close();
        msg.close();
        assertEquals(0, pool.outstanding());
        assertThrows(IllegalStateException.class, () -> second.get(ValueLayout.JAVA_BYTE, 0));
        List<Consumer<ZmqMessage>> uses = List.of(ZmqMessage::size, ZmqMessage::hasMore, ZmqMessage::data,
                ZmqMessage::address, ZmqMessage::toByteArray, ZmqMessage::clear,
                m -> m.copyTo(MemorySegment.ofArray(new byte[0]), 0), m -> m.set(MemorySegment.ofArray(new byte[1])));
        for (var use : uses) {
            assertEquals("message is closed", assertThrows(IllegalStateException.class, () -> use.accept(msg)).getMessage());
        }
    }

    /**
     * A copy or move from a closed message names the closed one: until 2026-11-29 both
     * {@code a.copyFrom(closed)} and {@code closed.copyFrom(a)} said only "message is closed", so
     * the caller could not tell whether the message it called or the one it passed was at fault.
     */
    @Test
    void shouldNameTheClosedSourceOfACopyOrMove() {
        try (ZmqMessage open = new ZmqMessage()) {
            open.set(MemorySegment.ofArray(new byte[] {1, 2, 3}));
            ZmqMessage closed = new ZmqMessage();
            closed.close();
            assertEquals("src is closed: the message to copy from (this message is unchanged)",
                    assertThrows(IllegalStateException.class, () -> open.copyFrom(closed)).getMessage());
            assertEquals("src is closed: the message to move from (this message is unchanged)",
                    assertThrows(IllegalStateException.class, () -> open.moveFrom(closed)).getMessage());
            assertEquals("message is closed", assertThrows(IllegalStateException.class, () -> closed.copyFrom(open)).getMessage());
            assertEquals("message is closed", assertThrows(IllegalStateException.class, () -> closed.moveFrom(open)).getMessage());
            assertArrayEquals(new byte[] {1, 2, 3}, open.toByteArray(), "the open message keeps its frame");
        }
    }

    /**
     * README "Ownership and view lifetimes": copyFrom shares the frame, with no payload copy above
     * 33 bytes; a frame of 33 bytes or less libzmq keeps inside the zmq_msg_t, so its copy has bytes
     * of its own.
     */
    @Test
    void shouldShareAFrameAbove33BytesOnCopyAndCopyTheSmallerOnes() {
        try (Arena arena = Arena.ofConfined(); ZmqMessage src = new ZmqMessage(); ZmqMessage copy = new ZmqMessage()) {
            for (int size : new int[] {1, 33, 34, 1000}) {
                src.set(arena.allocate(size).fill((byte) size));
                copy.copyFrom(src);
                assertEquals(size, copy.size());
                assertArrayEquals(src.toByteArray(), copy.toByteArray());
                if (size > 33) {
                    assertEquals(src.address(), copy.address(), "size=" + size + ": shared, not copied");
                } else {
                    assertNotEquals(src.address(), copy.address(), "size=" + size + ": copied into the zmq_msg_t");
                }
            }
        }
    }
}
