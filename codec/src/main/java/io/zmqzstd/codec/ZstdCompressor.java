package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.nativelib.NativeLibrary;
import io.zmqzstd.nativelib.internal.CallGuard;
import io.zmqzstd.nativelib.internal.OwnerCleaner;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.Objects;

/**
 * Compresses whole payloads into single standard zstd frames, reusing one native compression
 * context ({@code ZSTD_CCtx}). Every frame carries its content size; it carries a checksum when
 * asked and the dictionary ID when a dictionary is used, unless
 * {@link Builder#dictionaryIdInFrame(boolean)} leaves it out.
 *
 * <p>Not thread-safe: like a socket, one compressor belongs to one thread at a time. Use one per
 * thread; hand it over only with a happens-before edge. A call made while another thread is in
 * one on the same compressor is refused with {@link IllegalStateException} before it touches
 * anything, and the call inside goes on; {@link #close()} on another thread waits for a call in
 * progress to return before it frees the context.
 *
 * <p>The {@code MemorySegment} methods allocate nothing on the Java heap, whether the segments
 * are native or on the heap. Heap data never goes to zstd in place: it is copied through this
 * compressor's native scratch buffers (in one piece up to {@value #ONE_SHOT_HEAP_MAX_INPUT_BYTES}
 * bytes of input, in chunks above), so no compression runs as a critical call that would hold
 * off the GC, at any level or with any dictionary.
 *
 * <p>The compressor owns its context, its digested dictionary (CDict) and its scratch memory;
 * {@link #close()} frees them all. Closing is idempotent; any other call after it throws
 * {@link IllegalStateException}. A compressor dropped without closing is freed when it becomes
 * unreachable, with a warning (logger {@code io.zmqzstd.codec}); that is a safety net, not a
 * substitute for closing.
 */
public final class ZstdCompressor implements AutoCloseable {

    /** The level zstd uses by default. */
    public static final int DEFAULT_LEVEL = 3;

    /**
     * With a heap segment on either side, inputs up to this size are compressed in one call
     * ({@code ZSTD_compressCCtx} or {@code ZSTD_compress2}) through the native scratch buffers:
     * their frame always fits the output scratch ({@code compressBound(128 KiB)} is 128 KiB +
     * 576 B). Larger ones stream in chunks. The copy is a memcpy, small next to compressing the
     * same bytes, and buys a normal (non-critical) downcall and no slice object per call.
     */
    static final long ONE_SHOT_HEAP_MAX_INPUT_BYTES = StreamBuffers.SCRATCH_BYTES / 2;

    private final int level;
    /**
     * Level only (no checksum, dictionary or workers): the one-shot path then calls
     * {@code ZSTD_compressCCtx}, which writes the same frame as {@code ZSTD_compress2} with
     * less setup per call (about 5 % of a 64-byte compression, {@code CodecOverhead}).
     */
    private final boolean levelOnly;
    /** The parameters the context is given, kept to give them again to a new one ({@link #replaceContext}). */
    private final boolean checksumFlag;
    private final boolean dictIdFlag;
    private final int workers;
    /**
     * A frame begun on a context with workers that has not been ended: set before each libzstd call
     * that begins or continues one, cleared when it ends. {@link #reset()} replaces such a context
     * instead of resetting it: libzstd 1.5.4's multithreaded context, reused after a frame it
     * began was abandoned (a destination too small, a stream's failed sink), crashes the process
     * (SIGSEGV in a worker thread, {@code pthread_mutex_lock} of a NULL mutex), a session reset or
     * even a full reset in between. Always false without workers.
     */
    private boolean frameOpen;
    /** The context, for the calls; 0 after close. {@link #resources} frees it. */
    private long cctx;
    private StreamBuffers buffers;
    /**
     * The {@link ZstdOutputStream} whose frame the context holds between its calls, or null: a
     * one-call compression or a newer stream takes the context over, and that stream's next call
     * then finds another here and refuses ({@link StreamBuffers#takenOver}) instead of going on
     * with a frame the context no longer holds. Inside the guard only; null once the stream is
     * closed ({@link #release}) or this compressor is.
     */
    Object stream;
    private boolean closed;
    private final CallGuard guard = new CallGuard("compressor", null, "a stream's source or sink");
    private final Unclosed.Resources resources = new Unclosed.Resources("ZstdCompressor", LibZstd.FREE_CCTX,
            LibZstd.LIVE_CCTX, ZstdDictionary::freeCDict);
    private final Cleaner.Cleanable cleanable;

    /** Options for a compressor; {@link #build()} makes one. */
    public static final class Builder {
        private int level = DEFAULT_LEVEL;
        private boolean checksum;
        private ZstdDictionary dictionary;
        private boolean dictionaryIdInFrame = true;
        private int workers;

        private Builder() {
        }

        /**
         * Compression level: negative (fastest) to 22; 0 means the default (3).
         *
         * @param level the level; zstd clamps a value outside its range to the nearest bound
         * @return this builder
         */
        public Builder level(int level) {
            this.level = level;
            return this;
        }

        /**
         * Whether frames end with a 4-byte content checksum (default off).
         *
         * @param checksum {@code true} to add the checksum
         * @return this builder
         */
        public Builder checksum(boolean checksum) {
            this.checksum = checksum;
            return this;
        }

        /**
         * Compress with this dictionary; the compressor digests its own copy. With a raw-content
         * dictionary (ID 0) frames always carry a checksum: they cannot name their dictionary, so
         * a receiver holding none or the wrong one could otherwise return wrong bytes without
         * error; with the checksum it reports {@code CHECKSUM} or {@code CORRUPT}.
         *
         * @param dictionary the dictionary, still the caller's; {@code null} for none (the
         *     default)
         * @return this builder
         */
        public Builder dictionary(ZstdDictionary dictionary) {
            this.dictionary = dictionary;
            return this;
        }

        /**
         * Whether frames made with the {@link #dictionary(ZstdDictionary) dictionary} carry its
         * 4-byte ID (default {@code true}; {@code false} is libzstd's {@code ZSTD_c_dictIDFlag=0},
         * {@code zstd --no-dictID}). Leaving it out saves up to 4 bytes a frame, which counts for
         * small messages, but the frame then names no dictionary: a decompressor decodes it only
         * with {@link ZstdDecompressor.Builder#dictionaryForFramesWithoutId(ZstdDictionary)} set to
         * this same dictionary. One without a dictionary for such frames fails on it (measured:
         * {@code DICTIONARY_MISSING} "Dictionary is corrupted", a few {@code CORRUPT}); one with
         * another dictionary there may decode it to wrong bytes without an error when the frame
         * has no checksum (the codec README, "Frames without a dictionary ID"). The checksum stays
         * as {@link #checksum(boolean)} sets it. A raw-content dictionary
         * (ID 0) has no ID to leave out: the option changes nothing there.
         *
         * @param include {@code false} to leave the ID out; {@link #build()} refuses it without a
         *     dictionary
         * @return this builder
         */
        public Builder dictionaryIdInFrame(boolean include) {
            this.dictionaryIdInFrame = include;
            return this;
        }

        /**
         * Worker threads zstd starts for large inputs (0, the default: compress on the calling
         * thread). Calls still block until the frame is complete. After a frame left unended (an
         * error, a stream dropped mid-frame) the compressor replaces its context with a new one
         * of the same settings, since libzstd 1.5.4's multithreaded context crashes the process
         * when reused after one; freeing the old context waits for its workers' jobs.
         *
         * @param workers the number of worker threads, 0 or more; {@link #build()} refuses more
         *     than libzstd runs (256 with 1.5.x on 64-bit), which libzstd would cut to its maximum
         *     without a word, and any at all with a libzstd built without multithreading
         * @return this builder
         * @throws IllegalArgumentException when {@code workers} is negative
         */
        public Builder workers(int workers) {
            if (workers < 0) {
                throw new IllegalArgumentException("workers=" + workers);
            }
            this.workers = workers;
            return this;
        }

        /**
         * A new compressor; the caller owns it and must close it.
         *
         * @return the compressor
         * @throws IllegalStateException when the dictionary given is closed
         * @throws IllegalArgumentException when {@link #workers(int)} is more than libzstd runs:
         *     more than its maximum, or more than 0 when it was built without multithreading (the
         *     message says so); or {@link #dictionaryIdInFrame(boolean)} is {@code false} without a
         *     dictionary
         * @throws ZstdException when libzstd refuses a setting or cannot digest the dictionary
         */
        public ZstdCompressor build() {
            return new ZstdCompressor(this);
        }
    }

    /**
     * Options, starting from level 3, no checksum, no dictionary, no workers.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A compressor at {@code level}, no checksum, no dictionary. The caller owns it.
     *
     * @param level the compression level, as for {@link Builder#level(int)}
     */
    public ZstdCompressor(int level) {
        this(builder().level(level));
    }

    private ZstdCompressor(Builder b) {
        this.level = b.level;
        this.levelOnly = !b.checksum && b.dictionary == null && b.workers == 0;
        this.checksumFlag = b.checksum || (b.dictionary != null && b.dictionary.id() == 0);
        this.dictIdFlag = b.dictionaryIdInFrame;
        this.workers = b.workers;
        if (!b.dictionaryIdInFrame && b.dictionary == null) {
            // Refused rather than ignored: the caller expects frames a receiver can only decode
            // with a dictionary, and would get frames made without one.
            throw new IllegalArgumentException("dictionaryIdInFrame(false) without a dictionary: there is no"
                    + " dictionary ID to leave out; set dictionary(d) or drop dictionaryIdInFrame(false)");
        }
        if (b.workers > 0) {
            // Checked before libzstd sees the count: it cuts one above its maximum to the maximum
            // without a word, and one built without multithreading says only "Unsupported parameter".
            String refused = workersRefused(b.workers, maxWorkers());
            if (refused != null) {
                throw new IllegalArgumentException(refused);
            }
        }
        cctx = createContext();
        resources.context = cctx;
        cleanable = OwnerCleaner.CLEANER.register(this, resources);
        try {
            if (b.dictionary != null) {
                resources.dictionaries = new long[] {b.dictionary.createCDict(b.level)};
            }
            applyParameters();
        } catch (Throwable t) {
            close();
            throw LibZstd.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** {@code ZSTD_createCCtx}, counted in {@link LibZstd#LIVE_CCTX}. */
    private static long createContext() {
        long created;
        try {
            created = (long) LibZstd.CREATE_CCTX.invokeExact();
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
        if (created == 0) {
            throw new OutOfMemoryError("ZSTD_createCCtx returned NULL");
        }
        LibZstd.LIVE_CCTX.incrementAndGet();
        return created;
    }

    /** Gives {@link #cctx} this compressor's parameters and digested dictionary. */
    private void applyParameters() throws Throwable {
        setParameter(LibZstd.C_COMPRESSION_LEVEL, level);
        setParameter(LibZstd.C_CHECKSUM_FLAG, checksumFlag ? 1 : 0);
        // The wire rule: every frame declares its size, so receivers can refuse it early.
        setParameter(LibZstd.C_CONTENT_SIZE_FLAG, 1);
        setParameter(LibZstd.C_DICT_ID_FLAG, dictIdFlag ? 1 : 0);
        if (workers > 0) {
            setParameter(LibZstd.C_NB_WORKERS, workers);
        }
        if (resources.dictionaries.length > 0) {
            long r = (long) LibZstd.CCTX_REF_CDICT.invokeExact(cctx, resources.dictionaries[0]);
            check("ZSTD_CCtx_refCDict", r);
        }
    }

    private void setParameter(int parameter, int value) throws Throwable {
        long r = (long) LibZstd.CCTX_SET_PARAMETER.invokeExact(cctx, parameter, value);
        if (LibZstd.isError(r)) {
            throw ZstdException.withResult(ZstdException.Reason.OTHER, "ZSTD_CCtx_setParameter failed: parameter="
                    + parameter + ", value=" + value + ", error=" + LibZstd.errorName(r), r);
        }
    }

    /**
     * The most worker threads the loaded libzstd runs ({@code ZSTD_c_nbWorkers}'s upper bound):
     * 256 for 1.5.x on 64-bit, 0 for a libzstd built without {@code ZSTD_MULTITHREAD}.
     */
    static int maxWorkers() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bounds = (MemorySegment) LibZstd.C_PARAM_GET_BOUNDS.invokeExact((SegmentAllocator) arena,
                    LibZstd.C_NB_WORKERS);
            long error = bounds.get(JAVA_LONG, LibZstd.BOUNDS.byteOffset(MemoryLayout.PathElement.groupElement("error")));
            if (LibZstd.isError(error)) {
                throw ZstdException.fromResult("ZSTD_cParam_getBounds(ZSTD_c_nbWorkers)", error);
            }
            return bounds.get(JAVA_INT, LibZstd.BOUNDS.byteOffset(MemoryLayout.PathElement.groupElement("upperBound")));
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
    }

    /**
     * Null when libzstd runs {@code workers} threads, at most {@code maxWorkers}; else why not, for
     * {@code build()} to throw. A library built without multithreading is named (its file, from
     * the process's memory map), since the fix is another build of it or no workers.
     */
    static String workersRefused(int workers, int maxWorkers) {
        if (workers <= maxWorkers) {
            return null;
        }
        if (maxWorkers == 0) {
            String library = NativeLibrary.ZSTD.file().map(f -> "libzstd at " + f).orElse("this libzstd");
            return "workers=" + workers + ": " + library + " was built without multithreading (ZSTD_c_nbWorkers max=0):"
                    + " build with workers(0), or load a libzstd built with ZSTD_MULTITHREAD (-D"
                    + NativeLibrary.ZSTD.pathProperty() + "=/path/to/libzstd.so.1)";
        }
        return "workers=" + workers + " is more than libzstd runs: max=" + maxWorkers + " (it would run " + maxWorkers
                + " without a word)";
    }

    /**
     * The largest frame a {@code srcSize}-byte input can compress to ({@code ZSTD_compressBound}).
     *
     * @param srcSize the input's size in bytes, 0 or more
     * @return the bound in bytes: a destination this large always holds the frame
     * @throws IllegalArgumentException when {@code srcSize} is negative or too large for zstd
     */
    public static long maxCompressedSize(long srcSize) {
        if (srcSize < 0) {
            throw new IllegalArgumentException("srcSize=" + srcSize);
        }
        try {
            long r = (long) LibZstd.COMPRESS_BOUND.invokeExact(srcSize);
            // r < 0: an error, or (libzstd before 1.5.5 does not check) a bound past 2^63 that wrapped
            if (r <= 0 || r < srcSize) {
                throw new IllegalArgumentException("srcSize too large for zstd: srcSize=" + srcSize);
            }
            return r;
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
    }

    /**
     * The compression level.
     *
     * @return the level as given to the builder or constructor, before zstd clamps it or
     *     takes 0 as 3
     * @throws IllegalStateException when this compressor is closed
     */
    public int level() {
        ensureOpen();
        return level;
    }

    /**
     * Compresses all of {@code src} into {@code dst} from offset 0.
     *
     * @param src the input, all of it
     * @param dst the destination, written from offset 0; all of it is available
     * @return bytes written to {@code dst}
     * @throws ZstdException {@code DESTINATION_TOO_SMALL} as
     *     {@link #compress(MemorySegment, long, long, MemorySegment, long, long)}
     * @throws IllegalArgumentException when {@code dst} is read-only, or the source and destination
     *     ranges share memory ("source and destination overlap")
     * @throws IllegalStateException when this compressor is closed, or the arena of either
     *     segment is closed, or a file mapping on either side faulted (as there)
     * @throws WrongThreadException when either segment is confined to another thread (as there)
     * @see #compress(MemorySegment, long, long, MemorySegment, long, long)
     */
    public long compress(MemorySegment src, MemorySegment dst) {
        return compress(src, 0, src.byteSize(), dst, 0, dst.byteSize());
    }

    /**
     * Compresses {@code src[srcOffset, srcOffset + srcLength)} into one frame at
     * {@code dst[dstOffset, dstOffset + dstCapacity)}. The caller keeps ownership of both
     * segments; nothing refers to them after the call. No heap allocation, for native and heap
     * segments alike. The segments' arenas must stay open during the call.
     *
     * <p>A file mapping ({@link MemorySegment#isMapped()}) on either side is never given to
     * libzstd by address: a page past the end of a file shortened since it was mapped would raise
     * SIGBUS there and end the process. It is copied in Java through this compressor's scratch
     * memory, as heap data is (a source in chunks of 256 KiB above
     * {@value #ONE_SHOT_HEAP_MAX_INPUT_BYTES} bytes, the content size pledged: the same standard
     * frame), and such a fault is an {@link IllegalStateException}.
     *
     * @param src the input
     * @param srcOffset where the input starts in {@code src}, in bytes
     * @param srcLength the input's length in bytes
     * @param dst the destination
     * @param dstOffset where the frame is written in {@code dst}, in bytes
     * @param dstCapacity the bytes available at {@code dst[dstOffset]}
     * @return bytes written at {@code dst[dstOffset]}
     * @throws ZstdException {@code DESTINATION_TOO_SMALL} when the frame does not fit, or (inputs
     *     compressed in one call: native ones, heap ones up to
     *     {@value #ONE_SHOT_HEAP_MAX_INPUT_BYTES} bytes) fits with less than a few bytes to spare,
     *     which libzstd's one-call compressor wants; a capacity of {@link #maxCompressedSize(long)}
     *     always fits
     * @throws IndexOutOfBoundsException when a range is not within its segment, naming the side:
     *     "source range out of bounds: srcOffset=…, srcLength=…, byteSize=…" or "destination range
     *     …: dstOffset=…, dstCapacity=…, byteSize=…" (both, when both are)
     * @throws IllegalArgumentException when {@code dst} is read-only, or the source and destination
     *     ranges share memory ("source and destination overlap")
     * @throws IllegalStateException when this compressor is closed, or in a call on another
     *     thread, or the arena of either segment is closed ("source segment is no longer alive: …",
     *     "destination segment …"); or a file mapping on either side
     *     faulted ("src could not be read: a fault in its memory …" or "dst could not be written:
     *     …", naming the range, with the JDK's {@link InternalError} as its cause): no frame was
     *     written, and the compressor goes on
     * @throws WrongThreadException when either segment is confined to another thread than this
     *     one's ("source segment is confined to another thread than …", "destination segment …"),
     *     before libzstd is called
     */
    public long compress(MemorySegment src, long srcOffset, long srcLength,
                         MemorySegment dst, long dstOffset, long dstCapacity) {
        guard.enter();
        try {
            return compressEntered(src, srcOffset, srcLength, dst, dstOffset, dstCapacity);
        } catch (IndexOutOfBoundsException e) {
            // The JDK's range errors name neither side, nor does FFM's from the copy that alone
            // checks a heap source staged into the scratch ("Out of bound access on segment
            // MemorySegment{ kind: heap, … }"): named here, on the error path only
            throw Segments.namedRange(e, "source", src, srcOffset, srcLength, dst, dstOffset, dstCapacity);
        } catch (IllegalStateException | WrongThreadException e) {
            // A segment refused before libzstd is given its address is "segment …", of either side
            // (closed, or confined to another thread): named here, on the error path only
            throw Segments.named(Segments.named(e, src, "source segment"), dst, "destination segment");
        } finally {
            guard.exit(this);
        }
    }

    /** {@link #compress(MemorySegment, long, long, MemorySegment, long, long)} inside {@link #guard}. */
    private long compressEntered(MemorySegment src, long srcOffset, long srcLength,
                                 MemorySegment dst, long dstOffset, long dstCapacity) {
        stream = null; // the context is this call's now: a stream mid-frame refuses its next call (a store, as in decompress)
        Segments.checkWritable(dst);
        Segments.checkDisjoint(src, srcOffset, srcLength, dst, dstOffset, dstCapacity);
        if (src.isMapped() | dst.isMapped()) {
            return compressMapped(src, srcOffset, srcLength, dst, dstOffset, dstCapacity);
        }
        return compressRouted(src, srcOffset, srcLength, dst, dstOffset, dstCapacity, src.isNative(), dst.isNative());
    }

    /** What a fault in a mapping leaves, for {@link Segments#fault}. */
    private static final String FRAME_NOT_WRITTEN = "no frame was written, dst may hold part of one: the compressor goes on";

    /**
     * A file mapping on either side: never handed to libzstd by address, where a page past the end
     * of a file shortened since it was mapped raises SIGBUS and ends the process. It takes the heap
     * paths instead: a mapped source copied in Java into the scratch memory (in one piece up to
     * {@value #ONE_SHOT_HEAP_MAX_INPUT_BYTES} bytes, in chunks above, the content size pledged), a
     * mapped destination written from the scratch memory in Java, whose fault is an exception.
     */
    private long compressMapped(MemorySegment src, long srcOffset, long srcLength,
                                MemorySegment dst, long dstOffset, long dstCapacity) {
        Segments.checkUsable(src, dst);
        try {
            return compressRouted(src, srcOffset, srcLength, dst, dstOffset, dstCapacity,
                    Segments.byAddress(src), Segments.byAddress(dst));
        } catch (InternalError e) {
            reset(); // a frame begun in chunks ends here (a context with workers is replaced)
            throw Segments.fault(e, src, srcOffset, srcLength, dst, dstOffset, dstCapacity, FRAME_NOT_WRITTEN);
        }
    }

    /**
     * Compresses with {@code src} and {@code dst} given to libzstd by address when
     * {@code srcDirect} resp. {@code dstDirect}, else through the scratch memory.
     */
    private long compressRouted(MemorySegment src, long srcOffset, long srcLength,
                                MemorySegment dst, long dstOffset, long dstCapacity, boolean srcDirect, boolean dstDirect) {
        long r;
        try {
            if (!(srcDirect && dstDirect) && srcLength > ONE_SHOT_HEAP_MAX_INPUT_BYTES) {
                Segments.check(src, srcOffset, srcLength);
                Segments.check(dst, dstOffset, dstCapacity);
                return compressInChunks(src, srcOffset, srcLength, dst, dstOffset, dstCapacity, srcDirect, dstDirect);
            }
            long d = dstDirect ? Segments.address(dst, dstOffset, dstCapacity) : buffers().outputScratch(dst, dstOffset, dstCapacity);
            long s = srcDirect ? Segments.address(src, srcOffset, srcLength) : buffers().stageIn(src, srcOffset, srcLength);
            long capacity = dstDirect ? dstCapacity : Math.min(dstCapacity, StreamBuffers.SCRATCH_BYTES);
            if (levelOnly) {
                r = (long) LibZstd.COMPRESS_CCTX_RAW.invokeExact(cctx, d, capacity, s, srcLength, level);
            } else {
                if (frameOpen) {
                    reset(); // a frame left unended with workers (a stream dropped mid-frame): a new context first
                }
                frameOpen = workers > 0;
                r = (long) LibZstd.COMPRESS2_RAW.invokeExact(cctx, d, capacity, s, srcLength);
            }
            if (!dstDirect && !LibZstd.isError(r)) {
                MemorySegment.copy(buffers.scratchOut, 0, dst, dstOffset, r);
            }
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        } finally {
            Reference.reachabilityFence(src);
            Reference.reachabilityFence(dst);
            Reference.reachabilityFence(this); // the cleaner must not free the context under the call
        }
        if (LibZstd.isError(r)) {
            reset();
            if (LibZstd.errorCode(r) == LibZstd.ERR_DST_SIZE_TOO_SMALL) {
                throw destinationTooSmall(dstCapacity, srcLength, r);
            }
            throw ZstdException.fromResult(levelOnly ? "ZSTD_compressCCtx" : "ZSTD_compress2", r);
        }
        frameOpen = false;
        return r;
    }

    /**
     * {@code DESTINATION_TOO_SMALL} naming the sizes. {@code r} is the one-call compressor's error
     * result, or 0 from the chunked path. The one-call compressor writes its bit streams 8 bytes
     * at a time and refuses a destination without that much to spare past the frame (on 1.5.4 up
     * to 16 bytes were seen), even one the frame would fit exactly.
     */
    private static ZstdException destinationTooSmall(long dstCapacity, long srcLength, long r) {
        return ZstdException.withResult(ZstdException.Reason.DESTINATION_TOO_SMALL, "destination too small: capacity="
                + dstCapacity + ", srcLength=" + srcLength + " (maxCompressedSize=" + maxCompressedSize(srcLength)
                + " always fits" + (r == 0 ? ")" : "; libzstd's one-call compressor wants a few bytes past the frame)"), r);
    }

    /**
     * Large input with a heap segment or a mapping on either side: stream it, such input copied in
     * through the input scratch, output written straight into a native destination
     * ({@code direct}) or copied out of the output scratch into a heap or mapped one.
     */
    private long compressInChunks(MemorySegment src, long srcOffset, long srcLength, MemorySegment dst, long dstOffset,
                                  long dstCapacity, boolean srcDirect, boolean direct) throws Throwable {
        StreamBuffers b = buffers();
        beginFrame(srcLength);
        long consumed = 0;
        long written = 0;
        while (true) {
            long chunk;
            if (srcDirect) {
                chunk = srcLength - consumed;
                b.setIn(Segments.address(src, srcOffset + consumed, chunk), chunk);
            } else {
                chunk = Math.min(StreamBuffers.SCRATCH_BYTES, srcLength - consumed);
                b.setIn(b.stageIn(src, srcOffset + consumed, chunk), chunk);
            }
            boolean last = consumed + chunk == srcLength;
            int op = last ? LibZstd.E_END : LibZstd.E_CONTINUE;
            long remaining;
            boolean moreToDo;
            do {
                long room = dstCapacity - written;
                if (direct) {
                    b.setOut(Segments.address(dst, dstOffset + written, room), room);
                } else {
                    b.setOut(b.scratchOutAddress, Math.min(room, StreamBuffers.SCRATCH_BYTES));
                }
                remaining = streamStep(b, op);
                long produced = b.outPos();
                if (!direct) {
                    MemorySegment.copy(b.scratchOut, 0, dst, dstOffset + written, produced);
                }
                written += produced;
                moreToDo = last ? remaining != 0 : b.inPos() < chunk;
                if (moreToDo && written == dstCapacity) {
                    reset();
                    throw destinationTooSmall(dstCapacity, srcLength, 0);
                }
            } while (moreToDo);
            consumed += chunk;
            if (last) {
                return written;
            }
        }
    }

    /**
     * Compresses {@code src} into a new array of exactly the frame's length; the caller owns it.
     * The frame is written to native memory (the scratch buffer, or for large inputs a
     * temporary buffer of {@link #maxCompressedSize(long)} bytes) and copied once into the
     * result. Besides the result only a few small objects are allocated: segment wrappers, and
     * above 128 KiB of input the call's confined arena (measured 72 to 232 B per call up to 128 KiB,
     * 280 to 400 B above).
     *
     * @param src the input
     * @return the frame
     * @throws IllegalArgumentException when the frame would be too large for an array
     *     (more than {@code Integer.MAX_VALUE - 8} bytes)
     * @throws IllegalStateException when this compressor is closed, or in a call on another thread
     */
    public byte[] compress(byte[] src) {
        MemorySegment in = MemorySegment.ofArray(Objects.requireNonNull(src, "src"));
        guard.enter();
        try {
            if (src.length <= ONE_SHOT_HEAP_MAX_INPUT_BYTES) {
                MemorySegment scratch = buffers().scratchOut;
                long n = compressEntered(in, 0, src.length, scratch, 0, scratch.byteSize());
                return scratch.asSlice(0, n).toArray(JAVA_BYTE);
            }
            long bound = maxCompressedSize(src.length);
            // One confined arena per call: about 0.2 us, nothing next to compressing 128 KiB or more.
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(bound);
                long n = compressEntered(in, 0, src.length, out, 0, bound);
                if (n > Integer.MAX_VALUE - 8) {
                    throw new IllegalArgumentException("frame too large for a byte[] result: length=" + n);
                }
                return out.asSlice(0, n).toArray(JAVA_BYTE);
            }
        } finally {
            guard.exit(this);
        }
    }

    /**
     * Compresses {@code src[srcOff, srcOff + srcLen)} into {@code dst[dstOff, dstOff + dstLen)}.
     *
     * @param src the input
     * @param srcOff where the input starts in {@code src}
     * @param srcLen the input's length in bytes
     * @param dst the destination
     * @param dstOff where the frame is written in {@code dst}
     * @param dstLen the bytes available at {@code dst[dstOff]}
     * @return bytes written at {@code dst[dstOff]}
     * @throws ZstdException {@code DESTINATION_TOO_SMALL} as
     *     {@link #compress(MemorySegment, long, long, MemorySegment, long, long)}
     * @throws IndexOutOfBoundsException when a range is not within its array
     * @throws IllegalArgumentException when {@code src} and {@code dst} are one array and the
     *     ranges overlap ("source and destination overlap")
     * @throws IllegalStateException when this compressor is closed, or in a call on another thread
     */
    public int compress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstLen) {
        return (int) compress(MemorySegment.ofArray(Objects.requireNonNull(src, "src")), srcOff, srcLen,
                MemorySegment.ofArray(Objects.requireNonNull(dst, "dst")), dstOff, dstLen);
    }

    // ---- streaming support (package-private: ZstdOutputStream) -----------------------------
    // A stream holds the guard for each of its calls, its sink's write included: the scratch
    // memory and the in/out structs hold the call's state between libzstd's steps.

    /** Made by {@code holder} for itself: an unclosed warning names {@code holder} ({@link Unclosed.Resources#heldBy}). */
    void heldBy(String holder) {
        resources.heldBy(holder);
    }

    /** Begins a stream's call: {@link CallGuard#enter()}; {@link #exit()} ends it. */
    void enter() {
        guard.enter();
    }

    /** Ends a call begun by {@link #enter()}. */
    void exit() {
        guard.exit(this);
    }

    /**
     * A stream's {@code close()}: forgets {@code closing} if it is still the {@link #stream}, so
     * that a borrowed compressor does not keep a stream closed mid-frame (and its sink, and what
     * that holds) reachable until its next use. Never throws: where the guard refuses (closed,
     * another thread's call, or the stream's own call, its sink closing it) the field is left
     * to that call or the next use, which overwrite it.
     */
    void release(Object closing) {
        if (guard.tryEnter()) {
            if (stream == closing) {
                stream = null;
            }
            guard.exit(this);
        }
    }

    /**
     * Starts a new frame; {@code pledgedSize} < 0 leaves the content size out of the header. The
     * caller is inside the guard, as for every method below.
     */
    void beginFrame(long pledgedSize) throws Throwable {
        reset();
        if (pledgedSize >= 0) {
            long r = (long) LibZstd.CCTX_SET_PLEDGED_SRC_SIZE.invokeExact(cctx, pledgedSize);
            Reference.reachabilityFence(this);
            check("ZSTD_CCtx_setPledgedSrcSize", r);
        }
    }

    /** One {@code ZSTD_compressStream2} over {@code b}'s structs; resets the session on error. */
    long streamStep(StreamBuffers b, int op) throws Throwable {
        frameOpen = workers > 0;
        long r = (long) LibZstd.COMPRESS_STREAM2_RAW.invokeExact(cctx, b.outStruct, b.inStruct, op);
        Reference.reachabilityFence(this);
        check("ZSTD_compressStream2", r);
        if (op == LibZstd.E_END && r == 0) {
            frameOpen = false; // the frame is complete: the context may begin another
        }
        return r;
    }

    StreamBuffers buffers() {
        ensureOpen();
        if (buffers == null) {
            buffers = new StreamBuffers();
            resources.buffers = buffers;
        }
        return buffers;
    }

    private long check(String operation, long r) {
        if (LibZstd.isError(r)) {
            reset();
            throw ZstdException.fromResult(operation, r);
        }
        return r;
    }

    /**
     * Ends the session (after an error, or before a frame); nothing when closed. A context with
     * workers whose frame was left unended is replaced instead ({@link #frameOpen}).
     */
    void reset() {
        if (closed) {
            return; // the context is freed: nothing to reset, and NULL would crash zstd
        }
        if (frameOpen) {
            replaceContext();
            return;
        }
        try {
            long ignored = (long) LibZstd.CCTX_RESET.invokeExact(cctx, LibZstd.RESET_SESSION_ONLY);
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Frees the context, whose multithreaded frame was abandoned, and gives this compressor a new
     * one with the same parameters and dictionary. Freeing waits for the old context's worker
     * threads to finish the jobs they hold. Error path only; the caller is inside the guard.
     */
    private void replaceContext() {
        try {
            cctx = createContext(); // out of memory: frameOpen stays set, and the next reset tries again
            resources.swapContext(cctx);
            applyParameters();
            frameOpen = false; // only now: a new context without its parameters is replaced again at the next reset
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("compressor is closed");
        }
    }

    /**
     * Frees the context, the digested dictionary and the scratch memory. Idempotent. Called while
     * another thread is in a call on this compressor, it waits for that call to return (it spins
     * briefly, then parks with a pause doubling to 5 ms; an interrupt does not end the wait, and
     * stays set); a call that begins meanwhile throws "… is closed".
     *
     * @throws IllegalStateException when called from inside a call on this compressor on the same
     *     thread (a stream's source or sink): it would wait for ever; close it once that call returned
     */
    @Override
    public void close() {
        if (!guard.close()) {
            return;
        }
        closed = true;
        stream = null; // a stream over it refuses its next call anyway ("… is closed"); nothing of it is kept
        cctx = 0;
        buffers = null;
        resources.closedByOwner = true;
        cleanable.clean();
    }
}
