package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pool closed while a channel operation on another thread reads or writes one of its buffers
 * through {@code segment().asByteBuffer()}: the JDK holds the slabs' arena for the length of the
 * operation and refuses to close it, so close() must say so and free the memory on a later call,
 * neither freeing it under the operation nor forgetting it.
 */
@Timeout(30)
class PoolCloseUnderChannelIoTest {

    /** More than a Linux pipe holds (64 KiB), so the write blocks until the test drains the pipe. */
    private static final int BUFFER_BYTES = 1 << 20;

    @Test
    void shouldRefuseToFreeMemoryABlockedPipeWriteReadsAndFreeItOnALaterClose() throws Exception {
        NativeBufferPool pool = new NativeBufferPool();
        PooledBuffer b = pool.rent(BUFFER_BYTES);
        MemorySegment memory = b.segment();
        closeUnderBlockedWrite(memory, (byte) 7, pool::close, () -> {
            assertTrue(pool.isClosed());
            assertThrows(IllegalStateException.class, () -> pool.rent(1));
        });
        b.release();
        pool.close(); // the write is over: this one frees the slabs
        assertFalse(memory.scope().isAlive(), "the slabs were never freed after the channel write ended");
        pool.close(); // and stays idempotent
    }

    @Test
    void shouldFreeMemoryOnALaterCloseWhenTheLastZeroCopyBufferCameBackDuringAChannelRead() throws Exception {
        NativeBufferPool pool = new NativeBufferPool();
        ZmqMessage msg = new ZmqMessage();
        try (ZmqContext ctx = ZmqContext.builder().bufferPool(pool).build()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            PooledBuffer sent = pool.rent(4096);
            assertTrue(push.sendPooled(sent, 4096, 0)); // inproc, >= 512 B: zero-copy
            assertTrue(pull.receive(msg, 0));           // msg holds the pool's buffer
        }
        PooledBuffer b = pool.rent(BUFFER_BYTES);
        MemorySegment memory = b.segment();
        Pipe pipe = Pipe.open();
        try (Pipe.SinkChannel sink = pipe.sink(); Pipe.SourceChannel source = pipe.source()) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicReference<Integer> read = new AtomicReference<>();
            Thread reader = BlockedCalls.start("read0", thrown, () -> read.set(source.read(memory.asByteBuffer())));

            pool.close(); // libzmq holds a buffer: the memory is kept, as before
            msg.close();  // the last buffer comes back while the read holds the arena
            assertEquals(0, pool.stats().inFlight());
            assertTrue(memory.scope().isAlive(), "memory freed under a running channel read");

            sink.write(ByteBuffer.wrap(new byte[] {42}));
            reader.join();
            assertNull(thrown.get(), () -> "the read failed: " + thrown.get());
            assertEquals(1, read.get());
            assertEquals(42, memory.get(ValueLayout.JAVA_BYTE, 0));
        }
        b.release();
        pool.close();
        assertFalse(memory.scope().isAlive(), "the slabs were never freed after the channel read ended");
    }

    /**
     * A context's own pool under a channel write: close() throws, as documented, and a later
     * close() frees the memory. Until 2026-11-29 that later close() returned at once, the context
     * being marked closed, and the memory stayed until bufferPool().close().
     */
    @Test
    void shouldFreeAnOwnedPoolsMemoryOnALaterContextClose() throws Exception {
        ZmqContext ctx = new ZmqContext();
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        NativeBufferPool pool = ctx.bufferPool();
        PooledBuffer b = pool.rent(BUFFER_BYTES);
        MemorySegment memory = b.segment();
        closeUnderBlockedWrite(memory, (byte) 9, ctx::close, () -> {
            assertTrue(ctx.isClosed());
            assertTrue(push.isClosed());
            assertTrue(pool.isClosed());
        });
        b.release();
        ctx.close(); // the write is over: this one does what the first could not
        assertFalse(memory.scope().isAlive(), "a later ZmqContext.close() left its own pool's memory unfreed");
        ctx.close(); // and stays idempotent
    }

    /**
     * Fills {@code memory} with {@code fill} and writes it to a pipe from another thread, a write
     * that blocks until the pipe is drained; meanwhile {@code close} must throw the pool's "in use
     * by an I/O operation" and leave the memory alive, and {@code whileBlocked} checks the rest.
     * Then the pipe is drained, every byte checked, and the write must have ended well.
     */
    private static void closeUnderBlockedWrite(MemorySegment memory, byte fill, Executable close, Runnable whileBlocked)
            throws Exception {
        memory.fill(fill);
        Pipe pipe = Pipe.open();
        try (Pipe.SinkChannel sink = pipe.sink(); Pipe.SourceChannel source = pipe.source()) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread writer = BlockedCalls.start("write0", thrown, () -> {
                ByteBuffer view = memory.asByteBuffer();
                while (view.hasRemaining()) {
                    sink.write(view);
                }
            });

            IllegalStateException e = assertThrows(IllegalStateException.class, close);
            assertTrue(e.getMessage().contains("in use by an I/O operation"), e.getMessage());
            assertTrue(memory.scope().isAlive(), "memory freed under a running channel write");
            whileBlocked.run();

            assertEquals(BUFFER_BYTES, drainAndCheck(source, fill));
            writer.join();
            assertNull(thrown.get(), () -> "the write failed: " + thrown.get());
        }
    }

    /** Reads the writer's BUFFER_BYTES, checking that each is {@code expected}. */
    private static long drainAndCheck(Pipe.SourceChannel source, byte expected) throws Exception {
        ByteBuffer in = ByteBuffer.allocate(64 << 10);
        long total = 0;
        while (total < BUFFER_BYTES) {
            in.clear();
            int n = source.read(in);
            for (int i = 0; i < n; i++) {
                assertEquals(expected, in.get(i), "byte " + (total + i));
            }
            total += n;
        }
        return total;
    }
}
