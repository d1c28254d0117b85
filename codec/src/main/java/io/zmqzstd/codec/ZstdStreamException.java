package io.zmqzstd.codec;

import java.io.IOException;

/**
 * A {@link ZstdInputStream} or {@link ZstdOutputStream} refused its data: a cut, corrupt or
 * foreign frame, a missing dictionary, a size limit, a pledged size not met. It is the
 * {@link IOException} that {@code java.io} code catches, as the JDK's compressed streams throw
 * {@link java.util.zip.ZipException} for bad data, so {@code catch (IOException e)},
 * {@link java.io.InputStream#transferTo} and {@link java.nio.file.Files#copy(java.io.InputStream,
 * java.nio.file.Path, java.nio.file.CopyOption...)} see a stream's first error as they see its
 * later ones ("stream failed earlier: …", which carry this exception as their cause).
 *
 * <p>Its cause is the {@link ZstdException} the one-call paths throw for the same data, and it
 * carries that exception's message (where in the stream, for an error inside a frame),
 * {@link #reason()}, {@link #errorCode()} and {@link #errorName()}. Misuse stays unchecked:
 * a closed or taken-over owner is an {@link IllegalStateException}, a range outside the array an
 * {@link IndexOutOfBoundsException}.
 */
public final class ZstdStreamException extends IOException {

    private static final long serialVersionUID = 1L;

    /** The wrapped exception's reason. */
    private final ZstdException.Reason reason;
    /** The wrapped exception's zstd code, or 0. */
    private final long errorCode;
    /** The wrapped exception's zstd name, or "". */
    private final String errorName;

    /** The stream's error for {@code cause}, with its message. Error path only: allocates. */
    ZstdStreamException(ZstdException cause) {
        super(cause.getMessage(), cause);
        this.reason = cause.reason();
        this.errorCode = cause.errorCode();
        this.errorName = cause.errorName();
    }

    /**
     * Why the stream failed, as {@link ZstdException#reason()}.
     *
     * @return the reason
     */
    public ZstdException.Reason reason() {
        return reason;
    }

    /**
     * zstd's {@code ZSTD_ErrorCode}, or 0 when the error was detected by zmq-zstd itself, as
     * {@link ZstdException#errorCode()}.
     *
     * @return the error code, or 0
     */
    public long errorCode() {
        return errorCode;
    }

    /**
     * zstd's {@code ZSTD_getErrorName}, or "" when the error was detected by zmq-zstd itself, as
     * {@link ZstdException#errorName()}.
     *
     * @return the error name, e.g. {@code "Data corruption detected"}, or ""
     */
    public String errorName() {
        return errorName;
    }
}
