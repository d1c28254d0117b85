package io.zmqzstd.codec;

import io.zmqzstd.codec.internal.LibZstd;

/**
 * A zstd operation failed: the input is not what it claims to be, or a limit was hit. Carries
 * zstd's own error name and code when zstd reported the error, and a {@link Reason} to branch on.
 *
 * <p>After this exception the compressor or decompressor that threw it has reset its session
 * and is usable for the next frame.
 *
 * <p>The one-call paths throw it as it is; {@link ZstdInputStream} and {@link ZstdOutputStream}
 * throw it as the cause of a {@link ZstdStreamException}, the {@link java.io.IOException} that
 * {@code java.io} code catches, with the same message, reason, code and name.
 */
public class ZstdException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why an operation failed, independent of zstd's numbering. */
    public enum Reason {
        /** The frame is damaged (bad block, bad literals, bad sequences). */
        CORRUPT,
        /**
         * The input ends before the frame does: anywhere after its first byte, inside the magic
         * number too (1 to 3 bytes that {@code 28 B5 2F FD} starts with). Also, compressing, a
         * {@link ZstdOutputStream} given another number of bytes than it pledged, fewer or more
         * (libzstd's {@code srcSize_wrong}).
         */
        TRUNCATED,
        /**
         * The input does not start with the zstd frame magic number {@code 28 B5 2F FD} (read
         * little-endian, {@code 0xFD2FB528}), and is not a cut start of it. Where one input is one
         * frame, a skippable frame is this too, whole or cut.
         */
        NOT_ZSTD,
        /** The frame needs a dictionary that was not given, or the wrong one was given. */
        DICTIONARY_MISSING,
        /** The frame decompresses to more than the decompressor's limit. */
        TOO_LARGE,
        /** The destination has less room than the result needs. */
        DESTINATION_TOO_SMALL,
        /**
         * The input is empty: no frame at all (0 bytes given; for a {@link ZstdInputStream}, a
         * source that ended before giving a byte).
         */
        EMPTY,
        /** The content checksum does not match. */
        CHECKSUM,
        /** Anything else zstd reports (parameters, memory, unsupported frame). */
        OTHER
    }

    /** Why the operation failed. */
    private final Reason reason;
    /** zstd's error code, or 0 when zmq-zstd found the error itself. */
    private final long errorCode;
    /** zstd's error name, or "" when zmq-zstd found the error itself. */
    private final String errorName;

    /**
     * An error found by zmq-zstd itself, before or instead of a zstd call; {@link #errorCode()}
     * is 0.
     *
     * @param reason why the operation failed
     * @param message the detail message
     */
    public ZstdException(Reason reason, String message) {
        super(message);
        this.reason = reason;
        this.errorCode = 0;
        this.errorName = "";
    }

    private ZstdException(Reason reason, String message, long errorCode, String errorName) {
        super(message);
        this.reason = reason;
        this.errorCode = errorCode;
        this.errorName = errorName;
    }

    /**
     * An exception for the error result {@code result} of a zstd call made by {@code operation}.
     * Error path only: allocates.
     */
    static ZstdException fromResult(String operation, long result) {
        return fromResult(operation, result, reasonOf(LibZstd.errorCode(result)), "", "");
    }

    /**
     * {@link #fromResult(String, long)} with the {@code reason} chosen by the caller, {@code note}
     * added inside the parentheses and {@code after} after them. Error path only: allocates.
     */
    static ZstdException fromResult(String operation, long result, Reason reason, String note, String after) {
        int code = LibZstd.errorCode(result);
        String name = LibZstd.errorName(result);
        return new ZstdException(reason, operation + " failed: " + name + " (reason=" + reason
                + ", zstdError=" + code + note + ")" + after, code, name);
    }

    /**
     * Like {@link #fromResult} but with a reason and message chosen by the caller; a
     * {@code result} of 0 means zmq-zstd found the problem itself (no zstd code or name).
     */
    static ZstdException withResult(Reason reason, String message, long result) {
        if (result == 0) {
            return new ZstdException(reason, message);
        }
        int code = LibZstd.errorCode(result);
        return new ZstdException(reason, message, code, LibZstd.errorName(result));
    }

    /**
     * This exception's reason, zstd code and name, and stack trace, with {@code context} appended
     * to its message: where in a stream it happened. Error path only: allocates.
     */
    ZstdException withContext(String context) {
        ZstdException e = new ZstdException(reason, getMessage() + context, errorCode, errorName);
        e.setStackTrace(getStackTrace());
        return e;
    }

    static Reason reasonOf(int code) {
        return switch (code) {
            case LibZstd.ERR_PREFIX_UNKNOWN -> Reason.NOT_ZSTD;
            case LibZstd.ERR_DICTIONARY_WRONG, LibZstd.ERR_DICTIONARY_CORRUPTED -> Reason.DICTIONARY_MISSING;
            case LibZstd.ERR_SRC_SIZE_WRONG -> Reason.TRUNCATED;
            case LibZstd.ERR_CORRUPTION_DETECTED, LibZstd.ERR_LITERALS_HEADER_WRONG -> Reason.CORRUPT;
            case LibZstd.ERR_CHECKSUM_WRONG -> Reason.CHECKSUM;
            case LibZstd.ERR_DST_SIZE_TOO_SMALL -> Reason.DESTINATION_TOO_SMALL;
            case LibZstd.ERR_WINDOW_TOO_LARGE -> Reason.TOO_LARGE;
            default -> code >= 20 && code < 30 ? Reason.CORRUPT : Reason.OTHER;
        };
    }

    /**
     * Why the operation failed.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }

    /**
     * zstd's {@code ZSTD_ErrorCode}, or 0 when the error was detected by zmq-zstd itself.
     *
     * @return the error code, or 0
     */
    public long errorCode() {
        return errorCode;
    }

    /**
     * zstd's {@code ZSTD_getErrorName}, or "" when the error was detected by zmq-zstd itself.
     *
     * @return the error name, e.g. {@code "Src size is incorrect"}, or ""
     */
    public String errorName() {
        return errorName;
    }
}
