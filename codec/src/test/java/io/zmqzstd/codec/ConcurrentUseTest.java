package io.zmqzstd.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.testkit.ForkedJvm;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A compressor or decompressor is for one thread at a time, and the codec passes its context and
 * scratch memory to libzstd by raw address. Before the guard, a second thread's calls on a busy
 * compressor got "Src size is incorrect" or "Allocation error" and the first thread wrong frames,
 * and a close() on another thread freed the context under a running compression: the JVM died of
 * SIGSEGV. Now the second call is refused before it touches anything, the call inside goes on, and
 * close waits for it.
 */
class ConcurrentUseTest {

    /**
     * Long enough at level 19 (about a second on one core) that the other thread, which starts
     * calling as the compression starts, is sure to meet it.
     */
    private static final int LONG_INPUT_BYTES = 1 << 20;

    @Test
    @Timeout(120)
    void shouldRefuseACompressorCallWhileAnotherThreadIsInOne() throws Exception {
        byte[] input = TestData.text(LONG_INPUT_BYTES, 1);
        byte[] small = TestData.text(1000, 2);
        try (ZstdCompressor c = new ZstdCompressor(19); ZstdDecompressor d = new ZstdDecompressor()) {
            CompletableFuture<byte[]> inside = onAnotherThread(() -> c.compress(input));
            IllegalStateException refused = refusedWhile(inside::isDone, () -> c.compress(small));
            assertTrue(refused.getMessage().contains("compressor used by two threads at once"), refused.getMessage());
            assertArrayEquals(input, d.decompress(inside.get()), "the call inside went on undisturbed");
            assertArrayEquals(small, d.decompress(c.compress(small)), "usable again once the other call returned");
        }
    }

    @Test
    @Timeout(120)
    void shouldRefuseADecompressorCallWhileAnotherThreadIsInOne() throws Exception {
        byte[] content = TestData.text(32 << 20, 3);
        byte[] frame;
        byte[] small;
        try (ZstdCompressor c = new ZstdCompressor(1)) {
            frame = c.compress(content);
            small = c.compress(TestData.text(1000, 4));
        }
        try (ZstdDecompressor d = new ZstdDecompressor(); Arena arena = Arena.ofShared()) {
            MemorySegment out = arena.allocate(content.length);
            MemorySegment in = arena.allocate(frame.length);
            MemorySegment.copy(frame, 0, in, ValueLayout.JAVA_BYTE, 0, frame.length);
            for (int round = 0; ; round++) {
                CompletableFuture<Long> inside = onAnotherThread(() -> d.decompress(in, out));
                IllegalStateException refused = refusedOrNull(inside::isDone, () -> d.decompress(small));
                assertEquals(content.length, inside.get(), "the call inside went on undisturbed");
                if (refused != null) {
                    assertTrue(refused.getMessage().contains("decompressor used by two threads at once"), refused.getMessage());
                    break;
                }
                // 32 MiB decode in tens of ms: a busy machine may run the whole call before this thread looks
                assertTrue(round < 20, "no call was ever refused in 20 rounds");
            }
            assertArrayEquals(content, out.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(1000, d.decompress(small).length, "usable again once the other call returned");
        }
    }

    @Test
    @Timeout(120)
    void shouldRefuseAStreamCallWhileAnotherThreadIsInACallOnItsCompressor() throws Exception {
        byte[] input = TestData.text(LONG_INPUT_BYTES, 5);
        try (ZstdCompressor c = new ZstdCompressor(19)) {
            ZstdOutputStream out = new ZstdOutputStream(new ByteArrayOutputStream(), c);
            CompletableFuture<byte[]> inside = onAnotherThread(() -> c.compress(input));
            IOException failed = null;
            while (failed == null && !inside.isDone()) {
                try {
                    out.write(1);
                    out.flush();
                } catch (IllegalStateException e) {
                    assertTrue(e.getMessage().contains("compressor used by two threads at once"), e.getMessage());
                    failed = assertThrows(IOException.class, () -> out.write(1), "the stream failed: it takes nothing more");
                }
            }
            assertTrue(failed != null, "the stream's calls were never refused while the compressor was busy");
            assertThrows(IOException.class, out::close, "a failed stream ends no frame");
            assertTrue(inside.get().length > 0);
        }
    }

    /**
     * A stream's sink that closes the stream's compressor, a source that calls its decompressor:
     * the thread is inside a call on it. With a guard that knew no threads, the close waited for
     * its own call for ever; without one, it freed the context under the stream's next step.
     */
    @Test
    @Timeout(60)
    void shouldRefuseACloseOrCallFromInsideAStreamsOwnCall() throws Exception {
        byte[] content = TestData.text(10_000, 9);
        try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
            OutputStream closing = new OutputStream() {
                @Override
                public void write(int b) {
                    c.close();
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    c.close();
                }
            };
            ZstdOutputStream out = new ZstdOutputStream(closing, c);
            out.write(content);
            IllegalStateException e = assertThrows(IllegalStateException.class, out::flush);
            assertEquals("compressor closed from inside a call on it (a stream's source or sink, say): thread="
                    + Thread.currentThread().getName() + "; close it once that call has returned", e.getMessage());
            assertThrows(IOException.class, () -> out.write(1), "the stream failed: it takes nothing more");
            assertArrayEquals(content, d.decompress(c.compress(content)), "the compressor is open and ready");

            byte[] frame = c.compress(content);
            InputStream calling = new InputStream() {
                private int at;

                @Override
                public int read() {
                    throw new UnsupportedOperationException();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    d.decompress(frame); // the stream's decompressor, from inside the stream's read
                    int n = Math.min(len, frame.length - at);
                    System.arraycopy(frame, at, b, off, n);
                    at += n;
                    return n == 0 ? -1 : n;
                }
            };
            ZstdInputStream in = new ZstdInputStream(calling, d);
            IllegalStateException again = assertThrows(IllegalStateException.class, in::read);
            assertTrue(again.getMessage().startsWith("decompressor used again from inside a call on it"), again.getMessage());
            assertArrayEquals(content, d.decompress(frame), "the decompressor is ready");
        }
    }

    /**
     * README, Threads, with a call held inside on purpose (a stream's read whose source waits): a
     * second thread's call is refused naming both threads; {@code close()} on a third waits for
     * the call inside, an interrupt (before the close and during its wait) does not end the wait
     * and is still set when it returns; a call that begins meanwhile throws "decompressor is
     * closed"; the call inside goes on, and the close frees what it waited for.
     */
    @Test
    @Timeout(30)
    void shouldWaitThroughAnInterruptWhenClosedDuringACallAndLeaveItSet() throws Exception {
        byte[] content = TestData.text(10_000, 3);
        byte[] frame;
        try (ZstdCompressor c = new ZstdCompressor(3)) {
            frame = c.compress(content);
        }
        long live = LibZstd.liveNativeObjects();
        CountDownLatch inRead = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        InputStream waitingSource = new ByteArrayInputStream(frame) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                inRead.countDown();
                awaitUninterruptibly(release);
                return super.read(b, off, len);
            }
        };
        ZstdDecompressor d = new ZstdDecompressor();
        CompletableFuture<Integer> firstByte = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (ZstdInputStream in = new ZstdInputStream(waitingSource, d)) {
                firstByte.complete(in.read());
            } catch (Throwable e) {
                firstByte.completeExceptionally(e);
            }
        }, "claims-reader");
        reader.start();
        inRead.await();

        IllegalStateException twoThreads = assertThrows(IllegalStateException.class, () -> d.decompress(frame));
        assertTrue(twoThreads.getMessage().startsWith("decompressor used by two threads at once: ")
                && twoThreads.getMessage().contains("thread=" + Thread.currentThread().getName()
                        + ", while in a call on thread=claims-reader"), twoThreads.getMessage());

        AtomicBoolean interruptedAfterClose = new AtomicBoolean();
        Thread closer = new Thread(() -> {
            Thread.currentThread().interrupt();
            d.close();
            interruptedAfterClose.set(Thread.currentThread().isInterrupted());
        }, "claims-closer");
        closer.start();
        while (closer.getState() != Thread.State.TIMED_WAITING) { // parked in the close's wait
            assertTrue(closer.isAlive(), "the close returned while the read was inside");
            Thread.onSpinWait();
        }
        assertEquals("decompressor is closed",
                assertThrows(IllegalStateException.class, () -> d.decompress(frame)).getMessage(), "a call begun meanwhile");
        closer.interrupt();
        closer.join(200); // a bound for what must not happen: the interrupt ending the wait
        assertTrue(closer.isAlive(), "an interrupt ended the close's wait while the read was inside");

        release.countDown();
        assertEquals(content[0] & 0xFF, firstByte.get(), "the call inside went on");
        closer.join();
        reader.join();
        assertTrue(interruptedAfterClose.get(), "the interrupt is still set when close returns");
        assertEquals("decompressor is closed",
                assertThrows(IllegalStateException.class, () -> d.decompress(frame)).getMessage());
        assertEquals(live, LibZstd.liveNativeObjects(), "the close freed what it waited for");
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The close itself runs in a child JVM: on the old code it crashed the process.
     */
    @Test
    void shouldWaitForACallInProgressWhenClosedOnAnotherThread() throws Exception {
        String out = ForkedJvm.run(CloseDuringCall.class, List.of());
        assertTrue(out.contains("compressor closed after its call: ok"), out);
        assertTrue(out.contains("decompressor closed after its call: ok"), out);
    }

    /** Child JVM of {@link #shouldWaitForACallInProgressWhenClosedOnAnotherThread}. */
    static final class CloseDuringCall {
        public static void main(String[] args) throws Exception {
            byte[] input = TestData.text(LONG_INPUT_BYTES, 6);
            byte[] small = TestData.text(100, 7);
            byte[] smallFrame;
            long live = LibZstd.liveNativeObjects();
            ZstdCompressor c = new ZstdCompressor(19);
            CompletableFuture<byte[]> inside = onAnotherThread(() -> c.compress(input));
            refusedWhile(inside::isDone, () -> c.compress(small)); // the call is inside libzstd now
            c.close();
            check(inside.isDone(), "close returned before the call on the other thread");
            byte[] frame = inside.get();
            try (ZstdDecompressor d = new ZstdDecompressor()) {
                check(java.util.Arrays.equals(input, d.decompress(frame)), "the frame of the call closed under is wrong");
            }
            IllegalStateException closed = assertThrows(IllegalStateException.class, () -> c.compress(small));
            check(closed.getMessage().equals("compressor is closed"), closed.getMessage());
            System.out.println("compressor closed after its call: ok");

            byte[] content = TestData.text(32 << 20, 8);
            byte[] big;
            try (ZstdCompressor fast = new ZstdCompressor(1)) {
                big = fast.compress(content);
                smallFrame = fast.compress(small);
            }
            try (Arena arena = Arena.ofShared()) {
                MemorySegment out = arena.allocate(content.length);
                for (int round = 0; ; round++) {
                    ZstdDecompressor d = new ZstdDecompressor();
                    CompletableFuture<Long> decoded = onAnotherThread(() -> d.decompress(MemorySegment.ofArray(big), out));
                    boolean met = refusedOrNull(decoded::isDone, () -> d.decompress(smallFrame)) != null;
                    d.close();
                    check(decoded.isDone(), "close returned before the decompression on the other thread");
                    check(decoded.get() == content.length, "the decompression closed under returned " + decoded.get());
                    if (met) {
                        break;
                    }
                    check(round < 20, "never met the decompression inside in 20 rounds");
                }
                check(java.util.Arrays.equals(content, out.toArray(ValueLayout.JAVA_BYTE)), "content wrong");
            }
            check(LibZstd.liveNativeObjects() == live, "native objects left: " + (LibZstd.liveNativeObjects() - live));
            System.out.println("decompressor closed after its call: ok");
        }

        private static void check(boolean ok, String message) {
            if (!ok) {
                throw new AssertionError(message);
            }
        }
    }

    /**
     * A stream made over a compressor or decompressor that another thread closes meanwhile. The
     * stream's constructor took the owner's scratch memory before it entered the guard: the first
     * allocation passed the open check, the close freed the scratch it found (none yet), and the
     * new scratch was then recorded on a closed owner and never freed, 512 KiB each time (on the
     * old code 88 of the 600 owners closed here were left with one). The close comes 0 to 63 microseconds after the
     * constructor starts, a different moment each round, across that allocation. In a child JVM,
     * whose scratch count no owner of another test can change.
     */
    @Test
    @Timeout(120)
    void shouldLeaveNoScratchBehindWhenAStreamIsMadeWhileItsContextIsClosed() throws Exception {
        String out = ForkedJvm.run(StreamMadeDuringClose.class, List.of());
        assertTrue(out.contains("scratch left: 0 of "), out);
    }

    /** Child JVM of {@link #shouldLeaveNoScratchBehindWhenAStreamIsMadeWhileItsContextIsClosed}. */
    static final class StreamMadeDuringClose {
        private static final int ROUNDS = 300;

        public static void main(String[] args) throws Exception {
            long before = LibZstd.LIVE_SCRATCH.get();
            AtomicReference<Runnable> close = new AtomicReference<>();
            AtomicBoolean go = new AtomicBoolean();
            Semaphore closed = new Semaphore(0);
            Thread closer = Thread.ofPlatform().daemon().start(() -> {
                for (int i = 0; ; i++) {
                    while (!go.compareAndSet(true, false)) {
                        Thread.onSpinWait();
                    }
                    // a delay, not a synchronisation: it moves the close across the constructor
                    long at = System.nanoTime() + (i % 64) * 1000L;
                    while (System.nanoTime() < at) {
                        Thread.onSpinWait();
                    }
                    close.get().run();
                    closed.release();
                }
            });
            for (int i = 0; i < ROUNDS; i++) {
                ZstdDecompressor d = new ZstdDecompressor();
                makeWhileClosed(go, closed, close, d::close, () -> new ZstdInputStream(InputStream.nullInputStream(), d));
                ZstdCompressor c = new ZstdCompressor(1);
                makeWhileClosed(go, closed, close, c::close, () -> new ZstdOutputStream(OutputStream.nullOutputStream(), c));
            }
            System.out.println("scratch left: " + (LibZstd.LIVE_SCRATCH.get() - before) + " of " + 2 * ROUNDS + " closed owners");
            closer.interrupt();
        }

        private static void makeWhileClosed(AtomicBoolean go, Semaphore closed, AtomicReference<Runnable> close,
                                            Runnable closeOwner, Supplier<?> makeStream) throws InterruptedException {
            close.set(closeOwner);
            go.set(true);
            try {
                makeStream.get();
            } catch (IllegalStateException e) {
                if (!e.getMessage().endsWith("is closed")) {
                    throw e;
                }
            }
            closed.acquire();
        }
    }

    /**
     * Runs {@code call} on another thread, again whenever it is refused because this thread's own
     * probing call was inside at that moment, so that it does get in.
     */
    static <T> CompletableFuture<T> onAnotherThread(Supplier<T> call) {
        return CompletableFuture.supplyAsync(() -> {
            while (true) {
                try {
                    return call.get();
                } catch (IllegalStateException e) {
                    if (!e.getMessage().contains("used by two threads at once")) {
                        throw e;
                    }
                }
            }
        });
    }

    /** Calls {@code call} until it is refused as a concurrent use; fails if {@code done} first. */
    static IllegalStateException refusedWhile(BooleanSupplier done, Runnable call) {
        IllegalStateException e = refusedOrNull(done, call);
        if (e == null) {
            throw new AssertionError("no call was refused while another thread was in one");
        }
        return e;
    }

    /** Calls {@code call} until it is refused as a concurrent use (returned), or {@code done} (null). */
    static IllegalStateException refusedOrNull(BooleanSupplier done, Runnable call) {
        while (!done.getAsBoolean()) {
            try {
                call.run();
            } catch (IllegalStateException e) {
                return e;
            }
        }
        return null;
    }
}
