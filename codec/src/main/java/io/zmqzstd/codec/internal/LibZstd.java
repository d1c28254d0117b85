package io.zmqzstd.codec.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.zmqzstd.nativelib.NativeLibrary;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Raw bindings of libzstd (1.4.0 and newer, {@link NativeLibrary#MINIMUM_ZSTD_VERSION}): one
 * {@code static final MethodHandle} per function, the C signature in its comment, called with
 * {@code invokeExact}.
 *
 * <p>{@code size_t} is {@code JAVA_LONG} everywhere. Handles whose name ends in {@code _RAW} take
 * every pointer as a {@code long} address: callers pass {@code segment.address() + offset} after
 * checking bounds and liveness, so a (segment, offset, length) triple reaches C without a slice
 * object, and the hot path allocates nothing whatever escape analysis decides (it does not
 * remove a heap slice passed to a downcall: 40 B per slice, measured). Heap segments are
 * therefore never passed to zstd: the codec copies heap data through native scratch memory, and
 * no compression or decompression runs as a critical call that would hold off the GC.
 */
public final class LibZstd {

    private LibZstd() {
    }

    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    private static MethodHandle h(String name, FunctionDescriptor d, Linker.Option... o) {
        return NativeLibrary.ZSTD.downcall(name, d, o);
    }

    // ---- error handling --------------------------------------------------------------------

    /** zstd error codes are the top {@value} values of size_t ({@code ZSTD_error_maxCode}). */
    public static final int ERROR_MAX_CODE = 120;

    /** {@code ZSTD_isError}, in Java: no downcall per operation. */
    public static boolean isError(long result) {
        return result < 0 && result > -ERROR_MAX_CODE;
    }

    /** The {@code ZSTD_ErrorCode} enum value of an error result ({@code ZSTD_getErrorCode}). */
    public static int errorCode(long result) {
        return (int) -result;
    }

    // zstd_errors.h (stable values since 1.3.x)
    public static final int ERR_GENERIC = 1;
    public static final int ERR_PREFIX_UNKNOWN = 10;
    public static final int ERR_VERSION_UNSUPPORTED = 12;
    public static final int ERR_FRAME_PARAMETER_UNSUPPORTED = 14;
    public static final int ERR_WINDOW_TOO_LARGE = 16;
    public static final int ERR_CORRUPTION_DETECTED = 20;
    public static final int ERR_CHECKSUM_WRONG = 22;
    public static final int ERR_LITERALS_HEADER_WRONG = 24;
    public static final int ERR_DICTIONARY_CORRUPTED = 30;
    public static final int ERR_DICTIONARY_WRONG = 32;
    public static final int ERR_DST_SIZE_TOO_SMALL = 70;
    public static final int ERR_SRC_SIZE_WRONG = 72;

    /** const char* ZSTD_getErrorName(size_t code); */
    public static final MethodHandle GET_ERROR_NAME = h("ZSTD_getErrorName",
            FunctionDescriptor.of(ADDRESS, JAVA_LONG));
    /** ZSTD_ErrorCode ZSTD_getErrorCode(size_t functionResult); */
    public static final MethodHandle GET_ERROR_CODE = h("ZSTD_getErrorCode",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG));

    /** The zstd name of an error result, e.g. "Unknown frame descriptor". Error path only. */
    public static String errorName(long result) {
        try {
            MemorySegment s = (MemorySegment) GET_ERROR_NAME.invokeExact(result);
            return s.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- version, bounds --------------------------------------------------------------------

    /** unsigned ZSTD_versionNumber(void); */
    public static final MethodHandle VERSION_NUMBER = h("ZSTD_versionNumber",
            FunctionDescriptor.of(JAVA_INT), CRITICAL);
    /** const char* ZSTD_versionString(void); */
    public static final MethodHandle VERSION_STRING = h("ZSTD_versionString",
            FunctionDescriptor.of(ADDRESS));
    /** size_t ZSTD_compressBound(size_t srcSize); */
    public static final MethodHandle COMPRESS_BOUND = h("ZSTD_compressBound",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG), CRITICAL);

    // ---- compression context ----------------------------------------------------------------

    public static final int C_COMPRESSION_LEVEL = 100;
    public static final int C_CONTENT_SIZE_FLAG = 200;
    public static final int C_CHECKSUM_FLAG = 201;
    public static final int C_DICT_ID_FLAG = 202;
    public static final int C_NB_WORKERS = 400;
    public static final int D_WINDOW_LOG_MAX = 100;

    /** ZSTD_ResetDirective */
    public static final int RESET_SESSION_ONLY = 1;
    public static final int RESET_PARAMETERS = 2;
    public static final int RESET_SESSION_AND_PARAMETERS = 3;

    /** ZSTD_EndDirective */
    public static final int E_CONTINUE = 0;
    public static final int E_FLUSH = 1;
    public static final int E_END = 2;

    /** ZSTD_CCtx* ZSTD_createCCtx(void); */
    public static final MethodHandle CREATE_CCTX = h("ZSTD_createCCtx", FunctionDescriptor.of(JAVA_LONG));
    /** size_t ZSTD_freeCCtx(ZSTD_CCtx* cctx); */
    public static final MethodHandle FREE_CCTX = h("ZSTD_freeCCtx", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    /** size_t ZSTD_CCtx_reset(ZSTD_CCtx* cctx, ZSTD_ResetDirective reset); */
    public static final MethodHandle CCTX_RESET = h("ZSTD_CCtx_reset",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT), CRITICAL);
    /** size_t ZSTD_CCtx_setParameter(ZSTD_CCtx* cctx, ZSTD_cParameter param, int value); */
    public static final MethodHandle CCTX_SET_PARAMETER = h("ZSTD_CCtx_setParameter",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT));
    /** {@code ZSTD_bounds}: {@code size_t error; int lowerBound; int upperBound;}. */
    public static final StructLayout BOUNDS = MemoryLayout.structLayout(JAVA_LONG.withName("error"),
            JAVA_INT.withName("lowerBound"), JAVA_INT.withName("upperBound"));
    /**
     * ZSTD_bounds ZSTD_cParam_getBounds(ZSTD_cParameter cParam), a struct returned by value (the
     * handle takes a SegmentAllocator first); stable since 1.4.0.
     */
    public static final MethodHandle C_PARAM_GET_BOUNDS = h("ZSTD_cParam_getBounds",
            FunctionDescriptor.of(BOUNDS, JAVA_INT));
    /** size_t ZSTD_CCtx_setPledgedSrcSize(ZSTD_CCtx* cctx, unsigned long long pledgedSrcSize); */
    public static final MethodHandle CCTX_SET_PLEDGED_SRC_SIZE = h("ZSTD_CCtx_setPledgedSrcSize",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG), CRITICAL);
    /** size_t ZSTD_CCtx_refCDict(ZSTD_CCtx* cctx, const ZSTD_CDict* cdict); */
    public static final MethodHandle CCTX_REF_CDICT = h("ZSTD_CCtx_refCDict",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
    /**
     * size_t ZSTD_compressCCtx(ZSTD_CCtx* cctx, void* dst, size_t dstCapacity, const void* src, size_t srcSize,
     * int compressionLevel): the level alone, every other parameter at its default (content size
     * written, no checksum, no dictionary, one thread); the context's own parameters are left as they are.
     */
    public static final MethodHandle COMPRESS_CCTX_RAW = h("ZSTD_compressCCtx",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT));
    /** size_t ZSTD_compress2(ZSTD_CCtx* cctx, void* dst, size_t dstCapacity, const void* src, size_t srcSize); */
    public static final MethodHandle COMPRESS2_RAW = h("ZSTD_compress2",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    /** size_t ZSTD_compressStream2(ZSTD_CCtx* cctx, ZSTD_outBuffer* output, ZSTD_inBuffer* input, ZSTD_EndDirective endOp); */
    public static final MethodHandle COMPRESS_STREAM2_RAW = h("ZSTD_compressStream2",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT));

    // ---- decompression context --------------------------------------------------------------

    /** ZSTD_DCtx* ZSTD_createDCtx(void); */
    public static final MethodHandle CREATE_DCTX = h("ZSTD_createDCtx", FunctionDescriptor.of(JAVA_LONG));
    /** size_t ZSTD_freeDCtx(ZSTD_DCtx* dctx); */
    public static final MethodHandle FREE_DCTX = h("ZSTD_freeDCtx", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    /** size_t ZSTD_DCtx_reset(ZSTD_DCtx* dctx, ZSTD_ResetDirective reset); */
    public static final MethodHandle DCTX_RESET = h("ZSTD_DCtx_reset",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT), CRITICAL);
    /** size_t ZSTD_DCtx_setParameter(ZSTD_DCtx* dctx, ZSTD_dParameter param, int value); */
    public static final MethodHandle DCTX_SET_PARAMETER = h("ZSTD_DCtx_setParameter",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT));
    /** size_t ZSTD_DCtx_refDDict(ZSTD_DCtx* dctx, const ZSTD_DDict* ddict); */
    public static final MethodHandle DCTX_REF_DDICT = h("ZSTD_DCtx_refDDict",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG), CRITICAL);
    /** size_t ZSTD_decompressDCtx(ZSTD_DCtx* dctx, void* dst, size_t dstCapacity, const void* src, size_t srcSize); */
    public static final MethodHandle DECOMPRESS_DCTX_RAW = h("ZSTD_decompressDCtx",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    /** size_t ZSTD_decompressStream(ZSTD_DStream* zds, ZSTD_outBuffer* output, ZSTD_inBuffer* input); */
    public static final MethodHandle DECOMPRESS_STREAM_RAW = h("ZSTD_decompressStream",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));

    // ---- frame inspection (short: critical) -------------------------------------------------

    /** unsigned long long ZSTD_getFrameContentSize(const void* src, size_t srcSize); */
    public static final MethodHandle GET_FRAME_CONTENT_SIZE_RAW = h("ZSTD_getFrameContentSize",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG), CRITICAL);
    /** unsigned ZSTD_getDictID_fromFrame(const void* src, size_t srcSize); */
    public static final MethodHandle GET_DICT_ID_FROM_FRAME_RAW = h("ZSTD_getDictID_fromFrame",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG), CRITICAL);
    /** size_t ZSTD_findFrameCompressedSize(const void* src, size_t srcSize); walks block headers only. */
    public static final MethodHandle FIND_FRAME_COMPRESSED_SIZE_RAW = h("ZSTD_findFrameCompressedSize",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG), CRITICAL);

    /** ZSTD_CONTENTSIZE_UNKNOWN: (0ULL - 1) */
    public static final long CONTENTSIZE_UNKNOWN = -1L;
    /** ZSTD_CONTENTSIZE_ERROR: (0ULL - 2) */
    public static final long CONTENTSIZE_ERROR = -2L;

    // ---- dictionaries -----------------------------------------------------------------------

    /** ZSTD_CDict* ZSTD_createCDict(const void* dictBuffer, size_t dictSize, int compressionLevel); copies the buffer. */
    public static final MethodHandle CREATE_CDICT = h("ZSTD_createCDict",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT));
    /** size_t ZSTD_freeCDict(ZSTD_CDict* CDict); */
    public static final MethodHandle FREE_CDICT = h("ZSTD_freeCDict", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    /** ZSTD_DDict* ZSTD_createDDict(const void* dictBuffer, size_t dictSize); copies the buffer. */
    public static final MethodHandle CREATE_DDICT = h("ZSTD_createDDict",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
    /** size_t ZSTD_freeDDict(ZSTD_DDict* ddict); */
    public static final MethodHandle FREE_DDICT = h("ZSTD_freeDDict", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG));
    /** unsigned ZSTD_getDictID_fromDict(const void* dict, size_t dictSize); */
    public static final MethodHandle GET_DICT_ID_FROM_DICT = h("ZSTD_getDictID_fromDict",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    /**
     * size_t ZDICT_trainFromBuffer(void* dictBuffer, size_t dictBufferCapacity,
     * const void* samplesBuffer, const size_t* samplesSizes, unsigned nbSamples);
     */
    public static final MethodHandle ZDICT_TRAIN_FROM_BUFFER = h("ZDICT_trainFromBuffer",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT));

    // ---- live native objects, for leak tests ----------------------------------------------

    /** Live CCtx, DCtx, CDict, DDict created by this process through the codec. */
    public static final AtomicLong LIVE_CCTX = new AtomicLong();
    public static final AtomicLong LIVE_DCTX = new AtomicLong();
    public static final AtomicLong LIVE_CDICT = new AtomicLong();
    public static final AtomicLong LIVE_DDICT = new AtomicLong();
    /** Live scratch arenas (StreamBuffers: 512 KiB each) of compressors and decompressors. */
    public static final AtomicLong LIVE_SCRATCH = new AtomicLong();
    /** Compressors and decompressors freed by the cleaner because they were dropped unclosed. */
    public static final AtomicLong UNCLOSED_FREED = new AtomicLong();

    /** Sum of all live native objects: a test records it, closes everything, and compares. */
    public static long liveNativeObjects() {
        return LIVE_CCTX.get() + LIVE_DCTX.get() + LIVE_CDICT.get() + LIVE_DDICT.get() + LIVE_SCRATCH.get();
    }

    /** Rethrows what {@code invokeExact} declared: native calls throw nothing checked. */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("unexpected checked exception from a downcall", t);
    }
}
