package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.zmqzstd.codec.internal.LibZstd;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Native scratch memory of one compressor or decompressor, allocated once on first need: the
 * {@code ZSTD_inBuffer}/{@code ZSTD_outBuffer} structs and two chunk buffers that heap data is
 * copied through. Owned by that compressor or decompressor and freed by its {@code close()}.
 *
 * <pre>
 * struct ZSTD_inBuffer  { const void* src; size_t size; size_t pos; }   24 bytes
 * struct ZSTD_outBuffer {       void* dst; size_t size; size_t pos; }   24 bytes
 * </pre>
 */
final class StreamBuffers implements AutoCloseable {

    /** Chunk size: above zstd's recommended stream sizes (128 KiB in, about 128 KiB out). */
    static final int SCRATCH_BYTES = 256 * 1024;

    private static final long SRC = 0;
    private static final long SIZE = 8;
    private static final long POS = 16;

    // Shared, not confined: the owner may be handed from one thread to another. Created and
    // closed once per owner, never per message.
    private final Arena arena = Arena.ofShared();
    private final MemorySegment in;
    private final MemorySegment out;
    final long inStruct;
    final long outStruct;
    final MemorySegment scratchIn;
    final MemorySegment scratchOut;
    final long scratchInAddress;
    final long scratchOutAddress;
    /** See {@link #heapChunk()}; null until the first stream over the owner. */
    private byte[] heapChunk;

    StreamBuffers() {
        in = arena.allocate(24, 8);
        out = arena.allocate(24, 8);
        inStruct = in.address();
        outStruct = out.address();
        scratchIn = arena.allocate(SCRATCH_BYTES, 16);
        scratchOut = arena.allocate(SCRATCH_BYTES, 16);
        scratchInAddress = scratchIn.address();
        scratchOutAddress = scratchOut.address();
        LibZstd.LIVE_SCRATCH.incrementAndGet();
    }

    void setIn(long address, long size) {
        in.set(JAVA_LONG, SRC, address);
        in.set(JAVA_LONG, SIZE, size);
        in.set(JAVA_LONG, POS, 0);
    }

    long inPos() {
        return in.get(JAVA_LONG, POS);
    }

    /** Marks {@code n} more input bytes as read (the caller skipped them). */
    void skipIn(long n) {
        in.set(JAVA_LONG, POS, inPos() + n);
    }

    long inSize() {
        return in.get(JAVA_LONG, SIZE);
    }

    /** Points the output at the whole of {@link #scratchOut}. */
    void setOutToScratch() {
        setOut(scratchOutAddress, SCRATCH_BYTES);
    }

    /** Points the output at {@code size} bytes from {@code address}. */
    void setOut(long address, long size) {
        out.set(JAVA_LONG, SRC, address);
        out.set(JAVA_LONG, SIZE, size);
        out.set(JAVA_LONG, POS, 0);
    }

    /** Copies heap data into {@link #scratchIn} so zstd can read it; the scratch's address. */
    long stageIn(MemorySegment src, long offset, long length) {
        MemorySegment.copy(src, offset, scratchIn, 0, length);
        return scratchInAddress;
    }

    /**
     * The address of {@link #scratchOut}, where a one-shot call writes a result bound for
     * {@code dst[offset, offset + capacity)}, after checking that range.
     */
    long outputScratch(MemorySegment dst, long offset, long capacity) {
        Segments.check(dst, offset, capacity);
        return scratchOutAddress;
    }

    /**
     * The heap array of {@link #SCRATCH_BYTES} through which a {@link ZstdOutputStream} hands the
     * scratch's output to its sink, or a {@link ZstdInputStream} takes its source's bytes into the
     * scratch: made for the first stream over the owner and kept with the scratch, so that a
     * stream over a borrowed compressor or decompressor allocates none of it (before 2026-11-29
     * each stream made its own 256 KiB array). One stream at a time uses an owner, as its
     * scratch: a newer one takes it over (the owner's {@code stream}). A sink or source is handed
     * this array itself and must not keep it. Called inside the owner's guard.
     */
    byte[] heapChunk() {
        byte[] chunk = heapChunk;
        if (chunk == null) {
            heapChunk = chunk = new byte[SCRATCH_BYTES];
        }
        return chunk;
    }

    /**
     * What a stream's call throws when its owner ({@code "compressor"}, {@code "decompressor"})
     * was used for something else since the stream's last call: a one-call {@code oneCall}, or a
     * newer stream over it. That use began its own frame in the context and the scratch, so this
     * stream's frame, or what it held of its input and content, is lost; going on would mix the
     * two (wrong bytes without an error, or a crash inside libzstd: a one-call compression between
     * a stream's writes left its context's stream buffers behind). Error path only.
     */
    static IllegalStateException takenOver(String owner, String oneCall, Object holder) {
        String by = holder == null ? "a one-call " + oneCall + " (or a stream since closed)" : "another " + holder.getClass().getSimpleName();
        return new IllegalStateException(owner + " was used by " + by + " while this stream was open, so its "
                + owner + " no longer holds this stream's frame: the stream cannot go on (a borrowed " + owner
                + " serves one stream at a time, and nothing else until that stream is closed)");
    }

    long outPos() {
        return out.get(JAVA_LONG, POS);
    }

    @Override
    public void close() {
        arena.close();
        LibZstd.LIVE_SCRATCH.decrementAndGet();
    }
}
