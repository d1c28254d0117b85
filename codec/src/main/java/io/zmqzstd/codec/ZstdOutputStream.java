package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.zmqzstd.codec.internal.LibZstd;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Writes one zstd frame to an {@link OutputStream}, for payloads one does not want to hold
 * whole ({@code ZSTD_compressStream2} over the compressor's reused context and native scratch
 * memory). The frame declares its content size only when it is given up front.
 *
 * <p>zstd's refusals (a pledged size not met, a parameter or memory error) are a
 * {@link ZstdStreamException}, an {@link IOException} that carries the
 * {@link ZstdException#reason() reason}, zstd's code and name, and as cause the
 * {@link ZstdException} a one-call compression would throw.
 *
 * <p>{@link #close()} ends the frame and closes the underlying stream; it closes the compressor
 * only when this stream created it. It is idempotent, and every write or flush after it throws
 * {@link IOException}. After a failed write or flush (zstd's error or the underlying stream's,
 * an {@link Error} such as a {@code ByteArrayOutputStream}'s {@link OutOfMemoryError} included)
 * the stream takes nothing more: later writes, flushes and {@code close()} throw
 * {@link IOException} with that failure as cause, and the frame is not ended, also by the
 * {@code close()} of a try-with-resources that the failure leaves. A borrowed
 * compressor must not be used for anything else until this stream is closed; closed meanwhile,
 * it makes the stream's next write, flush or close throw {@link IllegalStateException}
 * ("compressor is closed"), a failure as above. Used meanwhile for a one-call compression or
 * another stream, it is theirs: that call or stream works, and this stream's next write, flush or
 * close throws {@link IllegalStateException} ("compressor was used by … while this stream was
 * open …"), a failure as above, its frame lost, where the two used to mix into frames that
 * decoded to wrong bytes without an error (or, a one-call compression between two writes, crashed
 * the process). The array a write of the sink is given belongs to the compressor and is
 * overwritten by this stream's next write and by any later stream over the compressor: a sink
 * must copy what it keeps past its {@code write}, as for {@link java.util.zip.DeflaterOutputStream}.
 * Not thread-safe. Each write, flush and close is a
 * call on the compressor, the sink's writes included: another thread's call on the compressor
 * meanwhile is refused ("compressor used by two threads at once"), and its {@code close()} waits
 * for the stream's call to return; a stream's call that finds another thread in one is refused
 * the same way, a failure as above.
 */
public final class ZstdOutputStream extends OutputStream {

    private final OutputStream out;
    private final ZstdCompressor compressor;
    private final boolean ownsCompressor;
    private final StreamBuffers buffers;
    /** The compressor's heap chunk ({@link StreamBuffers#heapChunk()}), the sink's writes are made from. */
    private final byte[] heapOut;
    private final byte[] oneByte = new byte[1];
    /** The content size the frame declares, or -1; {@link #written} may not pass it. */
    private final long pledged;
    /** Content bytes taken so far, checked against {@link #pledged}. */
    private long written;
    private boolean closed;
    /**
     * The first write or flush failure, an {@link Error} from the sink included: the frame is then
     * incomplete, so nothing more goes into it.
     */
    private Throwable failure;

    /**
     * A stream with its own compressor at {@code level}.
     *
     * @param out where the frame is written; {@link #close()} closes it
     * @param level the compression level, as for {@link ZstdCompressor.Builder#level(int)}
     */
    public ZstdOutputStream(OutputStream out, int level) {
        this(Objects.requireNonNull(out, "out"), new ZstdCompressor(level), true, -1);
    }

    /**
     * A stream over a borrowed compressor; the frame does not declare its size.
     *
     * @param out where the frame is written; {@link #close()} closes it
     * @param compressor the compressor to use, with its settings, still the caller's:
     *     {@link #close()} leaves it open
     * @throws IllegalStateException when {@code compressor} is closed, or in a call on another thread
     * @throws NullPointerException naming {@code out} or {@code compressor} when it is null
     */
    public ZstdOutputStream(OutputStream out, ZstdCompressor compressor) {
        this(out, compressor, false, -1);
    }

    /**
     * A stream over a borrowed compressor whose frame declares {@code contentSizeBytes}; writing
     * any other number of bytes fails ({@link ZstdStreamException}, {@code TRUNCATED}): fewer at {@link #close()}, before the
     * frame is ended ("less content than the frame declares: pledged=…, written=…", with libzstd's
     * code for {@code srcSize_wrong}, which libzstd 1.5.4 with workers did not report), more at the write that passes the pledge ("more content than the
     * frame declares: pledged=…, written=…, this write=…"), before any of its bytes is compressed
     * or handed on, which is a failed write as described above.
     *
     * @param out where the frame is written; {@link #close()} closes it
     * @param compressor the compressor to use, with its settings, still the caller's:
     *     {@link #close()} leaves it open
     * @param contentSizeBytes the number of bytes that will be written; a negative value
     *     declares no size, as the two-argument constructor does
     * @throws IllegalStateException when {@code compressor} is closed, or in a call on another thread
     * @throws NullPointerException naming {@code out} or {@code compressor} when it is null
     */
    public ZstdOutputStream(OutputStream out, ZstdCompressor compressor, long contentSizeBytes) {
        this(out, compressor, false, contentSizeBytes);
    }

    private ZstdOutputStream(OutputStream out, ZstdCompressor compressor, boolean owns, long pledged) {
        this.out = Objects.requireNonNull(out, "out");
        this.compressor = Objects.requireNonNull(compressor, "compressor");
        this.ownsCompressor = owns;
        this.pledged = pledged < 0 ? -1 : pledged;
        if (owns) {
            compressor.heldBy("ZstdOutputStream"); // dropped unclosed, the stream is what was forgotten
        }
        // inside the guard, as for ZstdInputStream: outside, a close on another thread could
        // free the scratch before this one was recorded, leaking it
        compressor.enter();
        try {
            this.buffers = compressor.buffers();
            this.heapOut = buffers.heapChunk();
            compressor.beginFrame(pledged);
            compressor.stream = this; // a stream made before over the compressor, mid-frame, refuses its next call
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        } finally {
            compressor.exit();
        }
    }

    /**
     * Writes one byte of content, as {@link #write(byte[], int, int)} does.
     *
     * @throws ZstdStreamException as {@link #write(byte[], int, int)}
     * @throws IOException as {@link #write(byte[], int, int)}
     */
    @Override
    public void write(int b) throws IOException {
        oneByte[0] = (byte) b;
        write(oneByte, 0, 1);
    }

    /**
     * Compresses {@code len} bytes of content, handing the sink what zstd gives.
     *
     * @throws ZstdStreamException when zstd refuses, or the write passes a pledged size
     *     ({@code TRUNCATED}, before any of it is compressed); it fails the stream
     * @throws IOException when the sink fails, or this stream is closed or failed earlier
     *     ("stream failed earlier: …", the first failure as cause)
     * @throws IllegalStateException when a borrowed compressor is closed, taken over, or in a call
     *     on another thread, a failure as above
     * @throws IndexOutOfBoundsException when the range is outside {@code b}, before anything else
     */
    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        ensureOpen();
        call(WRITE, b, off, len);
    }

    /**
     * Flushes what zstd buffered as a complete block, then the underlying stream. When either
     * fails (the underlying stream's own flush included: what it was given may be lost), the
     * stream takes nothing more, as after a failed write.
     *
     * @throws ZstdStreamException when zstd refuses; it fails the stream
     * @throws IOException when the underlying stream fails, or this stream is closed or failed earlier
     */
    @Override
    public void flush() throws IOException {
        ensureOpen();
        call(LibZstd.E_FLUSH, null, 0, 0);
    }

    /**
     * Ends the frame, closes the underlying stream, and the compressor if this stream made it.
     * The underlying stream is closed even when ending the frame fails (a pledged size not met,
     * a failed write); that failure is what this method throws. Called from inside this stream's
     * own write or flush (its sink closing it), it cannot end the frame or free its own compressor
     * ({@link IllegalStateException}, as {@link ZstdCompressor#close()} says): a later call, once
     * that write has returned, frees the compressor (or has a borrowed one forget this stream,
     * which it then keeps reachable no longer); the frame stays unended.
     *
     * @throws ZstdStreamException when zstd refuses to end the frame, or fewer bytes were written
     *     than pledged ({@code TRUNCATED}, the frame not ended)
     * @throws IOException when the sink fails, or after a failed write or flush ("stream failed
     *     earlier, frame not ended: …", the first failure as cause)
     */
    @Override
    public void close() throws IOException {
        try {
            if (!closed) {
                closed = true;
                endFrameAndCloseSink();
            }
        } finally {
            // Again at a later close: nothing if done, else what a close from inside a write could not do
            if (ownsCompressor) {
                compressor.close();
            } else {
                // ending the frame forgets it, a close refused (from inside a write, on another thread's call) did not
                compressor.release(this);
            }
        }
    }

    /** The sink is closed even when ending the frame fails. */
    private void endFrameAndCloseSink() throws IOException {
        try (out) {
            if (failure != null) {
                throw new IOException("stream failed earlier, frame not ended: " + failure.getMessage(), failure);
            }
            call(LibZstd.E_END, null, 0, 0);
        }
    }

    /** {@link #call}'s op for a write; the others are zstd's end directives. */
    private static final int WRITE = -1;

    /**
     * A write ({@link #WRITE}), flush or end of frame, inside the compressor's guard: the scratch
     * memory and the structs hold its state between zstd's steps, so no other thread may use the
     * compressor until it returns, the sink's writes included. The first failure is kept: the
     * stream takes nothing more, and a borrowed compressor's session is ended for other frames.
     */
    private void call(int op, byte[] b, int off, int len) throws IOException {
        try {
            // before the scratch memory is touched: refused when the compressor is closed or busy
            compressor.enter();
        } catch (IllegalStateException e) {
            failed(e);
            throw e;
        }
        if (compressor.stream != this) {
            // Taken over by a one-call compression or a newer stream: not the try below, whose
            // reset would end the frame of what holds the context now
            IllegalStateException e = StreamBuffers.takenOver("compressor", "compress", compressor.stream);
            compressor.exit();
            failed(e);
            throw e;
        }
        try {
            if (op == WRITE) {
                if (pledged >= 0 && len > pledged - written) {
                    // libzstd checks the pledge only when it compresses a block: a write that
                    // passes it by less than a block went through, the error coming at the next
                    // flush or close. Refused here before zstd or the sink sees any of it.
                    throw new ZstdStreamException(new ZstdException(ZstdException.Reason.TRUNCATED,
                            "more content than the frame declares: pledged=" + pledged + ", written=" + written
                            + ", this write=" + len));
                }
                writeChunks(b, off, len);
                written += len;
            } else {
                if (op == LibZstd.E_END && pledged >= 0 && written < pledged) {
                    // libzstd checks this only without workers: with them (1.5.4) it ended the
                    // frame, declaring the pledged size over fewer bytes, and reported success.
                    throw new ZstdStreamException(ZstdException.withResult(ZstdException.Reason.TRUNCATED,
                            "less content than the frame declares: pledged=" + pledged + ", written=" + written,
                            -(long) LibZstd.ERR_SRC_SIZE_WRONG));
                }
                drainWith(op);
                if (op == LibZstd.E_FLUSH) {
                    out.flush();
                } else {
                    compressor.stream = null; // the frame is ended: the compressor keeps no reference to this stream or its sink
                }
            }
        } catch (Throwable e) {
            // Errors too (a ByteArrayOutputStream sink past 2 GiB throws OutOfMemoryError): the
            // output zstd gave the sink is lost, so a close() in try-with-resources must not end
            // the frame as if it were whole.
            failed(e);
            compressor.reset();
            compressor.stream = null;
            throw e;
        } finally {
            compressor.exit();
        }
    }

    private void failed(Throwable e) {
        if (failure == null) {
            failure = e;
        }
    }

    private void writeChunks(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            int chunk = Math.min(len, StreamBuffers.SCRATCH_BYTES);
            MemorySegment.copy(b, off, buffers.scratchIn, JAVA_BYTE, 0, chunk);
            buffers.setIn(buffers.scratchInAddress, chunk);
            do {
                step(LibZstd.E_CONTINUE);
            } while (buffers.inPos() < chunk);
            off += chunk;
            len -= chunk;
        }
    }

    private void drainWith(int op) throws IOException {
        buffers.setIn(buffers.scratchInAddress, 0);
        while (step(op) != 0) {
            // zstd has more to write out
        }
    }

    private long step(int op) throws IOException {
        buffers.setOutToScratch();
        long remaining;
        try {
            remaining = compressor.streamStep(buffers, op);
        } catch (ZstdException e) {
            throw new ZstdStreamException(e); // the IOException java.io code catches; error path only
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
        int produced = (int) buffers.outPos();
        if (produced > 0) {
            MemorySegment.copy(buffers.scratchOut, JAVA_BYTE, 0, heapOut, 0, produced);
            out.write(heapOut, 0, produced);
        }
        return remaining;
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("stream is closed");
        }
        if (failure != null) {
            throw new IOException("stream failed earlier: " + failure.getMessage(), failure);
        }
    }
}
