package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.nativelib.internal.CallGuard;
import io.zmqzstd.nativelib.internal.JavaArrays;
import io.zmqzstd.nativelib.internal.OwnerCleaner;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.Arrays;
import java.util.Objects;

/**
 * Decompresses zstd frames, reusing one native decompression context ({@code ZSTD_DCtx}).
 *
 * <p>Limits: a frame whose header declares more than {@link #maxDecompressedSize()} is refused
 * before any work ({@code TOO_LARGE}); a frame that does not declare its size is decompressed
 * into at most that many bytes and refused when it needs more ({@code TOO_LARGE} also into a
 * destination of exactly the limit's size; {@code DESTINATION_TOO_SMALL} only into a smaller one).
 *
 * <p>Dictionaries: each frame names its dictionary ID in its header; the decompressor picks the
 * matching one of those it was given, and refuses a frame whose dictionary it lacks
 * ({@code DICTIONARY_MISSING}, naming the ID) before decompressing. A frame that names no ID is
 * decoded with {@link Builder#dictionaryForFramesWithoutId(ZstdDictionary)} when one is set (or a
 * raw-content dictionary, ID 0), else with none.
 *
 * <p>Errors leave the decompressor usable: the session is reset and the next frame decodes.
 *
 * <p>Not thread-safe: like a socket, one decompressor belongs to one thread at a time. A call
 * made while another thread is in one on the same decompressor is refused with
 * {@link IllegalStateException} before it touches anything, and the call inside goes on;
 * {@link #close()} on another thread waits for a call in progress to return before it frees the
 * context.
 *
 * <p>The {@code MemorySegment} methods allocate nothing on the Java heap, for native and heap
 * segments alike: heap data is copied through native scratch memory (one call when input and
 * output each fit its 256 KiB, streamed in chunks otherwise), never passed to zstd in place. The
 * decompressor owns its context, its digested dictionaries (DDicts) and its scratch
 * memory; {@link #close()} frees them. Closing is idempotent; any other call after it throws
 * {@link IllegalStateException}. A decompressor dropped without closing is freed when it becomes
 * unreachable, with a warning (logger {@code io.zmqzstd.codec}); that is a safety net, not a
 * substitute for closing.
 */
public final class ZstdDecompressor implements AutoCloseable {

    /** Default limit: 256 MiB. */
    public static final long DEFAULT_MAX_DECOMPRESSED_SIZE = 256L * 1024 * 1024;

    private static final long NO_DDICT = 0;
    /**
     * The ID {@link ZstdFrames#dictionaryIdOf} reads from a header without the field (and the
     * field's own "no dictionary" value), and the ID of a raw-content dictionary: the key of the
     * dictionary for such frames.
     */
    private static final int NO_DICTIONARY_ID = 0;

    /**
     * The smallest window allowance: what zstd levels 1 to 19 use when the input size is unknown
     * (level 3: 2^21, 17 to 19: 2^23), as in frames from {@code zstd} reading a pipe or from any
     * streaming compressor. Such frames decode under any limit.
     */
    static final int MIN_WINDOW_LOG = 23;

    private final long maxDecompressedSize;
    /** ZSTD_d_windowLogMax: see {@link #windowLogMax(long)}. */
    private final int windowLogMax;
    /** Frames of raw/RLE blocks are copied in Java (ZstdFrames.copyStoredFrame); tests turn it off to compare. */
    private final boolean storedFrameCopy;
    /** The context, for the calls; 0 after close. {@link #resources} frees it. */
    private long dctx;
    private int[] dictIds = new int[0];
    /** {@link ZstdDictionary#fingerprint()} of each dictionary, as {@link #dictIds}: names what a second one of an ID is. */
    private long[] dictFingerprints = new long[0];
    private long[] ddicts = new long[0];
    private long currentDDict = NO_DDICT;
    /**
     * The own ID (unsigned) of {@code dictionaryForFramesWithoutId}'s dictionary, which key
     * {@link #NO_DICTIONARY_ID} then holds; -1 when it is not set (the key free, or a raw-content
     * dictionary's).
     */
    private long framesWithoutIdDictionaryId = -1;
    private StreamBuffers buffers;
    /**
     * The array {@link #decompressUndeclared} collects a frame's content in, step by step; null
     * outside that call, so that no content stays reachable from the decompressor.
     */
    private byte[] collected;
    /**
     * The {@link ZstdInputStream} whose state the context and scratch hold between its reads, or
     * null: a one-call decompression or a newer stream takes them over, and that stream's next
     * read then finds another here and refuses ({@link StreamBuffers#takenOver}) instead of
     * decoding from memory that now holds another frame's bytes. Inside the guard only; null
     * once the stream is closed ({@link #release}) or this decompressor is.
     */
    Object stream;
    private boolean closed;
    private final CallGuard guard = new CallGuard("decompressor", null, "a stream's source or sink");
    private final Unclosed.Resources resources = new Unclosed.Resources("ZstdDecompressor", LibZstd.FREE_DCTX,
            LibZstd.LIVE_DCTX, ZstdDictionary::freeDDict);
    private final Cleaner.Cleanable cleanable;

    /** Options for a decompressor; {@link #build()} makes one. */
    public static final class Builder {
        private long maxDecompressedSize = DEFAULT_MAX_DECOMPRESSED_SIZE;
        private final java.util.List<ZstdDictionary> dictionaries = new java.util.ArrayList<>();
        private ZstdDictionary forFramesWithoutId;
        private boolean storedFrameCopy = true;

        private Builder() {
        }

        /**
         * The most bytes one call may produce (default 256 MiB); for a {@link ZstdInputStream}
         * over the decompressor, the most the whole stream returns, over all its frames.
         *
         * @param maxBytes the limit in bytes, 0 or more
         * @return this builder
         * @throws IllegalArgumentException when {@code maxBytes} is negative
         */
        public Builder maxDecompressedSize(long maxBytes) {
            if (maxBytes < 0) {
                throw new IllegalArgumentException("maxDecompressedSize=" + maxBytes);
            }
            this.maxDecompressedSize = maxBytes;
            return this;
        }

        /**
         * Adds a dictionary; may be called once per dictionary ID.
         *
         * @param dictionary the dictionary, still the caller's
         * @return this builder
         * @throws NullPointerException when {@code dictionary} is null: there is nothing to add
         *     (frames without an ID are read with none unless
         *     {@link #dictionaryForFramesWithoutId(ZstdDictionary)} says otherwise)
         */
        public Builder dictionary(ZstdDictionary dictionary) {
            dictionaries.add(Objects.requireNonNull(dictionary, "dictionary"));
            return this;
        }

        /**
         * The dictionary for frames that name no dictionary ID: frames its senders made with it
         * and without its ID ({@link ZstdCompressor.Builder#dictionaryIdInFrame(boolean)}
         * {@code false}, {@code zstd --no-dictID -D}, zstd-jni's {@code setDictID(false)}). Frames
         * that name its ID need it added with {@link #dictionary(ZstdDictionary)} as well (without,
         * they are {@code DICTIONARY_MISSING}, the message naming its ID as
         * {@code forFramesWithoutId} and saying so).
         *
         * <p>The rule: every compressed frame without an ID that reaches this decompressor must
         * have been made with this dictionary. Frames of raw or RLE blocks (such as
         * {@link ZstdFrames#writeRawFrame} writes) use no dictionary and are unaffected, and so,
         * measured with libzstd 1.5.4 and trained dictionaries, were frames compressed with no
         * dictionary at all: those decoded correctly with it (the {@code NoDictionaryIdTest}). That
         * holds only while the dictionary's three repeat offsets are zstd's defaults (1, 4, 8; what
         * {@code zstd --train} and {@link ZstdDictionary#train} write): with others, a frame made
         * without a dictionary decodes to wrong bytes, with no error unless it has a checksum. A
         * frame made with another dictionary and no ID fails, or without a checksum may decode to
         * wrong bytes.
         *
         * @param dictionary the dictionary, still the caller's; {@code null} for none (the default:
         *     such frames are decoded with no dictionary)
         * @return this builder
         */
        public Builder dictionaryForFramesWithoutId(ZstdDictionary dictionary) {
            this.forFramesWithoutId = dictionary;
            return this;
        }

        /** Off: every frame goes to libzstd, the reference that tests compare the Java copy with. */
        Builder storedFrameCopy(boolean enabled) {
            this.storedFrameCopy = enabled;
            return this;
        }

        /**
         * A new decompressor; the caller owns it and must close it.
         *
         * @return the decompressor
         * @throws IllegalArgumentException when two dictionaries have the same ID, or a
         *     raw-content dictionary (ID 0) is added as well as
         *     {@link #dictionaryForFramesWithoutId(ZstdDictionary)}: both would serve frames
         *     without an ID
         * @throws IllegalStateException when a dictionary given is closed
         * @throws ZstdException {@code OTHER} when zstd cannot digest a dictionary
         */
        public ZstdDecompressor build() {
            ZstdDecompressor d = new ZstdDecompressor(maxDecompressedSize, storedFrameCopy);
            try {
                for (ZstdDictionary dictionary : dictionaries) {
                    d.addDictionary(dictionary);
                }
                if (forFramesWithoutId != null) {
                    d.addDictionaryForFramesWithoutId(forFramesWithoutId);
                }
            } catch (RuntimeException e) {
                d.close();
                throw e;
            }
            return d;
        }
    }

    /**
     * Options, starting from a 256 MiB limit and no dictionaries.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** A decompressor with the default limit and no dictionaries. The caller owns it. */
    public ZstdDecompressor() {
        this(DEFAULT_MAX_DECOMPRESSED_SIZE, true);
    }

    private ZstdDecompressor(long maxDecompressedSize, boolean storedFrameCopy) {
        this.maxDecompressedSize = maxDecompressedSize;
        this.storedFrameCopy = storedFrameCopy;
        try {
            dctx = (long) LibZstd.CREATE_DCTX.invokeExact();
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
        if (dctx == 0) {
            throw new OutOfMemoryError("ZSTD_createDCtx returned NULL");
        }
        LibZstd.LIVE_DCTX.incrementAndGet();
        resources.context = dctx;
        cleanable = OwnerCleaner.CLEANER.register(this, resources);
        windowLogMax = windowLogMax(maxDecompressedSize);
        try {
            long r = (long) LibZstd.DCTX_SET_PARAMETER.invokeExact(dctx, LibZstd.D_WINDOW_LOG_MAX, windowLogMax);
            if (LibZstd.isError(r)) {
                throw ZstdException.fromResult("ZSTD_DCtx_setParameter(windowLogMax=" + windowLogMax + ")", r);
            }
        } catch (Throwable t) {
            close();
            throw LibZstd.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The largest window (as a power of two) a frame may ask for. A streaming decoder holds the
     * whole window before it produces a byte: without this, a 20-byte frame that declares no
     * content size and names a 2 GiB window makes libzstd reserve it under any output limit.
     * The allowance is the smallest power of two that holds the limit, so every frame that
     * declares a size within the limit passes (zstd shrinks a known-size frame's window to fit
     * its content), but never below 2^{@value #MIN_WINDOW_LOG}, and at most 2^31 (zstd's own
     * maximum). Frames above the floor come from {@code --ultra} levels (2^25 to 2^27) or
     * {@code --long} (2^27) on input of unknown size; they need a limit that large. The default
     * 256 MiB limit allows 2^28, one step above libzstd's own default of 2^27.
     */
    static int windowLogMax(long maxDecompressedSize) {
        int holdsLimit = 64 - Long.numberOfLeadingZeros(Math.max(1, maxDecompressedSize) - 1);
        return Math.min(ZstdFrames.WINDOW_LOG_MAX, Math.max(MIN_WINDOW_LOG, holdsLimit));
    }

    /**
     * The most bytes one call may produce; for a {@link ZstdInputStream} over this decompressor,
     * the most the whole stream returns, over all its frames.
     *
     * @return the limit in bytes
     * @throws IllegalStateException when this decompressor is closed
     */
    public long maxDecompressedSize() {
        ensureOpen();
        return maxDecompressedSize;
    }

    /**
     * Makes {@code dictionary} available to frames that name its ID. The decompressor digests
     * its own copy; {@code dictionary} stays the caller's.
     *
     * @param dictionary the dictionary, still the caller's
     * @throws IllegalArgumentException when a dictionary with the same ID was already added
     *     ("dictionary already added: id=…, the same bytes …" for the same content again,
     *     "another dictionary with this ID already added: id=…, other content …" for different
     *     content under that ID, with both sizes), or {@code dictionary} is raw content (ID 0) and
     *     this decompressor was built with
     *     {@link Builder#dictionaryForFramesWithoutId(ZstdDictionary)}: both would serve frames
     *     without an ID
     * @throws IllegalStateException when this decompressor or {@code dictionary} is closed, or
     *     this decompressor is in a call on another thread
     * @throws ZstdException {@code OTHER} when zstd cannot digest the dictionary
     * @throws NullPointerException when {@code dictionary} is null
     */
    public void addDictionary(ZstdDictionary dictionary) {
        Objects.requireNonNull(dictionary, "dictionary");
        guard.enter();
        try {
            addDictionaryEntered(dictionary);
        } finally {
            guard.exit(this);
        }
    }

    /**
     * Registers {@code dictionary} under key {@link #NO_DICTIONARY_ID}, the ID
     * {@link #selectDictionary} looks up for a frame that names none: so frames without an ID find
     * it with no other work per frame. Builder only: the one place that checks the conflict with a
     * raw-content dictionary, which has that key too.
     */
    private void addDictionaryForFramesWithoutId(ZstdDictionary dictionary) {
        for (int known : dictIds) {
            if (known == NO_DICTIONARY_ID) {
                throw new IllegalArgumentException(TWO_FOR_FRAMES_WITHOUT_ID);
            }
        }
        registerDictionary(dictionary, NO_DICTIONARY_ID);
        framesWithoutIdDictionaryId = Integer.toUnsignedLong(dictionary.id());
    }

    private void addDictionaryEntered(ZstdDictionary dictionary) {
        int id = dictionary.id();
        for (int i = 0; i < dictIds.length; i++) {
            if (dictIds[i] == id) {
                // ID 0 taken by dictionaryForFramesWithoutId: the caller added no dictionary of that ID
                throw new IllegalArgumentException(id == NO_DICTIONARY_ID && framesWithoutIdDictionaryId >= 0
                        ? TWO_FOR_FRAMES_WITHOUT_ID : alreadyAdded(id, dictFingerprints[i], dictionary.fingerprint()));
            }
        }
        registerDictionary(dictionary, id);
    }

    /**
     * The refusal of a second dictionary with an ID already added: the same bytes again, or other
     * content under that ID (a copy cut or edited after its ID was written keeps it; raw content
     * always has ID 0), told apart by {@link ZstdDictionary#fingerprint()}. Error path only.
     */
    private static String alreadyAdded(int id, long added, long given) {
        String sizes = "bytes=" + (added >>> 32);
        if (added == given) {
            return "dictionary already added: id=" + Integer.toUnsignedString(id) + ", the same bytes (" + sizes
                    + ", equal CRC-32C)";
        }
        return "another dictionary with this ID already added: id=" + Integer.toUnsignedString(id) + ", other content (added "
                + sizes + ", this one bytes=" + (given >>> 32) + (added >>> 32 == given >>> 32 ? ", CRC-32C differs" : "")
                + (id == NO_DICTIONARY_ID ? "; raw-content dictionaries all have id=0" : "; a copy cut or edited after its ID"
                + " was written keeps the ID") + "): frames naming the ID can be read with one of them only";
    }

    /** A raw-content dictionary (ID 0) and {@code dictionaryForFramesWithoutId}, in either order. */
    private static final String TWO_FOR_FRAMES_WITHOUT_ID = "dictionaryForFramesWithoutId with a raw-content"
            + " dictionary (id=0) added too: both would decode frames that name no dictionary ID; keep one";

    /** Digests {@code dictionary} and makes it the one for frames naming {@code id}. */
    private void registerDictionary(ZstdDictionary dictionary, int id) {
        long ddict = dictionary.createDDict();
        dictIds = Arrays.copyOf(dictIds, dictIds.length + 1);
        ddicts = Arrays.copyOf(ddicts, ddicts.length + 1);
        dictFingerprints = Arrays.copyOf(dictFingerprints, dictFingerprints.length + 1);
        dictIds[dictIds.length - 1] = id;
        ddicts[ddicts.length - 1] = ddict;
        dictFingerprints[dictFingerprints.length - 1] = dictionary.fingerprint();
        resources.dictionaries = ddicts;
    }

    /**
     * Decompresses all of {@code src} into {@code dst} from offset 0.
     *
     * @param src the frame: all of {@code src}, exactly one frame
     * @param dst the destination, written from offset 0; all of it is available
     * @return bytes written to {@code dst}
     * @throws ZstdException as {@link #decompress(MemorySegment, long, long, MemorySegment, long,
     *     long)}
     * @throws IllegalArgumentException when {@code dst} is read-only, or the source and destination
     *     ranges share memory ("source and destination overlap")
     * @throws IllegalStateException when this decompressor is closed, or the arena of either
     *     segment is closed, or a file mapping on either side faulted (as there)
     * @throws WrongThreadException when either segment is confined to another thread (as there)
     * @see #decompress(MemorySegment, long, long, MemorySegment, long, long)
     */
    public long decompress(MemorySegment src, MemorySegment dst) {
        return decompress(src, 0, src.byteSize(), dst, 0, dst.byteSize());
    }

    /**
     * Decompresses the frame at {@code src[srcOffset, srcOffset + srcLength)} into
     * {@code dst[dstOffset, dstOffset + dstCapacity)}. The caller keeps ownership of both
     * segments; nothing refers to them after the call. No heap allocation when both are native
     * (and nothing fails). The segments' arenas must stay open during the call.
     *
     * <p>A file mapping ({@link MemorySegment#isMapped()}) on either side is never given to
     * libzstd by address: a page past the end of a file shortened since it was mapped would raise
     * SIGBUS there and end the process. It is copied in Java through this decompressor's scratch
     * memory, as heap data is (in chunks of 256 KiB for {@code ZSTD_decompressStream} when the
     * frame or the content is larger), and such a fault is an {@link IllegalStateException}.
     *
     * @param src the input
     * @param srcOffset where the frame starts in {@code src}, in bytes
     * @param srcLength the frame's length in bytes
     * @param dst the destination
     * @param dstOffset where the content is written in {@code dst}, in bytes
     * @param dstCapacity the bytes available at {@code dst[dstOffset]}
     * @return bytes written at {@code dst[dstOffset]}
     * @throws ZstdException with reason {@code EMPTY}, {@code NOT_ZSTD}, {@code TRUNCATED},
     *     {@code CORRUPT}, {@code CHECKSUM}, {@code DICTIONARY_MISSING}, {@code TOO_LARGE} or
     *     {@code DESTINATION_TOO_SMALL} ({@code CORRUPT} also for bytes after the frame: one
     *     input is exactly one frame); the decompressor stays usable
     * @throws IndexOutOfBoundsException when a range is not within its segment, naming the side:
     *     "frame range out of bounds: srcOffset=…, srcLength=…, byteSize=…" or "destination range
     *     …: dstOffset=…, dstCapacity=…, byteSize=…" (both, when both are)
     * @throws IllegalArgumentException when {@code dst} is read-only, or the source and destination
     *     ranges share memory ("source and destination overlap")
     * @throws IllegalStateException when this decompressor is closed, or in a call on another
     *     thread, or the arena of either segment is closed ("frame segment is no longer alive: …",
     *     "destination segment …"; a destination too small for the frame is named as closed first);
     *     or a file mapping on either side faulted ("src could not be read: a fault in its memory
     *     …" or "dst could not be written: …", naming the range, with the JDK's
     *     {@link InternalError} as its cause): the content is not whole, and the decompressor goes on
     * @throws WrongThreadException when either segment is confined to another thread than this
     *     one's ("frame segment is confined to another thread than …", "destination segment …"),
     *     before libzstd is called
     */
    public long decompress(MemorySegment src, long srcOffset, long srcLength,
                           MemorySegment dst, long dstOffset, long dstCapacity) {
        guard.enter();
        try {
            // The context and scratch are this call's now: a stream mid-frame refuses its next read.
            // A store, not a test first: the test and branch cost 64 B decompression about 5 %, the
            // store nothing measurable (BENCHMARKS.md, "What the streams' owner check costs")
            stream = null;
            return decompressEntered(src, srcOffset, srcLength, dst, dstOffset, dstCapacity);
        } catch (IndexOutOfBoundsException e) {
            // The JDK's range errors name neither side: named here, on the error path only
            throw Segments.namedRange(e, "frame", src, srcOffset, srcLength, dst, dstOffset, dstCapacity);
        } catch (IllegalStateException | WrongThreadException e) {
            // FFM's "Already closed" and "Attempted access outside owning thread" from a read of
            // the frame's header or a stored frame's copy in Java name nothing: named here, on the
            // try the guard needs anyway, rather than around the reads themselves, on the path of
            // every call (BENCHMARKS.md, "What naming a closed segment costs")
            throw Segments.named(Segments.named(e, src, "frame segment"), dst, "destination segment");
        } finally {
            guard.exit(this);
        }
    }

    /** {@link #decompress(MemorySegment, long, long, MemorySegment, long, long)} inside {@link #guard}. */
    private long decompressEntered(MemorySegment src, long srcOffset, long srcLength,
                                   MemorySegment dst, long dstOffset, long dstCapacity) {
        if (src.isMapped() | dst.isMapped()) {
            return decompressMapped(src, srcOffset, srcLength, dst, dstOffset, dstCapacity);
        }
        return decompressRouted(src, srcOffset, srcLength, dst, dstOffset, dstCapacity, src.isNative(), dst.isNative());
    }

    /** What a fault in a mapping leaves, for {@link Segments#fault}. */
    private static final String CONTENT_NOT_WRITTEN = "not decompressed, dst may hold part of the content: the decompressor goes on";

    /**
     * A file mapping on either side: never handed to libzstd by address, where a page past the end
     * of a file shortened since it was mapped raises SIGBUS and ends the process. It takes the heap
     * paths instead: a mapped frame read in Java (its header and block headers, as any frame's)
     * and copied into the scratch memory (in one piece up to 256 KiB, in chunks for
     * {@code ZSTD_decompressStream} above), a mapped destination written in Java from the scratch
     * memory, chunk by chunk: never more than 256 KiB of the content held twice.
     */
    private long decompressMapped(MemorySegment src, long srcOffset, long srcLength,
                                  MemorySegment dst, long dstOffset, long dstCapacity) {
        Segments.checkUsable(src, dst);
        try {
            return decompressRouted(src, srcOffset, srcLength, dst, dstOffset, dstCapacity,
                    Segments.byAddress(src), Segments.byAddress(dst));
        } catch (InternalError e) {
            reset();
            throw Segments.fault(e, src, srcOffset, srcLength, dst, dstOffset, dstCapacity, CONTENT_NOT_WRITTEN);
        }
    }

    /**
     * Decompresses with {@code src} and {@code dst} given to libzstd by address when
     * {@code srcDirect} resp. {@code dstDirect}, else through the scratch memory.
     */
    private long decompressRouted(MemorySegment src, long srcOffset, long srcLength, MemorySegment dst, long dstOffset,
                                  long dstCapacity, boolean srcDirect, boolean dstDirect) {
        Segments.check(dst, dstOffset, dstCapacity);
        Segments.checkWritable(dst);
        Segments.checkDisjoint(src, srcOffset, srcLength, dst, dstOffset, dstCapacity);
        int fhd = ZstdFrames.descriptor(src, srcOffset, srcLength);
        long declared = prepareHeader(src, srcOffset, fhd);
        boolean onlyStoredBlocks = checkSingleFrame(src, srcOffset, srcLength, fhd);
        if (declared != ZstdFrames.CONTENT_SIZE_UNKNOWN && declared > dstCapacity) {
            // a closed (or another thread's) destination is that error first, as where the
            // destination is large enough: no larger one helps while the caller's arena is closed
            Segments.checkUsable(dst);
            throw new ZstdException(ZstdException.Reason.DESTINATION_TOO_SMALL,
                    "destination too small: declared=" + declared + ", capacity=" + dstCapacity);
        }
        // A declared size is what the frame needs (prepareHeader held it to the limit);
        // choosing by it keeps a small frame into a large reused heap buffer on the one-call path.
        long capacity = declared != ZstdFrames.CONTENT_SIZE_UNKNOWN ? declared : Math.min(dstCapacity, maxDecompressedSize);
        if (storedFrameCopy && onlyStoredBlocks) {
            long copied = ZstdFrames.copyStoredFrame(src, srcOffset, fhd, declared, dst, dstOffset, capacity);
            if (copied >= 0) {
                return copied;
            }
        }
        long r;
        try {
            if ((!srcDirect && srcLength > StreamBuffers.SCRATCH_BYTES) || (!dstDirect && capacity > StreamBuffers.SCRATCH_BYTES)) {
                try {
                    return decompressInChunks(src, srcOffset, srcLength, srcDirect, dst, dstOffset, dstCapacity, declared, capacity);
                } catch (ZstdException e) {
                    throw explainDecodeFailure(e, src, srcOffset, srcLength, srcDirect);
                }
            }
            long s = srcDirect ? Segments.address(src, srcOffset, srcLength) : buffers().stageIn(src, srcOffset, srcLength);
            long d = dstDirect ? Segments.address(dst, dstOffset, capacity) : buffers().scratchOutAddress;
            r = (long) LibZstd.DECOMPRESS_DCTX_RAW.invokeExact(dctx, d, capacity, s, srcLength);
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
                throw outputFull(r, declared, dstCapacity, capacity, false);
            }
            throw explainDecodeFailure(decodeFailed("ZSTD_decompressDCtx", r), src, srcOffset, srcLength, srcDirect);
        }
        return r;
    }

    /**
     * Error path only: {@code e}, libzstd's error while decoding the whole frame at
     * {@code src[offset, offset + length)}, or, when that frame declares a content size its blocks
     * do not decode to, an exception naming that. libzstd checks the declared size only after the
     * last block and reports a shortfall as "Data corruption detected", as it does a damaged block
     * (and from the streaming decoder an excess as "Destination buffer is too small"), so the
     * blocks are decoded again, counting, from a copy of the header that declares no size
     * ({@link #decodedLength}). {@code e} stands when they fail on their own, and when
     * {@code src} holds less than the whole frame (a stream's buffer).
     */
    ZstdException explainDecodeFailure(ZstdException e, MemorySegment src, long offset, long length, boolean srcDirect) {
        int code = (int) e.errorCode();
        // CORRUPT only: a destination or limit that was too small (DESTINATION_TOO_SMALL,
        // TOO_LARGE, also zstd's code 70) is no fault of the frame's, and decoding it again would
        // only find that out at the cost of a second decode
        if (e.reason() != ZstdException.Reason.CORRUPT
                || (code != LibZstd.ERR_CORRUPTION_DETECTED && code != LibZstd.ERR_DST_SIZE_TOO_SMALL)) {
            return e;
        }
        int fhd;
        long declared;
        long frameLength;
        try {
            // the explanation never replaces e with an error of its own
            fhd = ZstdFrames.descriptor(src, offset, length);
            declared = ZstdFrames.contentSizeOf(src, offset, fhd);
            if (declared == ZstdFrames.CONTENT_SIZE_UNKNOWN) {
                return e;
            }
            frameLength = ZstdFrames.walk(src, offset, length, fhd) & ~ZstdFrames.ONLY_STORED_BLOCKS;
        } catch (ZstdException notWhole) {
            return e;
        }
        long decoded = decodedLength(src, offset, frameLength, fhd, declared, srcDirect);
        if (decoded < 0 || decoded == declared) {
            return e;
        }
        long r = -code;
        return decoded > declared ? longerThanDeclared(declared, r) : ZstdException.withResult(ZstdException.Reason.CORRUPT,
                "frame content shorter than its header declares: declared=" + declared + ", decoded=" + decoded, r);
    }

    /**
     * Error path only: {@code e}, libzstd's error from a stream's step in a frame whose header is no
     * longer in the stream's buffer (so {@link #explainDecodeFailure} cannot decode its blocks
     * again), or, when it is "Data corruption detected" in a frame that declared {@code declared}
     * bytes of which the stream has produced fewer, an exception that names the shortfall libzstd
     * reports in those words after the last block. A damaged block says the same, so the message
     * names both; zstd's code and name, and the hint about a frame without a dictionary ID, stay.
     * {@code produced} is what the stream had produced of the frame before the failing step.
     */
    ZstdException explainStreamShortfall(ZstdException e, long declared, long produced) {
        if (e.reason() != ZstdException.Reason.CORRUPT || e.errorCode() != LibZstd.ERR_CORRUPTION_DETECTED
                || declared == ZstdFrames.CONTENT_SIZE_UNKNOWN || Long.compareUnsigned(produced, declared) >= 0) {
            return e;
        }
        return ZstdException.withResult(ZstdException.Reason.CORRUPT, "frame content shorter than its header declares, or a"
                + " block is damaged: declared=" + Long.toUnsignedString(declared) + ", produced=" + produced
                + " (libzstd says \"Data corruption detected\" for both; the frame began before the stream's input buffer"
                + " was last refilled, so its blocks are not decoded again to tell which)"
                + (e.getMessage().endsWith(FRAME_WITHOUT_ID_HINT) ? FRAME_WITHOUT_ID_HINT : ""), -LibZstd.ERR_CORRUPTION_DETECTED);
    }

    /**
     * Error path only: what the blocks of the whole frame at {@code src[offset, offset + length)}
     * decode to, counted through the output scratch up to {@code declared + 1}, or -1 when they
     * fail without the declared size (a damaged block, a checksum). The frame's header is replaced
     * by {@link ZstdFrames#writeHeaderWithoutContentSize}'s; the dictionary the frame named stays
     * referenced, and the session is reset before and after.
     */
    private long decodedLength(MemorySegment src, long offset, long length, int fhd, long declared, boolean srcDirect) {
        StreamBuffers b = buffers();
        reset();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment header = arena.allocate(ZstdFrames.HEADER_WITHOUT_CONTENT_SIZE_MAX);
            long pieceAddress = header.address();
            long pieceSize = ZstdFrames.writeHeaderWithoutContentSize(src, offset, fhd, header);
            long given = ZstdFrames.headerSize(fhd);
            long decoded = 0;
            while (true) {
                b.setIn(pieceAddress, pieceSize);
                do {
                    b.setOutToScratch();
                    long r = (long) LibZstd.DECOMPRESS_STREAM_RAW.invokeExact(dctx, b.outStruct, b.inStruct);
                    if (LibZstd.isError(r)) {
                        return -1;
                    }
                    decoded += b.outPos();
                    if (r == 0 || decoded > declared) {
                        return decoded;
                    }
                } while (b.inPos() < pieceSize || b.outPos() == StreamBuffers.SCRATCH_BYTES);
                if (given == length) {
                    return -1; // the blocks want more than the frame the walk measured
                }
                pieceSize = srcDirect ? length - given : Math.min(StreamBuffers.SCRATCH_BYTES, length - given);
                pieceAddress = srcDirect ? Segments.address(src, offset + given, pieceSize)
                        : b.stageIn(src, offset + given, pieceSize);
                given += pieceSize;
            }
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        } finally {
            reset();
            Reference.reachabilityFence(src);
            Reference.reachabilityFence(this);
        }
    }

    /** CORRUPT: the frame's blocks decode to more than its header declares ({@code r} as {@link ZstdException#withResult}). */
    private static ZstdException longerThanDeclared(long declared, long r) {
        return ZstdException.withResult(ZstdException.Reason.CORRUPT,
                "frame content longer than its header declares: declared=" + declared, r);
    }

    /**
     * The output reached {@code capacity}: the frame's fault (more than it declared), the
     * limit's or the destination's. {@code r} is zstd's error result, or 0 when Java noticed.
     * The limit is named whenever it bounded the output, also when the destination (or, into an
     * array, the array limit {@code dstCapacity}) is exactly as large: no larger destination
     * would help, and a stream over the frame names the limit too.
     */
    private ZstdException outputFull(long r, long declared, long dstCapacity, long capacity, boolean intoArray) {
        ZstdException.Reason reason;
        String message;
        if (declared != ZstdFrames.CONTENT_SIZE_UNKNOWN) {
            return longerThanDeclared(declared, r);
        } else if (capacity == maxDecompressedSize) {
            reason = ZstdException.Reason.TOO_LARGE;
            message = "frame larger than limit: declared=unknown, limit=" + maxDecompressedSize;
        } else if (intoArray) {
            reason = ZstdException.Reason.TOO_LARGE;
            message = "frame larger than a byte[]: declared=unknown, limit=" + dstCapacity;
        } else {
            reason = ZstdException.Reason.DESTINATION_TOO_SMALL;
            message = "destination too small: capacity=" + dstCapacity;
        }
        return ZstdException.withResult(reason, message, r);
    }

    /**
     * Large input or output with a heap segment or a mapping on either side: stream through native
     * scratch memory, the source given to libzstd by address when {@code srcDirect}, else copied
     * in chunk by chunk. With {@code dst} null, into {@link #collected} instead,
     * {@code dstCapacity} being the array limit.
     */
    private long decompressInChunks(MemorySegment src, long srcOffset, long srcLength, boolean srcDirect, MemorySegment dst,
                                    long dstOffset, long dstCapacity, long declared, long capacity) throws Throwable {
        StreamBuffers b = buffers();
        reset();
        long chunkStart = 0;
        long chunk = 0;
        long written = 0;
        b.setIn(0, 0);
        while (true) {
            if (b.inPos() == chunk && chunkStart + chunk < srcLength) {
                chunkStart += chunk;
                if (srcDirect) {
                    chunk = srcLength - chunkStart;
                    b.setIn(Segments.address(src, srcOffset + chunkStart, chunk), chunk);
                } else {
                    chunk = Math.min(StreamBuffers.SCRATCH_BYTES, srcLength - chunkStart);
                    b.setIn(b.stageIn(src, srcOffset + chunkStart, chunk), chunk);
                }
            }
            b.setOutToScratch();
            long remaining = streamStep(b);
            long produced = b.outPos();
            if (written + produced > capacity) {
                reset();
                throw outputFull(0, declared, dstCapacity, capacity, dst == null);
            }
            boolean allConsumed = chunkStart + b.inPos() == srcLength;
            boolean ended = remaining == 0 && allConsumed;
            if (dst != null) {
                MemorySegment.copy(b.scratchOut, 0, dst, dstOffset + written, produced);
            } else {
                collect(src, srcOffset, srcLength, written, produced, ended, capacity);
            }
            written += produced;
            if (ended) {
                return written;
            }
            if (allConsumed && produced < StreamBuffers.SCRATCH_BYTES) {
                reset();
                throw new ZstdException(ZstdException.Reason.TRUNCATED,
                        "frame truncated: srcLength=" + srcLength + ", decompressed=" + written);
            }
        }
    }

    /**
     * Appends the {@code produced} bytes in the output scratch to {@link #collected} at
     * {@code written}. A frame that ends in its first step gets an array of exactly its content,
     * the only allocation; a longer one grows the array geometrically, never past the most its
     * blocks can hold ({@link ZstdFrames#contentBoundOf}) nor {@code capacity}, and exactly to its
     * length in the last step. The bound only caps the growth: a few bytes of tiny blocks can
     * claim 128 KiB each, so it is no size to allocate up front.
     */
    private void collect(MemorySegment src, long srcOffset, long srcLength, long written, long produced,
                         boolean ended, long capacity) {
        long needed = written + produced;
        int length = collected == null ? 0 : collected.length;
        if (needed > length || (collected == null && ended)) {
            long grown = needed;
            if (!ended) {
                long bound = ZstdFrames.contentBoundOf(src, srcOffset, ZstdFrames.descriptor(src, srcOffset, srcLength));
                grown = Math.max(needed, Math.min(Math.min(bound, capacity), 2 * needed));
            }
            collected = collected == null ? new byte[(int) grown] : Arrays.copyOf(collected, (int) grown);
        }
        MemorySegment.copy(buffers.scratchOut, JAVA_BYTE, 0, collected, (int) written, (int) produced);
    }

    /**
     * The content of {@code src}, a frame that does not declare its size, streamed through the
     * scratch memory into an array of at most {@code arrayLimit} bytes: {@code TOO_LARGE} past
     * that or past the limit. Reading everything first would end in an {@code OutOfMemoryError}
     * past an array's size when the limit allows more than 2 GiB. Package-private so that a test
     * can give a small array limit. The caller has checked the header and that {@code src} is one
     * frame.
     */
    byte[] decompressUndeclared(byte[] src, int arrayLimit) {
        long capacity = Math.min(maxDecompressedSize, arrayLimit);
        try {
            long n = decompressInChunks(MemorySegment.ofArray(src), 0, src.length, false, null, 0, arrayLimit,
                    ZstdFrames.CONTENT_SIZE_UNKNOWN, capacity);
            return n == collected.length ? collected : Arrays.copyOf(collected, (int) n);
        } catch (Throwable t) {
            reset(); // also after an error of Java's own, such as no heap for the array
            throw LibZstd.rethrow(t);
        } finally {
            collected = null;
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Decompresses {@code src} into a new array of exactly the content's length; the caller owns
     * it. A frame that declares its size is decompressed into the result, the only allocation
     * besides the segment wrappers over the input and the result (measured 144 B per call); one
     * that does not is streamed through the scratch memory, up to the limit: the result is then
     * still the only array up to 256 KiB of content, and above that an array
     * that doubles as the content arrives (no further than the frame's blocks can hold) and is cut
     * to length once at the end.
     *
     * @param src the frame: all of {@code src}, exactly one frame
     * @return the content
     * @throws ZstdException as {@link #decompress(MemorySegment, long, long, MemorySegment, long,
     *     long)}, and {@code TOO_LARGE} also for content too large for an array
     * @throws IllegalStateException when this decompressor is closed, or in a call on another thread
     */
    public byte[] decompress(byte[] src) {
        MemorySegment in = MemorySegment.ofArray(Objects.requireNonNull(src, "src"));
        guard.enter();
        try {
            stream = null; // the context and scratch are this call's now: a stream mid-frame refuses its next read
            return decompressEntered(src, in);
        } finally {
            guard.exit(this);
        }
    }

    private byte[] decompressEntered(byte[] src, MemorySegment in) {
        int fhd = ZstdFrames.descriptor(in, 0, src.length);
        long declared = prepareHeader(in, 0, fhd);
        checkSingleFrame(in, 0, src.length, fhd);
        if (declared == ZstdFrames.CONTENT_SIZE_UNKNOWN) {
            return decompressUndeclared(src, JavaArrays.MAX_LENGTH);
        }
        if (declared > JavaArrays.MAX_LENGTH) {
            throw new ZstdException(ZstdException.Reason.TOO_LARGE,
                    "frame larger than a byte[]: declared=" + declared + ", limit=" + JavaArrays.MAX_LENGTH);
        }
        // Only above the scratch size, where the allocation matters: small messages skip the second walk.
        if (declared > StreamBuffers.SCRATCH_BYTES) {
            ZstdFrames.checkDeclaredFits(declared, ZstdFrames.contentBoundOf(in, 0, fhd));
        }
        byte[] out = new byte[(int) declared];
        long n = decompressEntered(in, 0, src.length, MemorySegment.ofArray(out), 0, out.length);
        return n == out.length ? out : Arrays.copyOf(out, (int) n);
    }

    /**
     * Decompresses {@code src[srcOff, srcOff + srcLen)} into {@code dst[dstOff, dstOff + dstLen)}.
     *
     * @param src the input
     * @param srcOff where the frame starts in {@code src}
     * @param srcLen the frame's length in bytes
     * @param dst the destination
     * @param dstOff where the content is written in {@code dst}
     * @param dstLen the bytes available at {@code dst[dstOff]}
     * @return bytes written at {@code dst[dstOff]}
     * @throws ZstdException as {@link #decompress(MemorySegment, long, long, MemorySegment, long,
     *     long)}
     * @throws IndexOutOfBoundsException when a range is not within its array
     * @throws IllegalArgumentException when {@code src} and {@code dst} are one array and the
     *     ranges overlap ("source and destination overlap")
     * @throws IllegalStateException when this decompressor is closed, or in a call on another thread
     */
    public int decompress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstLen) {
        return (int) decompress(MemorySegment.ofArray(Objects.requireNonNull(src, "src")), srcOff, srcLen,
                MemorySegment.ofArray(Objects.requireNonNull(dst, "dst")), dstOff, dstLen);
    }

    // ---- shared by the one-shot paths and ZstdInputStream -------------------------------------

    /**
     * Checks the frame header at {@code src[offset, offset + length)} against the limit and the
     * dictionaries, and selects the frame's dictionary. Allocation free on success.
     *
     * @return the declared content size, or {@link ZstdFrames#CONTENT_SIZE_UNKNOWN}
     */
    long prepareFrame(MemorySegment src, long offset, long length) {
        return prepareHeader(src, offset, ZstdFrames.descriptor(src, offset, length));
    }

    /** Made by {@code holder} for itself: an unclosed warning names {@code holder} ({@link Unclosed.Resources#heldBy}). */
    void heldBy(String holder) {
        resources.heldBy(holder);
    }

    /**
     * Begins a stream's call: {@link CallGuard#enter()}; {@link #exit()} ends it. A stream holds
     * the guard for each of its calls, its source's read included: the scratch memory and the
     * in/out structs hold the call's state between libzstd's steps. {@link #prepareFrame},
     * {@link #streamStep} and {@link #reset()} are for callers inside it.
     */
    void enter() {
        guard.enter();
    }

    /** Ends a call begun by {@link #enter()}. */
    void exit() {
        guard.exit(this);
    }

    /**
     * A stream's {@code close()}: forgets {@code closing} if it is still the {@link #stream}, so
     * that a borrowed decompressor does not keep a stream closed mid-frame (and its source, and what
     * that holds) reachable until its next use. Never throws: where the guard refuses (closed,
     * another thread's call, or the stream's own call, its source closing it) the field is left
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
     * {@link #prepareFrame(MemorySegment, long, long)} of a header {@link ZstdFrames#descriptor} has
     * checked; the caller has checked that the decompressor is open.
     */
    private long prepareHeader(MemorySegment src, long offset, int fhd) {
        long declared = ZstdFrames.contentSizeOf(src, offset, fhd);
        if (declared != ZstdFrames.CONTENT_SIZE_UNKNOWN && Long.compareUnsigned(declared, maxDecompressedSize) > 0) {
            throw new ZstdException(ZstdException.Reason.TOO_LARGE, "frame larger than limit: declared="
                    + Long.toUnsignedString(declared) + ", limit=" + maxDecompressedSize);
        }
        long window = ZstdFrames.windowSizeOf(src, offset, fhd);
        if (window > 1L << windowLogMax) {
            // libzstd's streaming decoder refuses it too (ZSTD_d_windowLogMax); checking here
            // refuses it on every path, one-shot included, with the same reason.
            throw windowTooLarge(window, 0);
        }
        selectDictionary(ZstdFrames.dictionaryIdOf(src, offset, fhd));
        return declared;
    }

    /**
     * Throws unless {@code src[offset, offset + length)}, a whole input (not a stream's prefix), is
     * exactly one frame: ZSTD_decompressDCtx would go on to decode any frame after the first, past
     * the header that the limit, the dictionary choice and the caller's sizing trusted. Reads the
     * block headers in Java, no block content; returns whether all the blocks are raw or RLE.
     * An input that ends inside a block is {@code TRUNCATED}, unless a block header names more
     * than the block maximum: then it is {@code CORRUPT}, as the streaming decoder says.
     */
    private static boolean checkSingleFrame(MemorySegment src, long offset, long length, int fhd) {
        long walk;
        try {
            walk = ZstdFrames.walk(src, offset, length, fhd);
        } catch (ZstdException e) {
            if (e.reason() == ZstdException.Reason.TRUNCATED) {
                ZstdFrames.checkBlockSizes(src, offset, length, fhd);
            }
            throw e;
        }
        long frameLength = walk & ~ZstdFrames.ONLY_STORED_BLOCKS;
        if (frameLength != length) {
            throw new ZstdException(ZstdException.Reason.CORRUPT, "bytes after the frame: frame="
                    + frameLength + ", input=" + length + " (one zstd frame per input)");
        }
        return walk != frameLength;
    }

    private void selectDictionary(int id) {
        long wanted = NO_DDICT;
        for (int i = 0; i < dictIds.length; i++) {
            if (dictIds[i] == id) {
                wanted = ddicts[i];
                break;
            }
        }
        if (wanted == NO_DDICT && id != 0) {
            throw new ZstdException(ZstdException.Reason.DICTIONARY_MISSING, "frame needs a dictionary this "
                    + "decompressor lacks: dictionaryId=" + Integer.toUnsignedString(id)
                    + ", known=" + knownIds() + framesWithoutIdNote(id));
        }
        if (wanted != currentDDict) {
            try {
                // Referencing is only allowed between frames: end any session first.
                long ignored = (long) LibZstd.DCTX_RESET.invokeExact(dctx, LibZstd.RESET_SESSION_ONLY);
                long r = (long) LibZstd.DCTX_REF_DDICT.invokeExact(dctx, wanted);
                if (LibZstd.isError(r)) {
                    throw ZstdException.fromResult("ZSTD_DCtx_refDDict", r);
                }
            } catch (Throwable t) {
                throw LibZstd.rethrow(t);
            } finally {
                Reference.reachabilityFence(this);
            }
            currentDDict = wanted;
        }
    }

    /**
     * The IDs frames may name, for a DICTIONARY_MISSING message: key 0 only when a raw-content
     * dictionary's, and then said to be that (an ID no frame names, which listed alone read as a
     * dictionary the caller never gave).
     */
    private String knownIds() {
        StringBuilder s = new StringBuilder("[");
        boolean raw = false;
        for (int i = 0; i < dictIds.length; i++) {
            if (dictIds[i] != NO_DICTIONARY_ID || framesWithoutIdDictionaryId < 0) {
                s.append(s.length() == 1 ? "" : ",").append(Integer.toUnsignedString(dictIds[i]));
                raw |= dictIds[i] == NO_DICTIONARY_ID;
            }
        }
        return s.append(']').append(raw ? RAW_CONTENT_NOTE : "").toString();
    }

    /** After the known IDs when they list 0: which dictionary that is. */
    private static final String RAW_CONTENT_NOTE = " (0: the raw-content dictionary, used for frames without a dictionary ID)";

    /**
     * The end of a DICTIONARY_MISSING message on a decompressor with
     * {@code dictionaryForFramesWithoutId}: that dictionary's own ID, which it serves only for frames
     * naming none (listed as "known" it read as ID 0, which no dictionary given had), and the fix
     * when the frame names exactly that ID.
     */
    private String framesWithoutIdNote(int id) {
        if (framesWithoutIdDictionaryId < 0) {
            return "";
        }
        return ", forFramesWithoutId=" + framesWithoutIdDictionaryId
                + (framesWithoutIdDictionaryId == Integer.toUnsignedLong(id) ? FRAMES_WITH_ITS_ID_HINT : "");
    }

    /**
     * Appended when a frame names the ID of the dictionary set for frames without an ID only;
     * the pipeline and the cli name their options after it.
     */
    private static final String FRAMES_WITH_ITS_ID_HINT = "; that dictionary is set for frames without an ID"
            + " only: add it with dictionary(d) too for frames that name its ID";

    /** One {@code ZSTD_decompressStream} over {@code b}'s structs; resets the session on error. */
    long streamStep(StreamBuffers b) throws Throwable {
        long r = (long) LibZstd.DECOMPRESS_STREAM_RAW.invokeExact(dctx, b.outStruct, b.inStruct);
        Reference.reachabilityFence(this);
        if (LibZstd.isError(r)) {
            reset();
            if (LibZstd.errorCode(r) == LibZstd.ERR_WINDOW_TOO_LARGE) {
                // Past prepareFrame's check only with a single-segment frame above 2 GiB.
                throw windowTooLarge(-1, r);
            }
            throw decodeFailed("ZSTD_decompressStream", r);
        }
        return r;
    }

    /**
     * The exception for libzstd's error {@code r} while decoding. zstd always has the whole frame
     * or a stream that has not ended: the one-shot paths walk every block first, and a stream
     * reports its own end of input. So srcSize_wrong is a block whose sections run past the
     * block's size, and dstSize_tooSmall from the streaming decoder, which writes into its own
     * buffer, a block that decodes past the frame's window or declared size: a damaged frame
     * ({@code CORRUPT}), not a cut one or too small a destination. The one-shot path has already
     * told its own dstSize_tooSmall apart ({@link #outputFull}).
     */
    private ZstdException decodeFailed(String operation, long r) {
        int code = LibZstd.errorCode(r);
        boolean damaged = code == LibZstd.ERR_SRC_SIZE_WRONG || code == LibZstd.ERR_DST_SIZE_TOO_SMALL;
        // No dictionary referenced past selectDictionary means the frame named no ID (one naming an
        // unknown ID is refused there). With dictionaries at hand, or an error that only a frame
        // wanting a dictionary's tables raises, the likely cause is a sender that left the ID out.
        boolean withoutId = currentDDict == NO_DDICT && (dictIds.length > 0 || code == LibZstd.ERR_DICTIONARY_CORRUPTED);
        return ZstdException.fromResult(operation, r, damaged ? ZstdException.Reason.CORRUPT : ZstdException.reasonOf(code),
                damaged ? "; the frame was complete: a block is damaged" : "", withoutId ? FRAME_WITHOUT_ID_HINT : "");
    }

    /**
     * Appended to a decoding error of a frame that names no dictionary ID, decoded with no
     * dictionary ({@link #decodeFailed}); the pipeline names its option the same.
     */
    private static final String FRAME_WITHOUT_ID_HINT = "; the frame declares no dictionary ID and was decoded"
            + " without a dictionary: if its sender left the ID out (dictionaryIdInFrame(false), zstd --no-dictID),"
            + " set that dictionary with dictionaryForFramesWithoutId";

    /**
     * TOO_LARGE for a frame whose {@code window} (-1: libzstd's refusal, the size not known here)
     * is above {@link #windowLogMax}'s allowance, saying what would take it: a limit above half the
     * smallest power of two that holds the window ({@link #windowLogMax(long)} in reverse), or no
     * limit at all when that power is above 2^31, where a larger limit changes nothing.
     */
    private ZstdException windowTooLarge(long window, long r) {
        String message = "frame window larger than limit: window=" + (window < 0 ? "unknown" : Long.toString(window))
                + ", limit=" + (1L << windowLogMax) + " (from maxDecompressedSize=" + maxDecompressedSize + ")"
                + (window < 0 ? "" : windowRemedy(window));
        return ZstdException.withResult(ZstdException.Reason.TOO_LARGE, message, r);
    }

    /** The end of {@link #windowTooLarge}'s message for a known {@code window} above the allowance. */
    static String windowRemedy(long window) {
        int needed = 64 - Long.numberOfLeadingZeros(window - 1); // the smallest power of two holding it
        if (needed > ZstdFrames.WINDOW_LOG_MAX) {
            return "; no maxDecompressedSize allows it: the largest window taken is " + (1L << ZstdFrames.WINDOW_LOG_MAX)
                    + " (2^" + ZstdFrames.WINDOW_LOG_MAX + ")";
        }
        return "; a maxDecompressedSize above " + (1L << (needed - 1)) + " allows it";
    }

    StreamBuffers buffers() {
        ensureOpen();
        if (buffers == null) {
            buffers = new StreamBuffers();
            resources.buffers = buffers;
        }
        return buffers;
    }

    void reset() {
        if (closed) {
            return; // the context is freed: nothing to reset, and NULL would crash zstd
        }
        try {
            long ignored = (long) LibZstd.DCTX_RESET.invokeExact(dctx, LibZstd.RESET_SESSION_ONLY);
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("decompressor is closed");
        }
    }

    /**
     * Frees the context, the digested dictionaries and the scratch memory. Idempotent. Called while
     * another thread is in a call on this decompressor, it waits for that call to return (it spins
     * briefly, then parks with a pause doubling to 5 ms; an interrupt does not end the wait, and
     * stays set); a call that begins meanwhile throws "… is closed".
     *
     * @throws IllegalStateException when called from inside a call on this decompressor on the same
     *     thread (a stream's source or sink): it would wait for ever; close it once that call returned
     */
    @Override
    public void close() {
        if (!guard.close()) {
            return;
        }
        closed = true;
        stream = null; // a stream over it refuses its next call anyway ("… is closed"); nothing of it is kept
        dctx = 0;
        ddicts = new long[0];
        dictIds = new int[0];
        dictFingerprints = new long[0];
        buffers = null;
        resources.closedByOwner = true;
        cleanable.clean();
    }
}
