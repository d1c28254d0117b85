package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.zmqzstd.codec.internal.LibZstd;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Reads the content of one or more concatenated zstd frames from an {@link InputStream}
 * ({@code ZSTD_decompressStream} over the decompressor's reused context and native scratch
 * memory), stepping over skippable frames as {@code zstd -d} does. Each frame's header is checked like {@link ZstdDecompressor#decompress} does
 * (limit, dictionary); the total content read, over all frames, is held to the decompressor's
 * {@link ZstdDecompressor#maxDecompressedSize()} ({@code TOO_LARGE}, "stream larger than limit"
 * when frames that each fit pass it together, from the header of a frame that declares more
 * than the limit leaves: a long concatenation needs a limit above its total). Bad input is a
 * {@link ZstdStreamException}, an {@link IOException} (as {@link java.util.zip.ZipException} is
 * for the JDK's streams) that carries the {@link ZstdException#reason() reason}, zstd's code and
 * name, and as cause the {@link ZstdException} the one-call paths throw for the same bytes;
 * once a frame has begun, the message ends with where: {@code "; in the stream: frame=3,
 * inputOffset=…, contentOffset=…"}, the frame's number from 1 (skippable frames counted), the
 * offset of its first byte in the input and of its content in what the stream returns.
 *
 * <p>Input that ends between frames ends the stream ({@code -1}); input that ends inside a frame
 * or a skippable frame, inside its magic number included, is {@code TRUNCATED}; a source that
 * ends before giving any byte is {@code EMPTY}, and bytes that start no frame are {@code NOT_ZSTD}.
 *
 * <p>After an error (bad input, limit, a failing source, an {@link Error} from it included) the
 * stream refuses further reads with an {@link IOException} that carries the first error as its
 * cause; the decompressor is left ready for other frames. An {@link InterruptedIOException} from
 * the source (a {@link java.net.SocketTimeoutException} from a socket with {@code SO_TIMEOUT}) is
 * not an error of the stream: it reaches the caller with the stream's state kept, and the next
 * read goes on where the source stopped, mid-frame or inside a skippable frame included. The
 * exception says the source gave nothing: a source that took bytes before throwing it, which its
 * {@code bytesTransferred} would count, lost them, and the next read sees the gap.
 *
 * <p>{@link #close()} closes the underlying stream, and the decompressor only when this stream
 * created it; it is idempotent, and every read, skip or {@link #available()} after it throws
 * {@link IOException}. A borrowed decompressor must not be used for anything else until this
 * stream is closed; closed mid-frame, the stream leaves it ready for other frames, and keeps no
 * reference from it to the stream or its source. A borrowed
 * decompressor closed while the stream uses it makes the next read throw
 * {@link IllegalStateException} ("decompressor is closed"), an error as above. Used meanwhile
 * for a one-call decompression or another stream, it is theirs: that call or stream works, and
 * this stream's next read throws {@link IllegalStateException} ("decompressor was used by … while
 * this stream was open …"), an error as above, where it used to return wrong bytes without an
 * error; a stream that has returned -1 at the end of its input holds nothing in the decompressor
 * and goes on returning -1, also once the decompressor is closed. The array the source's {@code read} fills belongs to the
 * decompressor, shared by every stream over it: a source must not keep it past its {@code read}.
 * Not thread-safe.
 * Each read is a call on the decompressor, the source's reads included: another thread's call on
 * the decompressor meanwhile is refused ("decompressor used by two threads at once"), and its
 * {@code close()} waits for the read to return; a read that finds another thread in a call on the
 * decompressor is refused the same way, an error as above.
 */
public final class ZstdInputStream extends InputStream {

    private final InputStream in;
    private final ZstdDecompressor decompressor;
    private final boolean ownsDecompressor;
    private final StreamBuffers buffers;
    /** The decompressor's heap chunk ({@link StreamBuffers#heapChunk()}), the source's reads go into. */
    private final byte[] heapIn;
    private final byte[] oneByte = new byte[1];
    private long outRead;
    private long outAvailable;
    private long total;
    /** {@link #total} when the current frame started: above 0, earlier frames count toward the limit. */
    private long totalBeforeFrame;
    /** Frames begun, skippable ones included: the current frame's number, from 1, for error messages. */
    private long frames;
    /** Source bytes dropped from the front of the input scratch by {@link #refill()}: its offset in the input. */
    private long discarded;
    /** The input offset of the current frame's first byte. */
    private long frameStart;
    /** The content size the current frame's header declares, or {@link ZstdFrames#CONTENT_SIZE_UNKNOWN}. */
    private long frameDeclared;
    private boolean atFrameStart = true;
    private boolean inputEnded;
    /** A read returned -1 at a clean end between frames: later reads return -1 without decoding. */
    private boolean ended;
    private boolean anyInput;
    /** The last step filled the output scratch: zstd may hold more output that needs no input. */
    private boolean outputFull;
    /** The length of the skippable frame being stepped over, its header included. */
    private long skippableLength;
    /** Bytes of that skippable frame still to come; 0 outside one. */
    private long skippableLeft;
    /**
     * The source threw an {@link InterruptedIOException} in {@link #refill()}, where the stream's
     * state is whole: the read passes it on without failing the stream.
     */
    private boolean sourceInterrupted;
    private boolean closed;
    /**
     * The first error, an {@link Error} from the source included: the frame state after it is
     * unknown, so later reads refuse.
     */
    private Throwable failure;

    /**
     * A stream with its own decompressor (default limit, no dictionaries).
     *
     * @param in the compressed input; {@link #close()} closes it
     */
    public ZstdInputStream(InputStream in) {
        this(Objects.requireNonNull(in, "in"), new ZstdDecompressor(), true);
    }

    /**
     * A stream over a borrowed decompressor, with its limit and dictionaries.
     *
     * @param in the compressed input; {@link #close()} closes it
     * @param decompressor the decompressor to use, still the caller's: {@link #close()} leaves it
     *     open
     * @throws IllegalStateException when {@code decompressor} is closed, or in a call on another thread
     * @throws NullPointerException naming {@code in} or {@code decompressor} when it is null
     */
    public ZstdInputStream(InputStream in, ZstdDecompressor decompressor) {
        this(in, decompressor, false);
    }

    private ZstdInputStream(InputStream in, ZstdDecompressor decompressor, boolean owns) {
        this.in = Objects.requireNonNull(in, "in");
        this.decompressor = Objects.requireNonNull(decompressor, "decompressor");
        this.ownsDecompressor = owns;
        if (owns) {
            decompressor.heldBy("ZstdInputStream"); // dropped unclosed, the stream is what was forgotten
        }
        // The scratch is taken inside the guard, as every call takes it: outside, its first
        // allocation raced a close on another thread, which freed the scratch it found before
        // this one was recorded, and the new one was never freed.
        decompressor.enter();
        try {
            this.buffers = decompressor.buffers();
            this.heapIn = buffers.heapChunk();
            decompressor.reset();
            buffers.setIn(buffers.scratchInAddress, 0);
            decompressor.stream = this; // a stream made before over the decompressor refuses its next read
        } finally {
            decompressor.exit();
        }
    }

    /**
     * The next byte of content, as {@link #read(byte[], int, int)} reads it.
     *
     * @return the byte, 0 to 255, or -1 at the end of the input
     * @throws ZstdStreamException as {@link #read(byte[], int, int)}
     * @throws IOException as {@link #read(byte[], int, int)}
     */
    @Override
    public int read() throws IOException {
        int n = read(oneByte, 0, 1);
        return n < 0 ? -1 : oneByte[0] & 0xFF;
    }

    /**
     * Up to {@code len} bytes of content: what the decoded window holds, decoding more (and
     * reading the source) only when it holds none.
     *
     * @return the bytes read, 0 for {@code len == 0}, or -1 at the end of the input
     * @throws ZstdStreamException for bad input (a cut, corrupt or foreign frame, a missing
     *     dictionary, a limit passed), the stream's first error, which ends it
     * @throws IOException when the source fails, or this stream is closed or failed earlier
     *     ("stream failed earlier: …", the first error as cause)
     * @throws IllegalStateException when a borrowed decompressor is closed, taken over, or in a
     *     call on another thread, which ends the stream as an error
     * @throws IndexOutOfBoundsException when the range is outside {@code b}, before anything else
     */
    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        ensureReadable();
        if (len == 0) {
            return 0;
        }
        return (int) transfer(b, off, len);
    }

    /**
     * Skips up to {@code n} bytes of content, across frames, stopping only at {@code n} or at the
     * end of the input, as {@link InputStream#skip(long)} does. It discards decoded bytes in the
     * decompressor's native output window without copying them anywhere: no heap allocation per
     * call (the inherited method made an array of up to 2 KiB per call and copied every skipped
     * byte into it).
     *
     * @return the bytes skipped; 0 for {@code n <= 0} and at the end
     * @throws ZstdStreamException for bad input, as {@link #read(byte[], int, int)}
     * @throws IOException when this stream is closed or failed earlier, whatever {@code n} (the
     *     inherited method returns 0 for {@code n <= 0} without looking), or as {@link #read}
     */
    @Override
    public long skip(long n) throws IOException {
        ensureReadable();
        if (n <= 0) {
            return 0;
        }
        return Math.max(0, transfer(null, 0, n));
    }

    /**
     * {@link #read(byte[], int, int)} after its checks, {@code len > 0}: the next decoded bytes,
     * up to {@code len}, copied into {@code b} at {@code off}; or, with {@code b} null, dropped
     * ({@link #skip}), going on decoding until {@code len} are or the input ends. -1 at the end
     * of the input when no byte was.
     */
    private long transfer(byte[] b, int off, long len) throws IOException {
        try {
            // before the scratch memory is read: refused when the decompressor is closed (its
            // scratch freed) or in a call on another thread
            decompressor.enter();
        } catch (IllegalStateException e) {
            if (ended) {
                // the decompressor closed or busy since: this stream holds nothing in it, and its end stays the end
                return -1;
            }
            failure = e;
            throw e;
        }
        if (decompressor.stream != this) {
            decompressor.exit();
            if (ended) {
                return -1; // this stream holds nothing in the decompressor any more
            }
            // Taken over by a one-call decompression or a newer stream: the scratch holds their
            // bytes, and a reset here would end the frame of a stream that holds it now
            IllegalStateException e = StreamBuffers.takenOver("decompressor", "decompress", decompressor.stream);
            failure = e;
            throw e;
        }
        // Inside the guard to the end, the source's reads included: the scratch memory and the
        // structs hold this stream's state between zstd's steps.
        try {
            long done = 0;
            do {
                while (outRead == outAvailable) {
                    if (!decodeMoreNamingTheFrame()) {
                        ended = true;
                        decompressor.stream = null; // nothing of this stream is left in the decompressor
                        return done == 0 ? -1 : done;
                    }
                }
                long n = Math.min(len - done, outAvailable - outRead);
                if (b != null) {
                    MemorySegment.copy(buffers.scratchOut, JAVA_BYTE, outRead, b, off, (int) n);
                }
                outRead += n;
                done += n;
            } while (b == null && done < len); // a read returns what the window holds; a skip goes on
            return done;
        } catch (Throwable e) {
            if (sourceInterrupted) {
                // a source's timeout: refill left the state whole, the next read resumes
                sourceInterrupted = false;
                throw e;
            }
            // Errors too (an AssertionError or OutOfMemoryError from the source): any failure ends the stream
            failure = e;
            // A borrowed decompressor may be mid-frame (a source that failed): end its session.
            decompressor.reset();
            decompressor.stream = null;
            throw e;
        } finally {
            decompressor.exit();
        }
    }

    private void ensureReadable() throws IOException {
        if (closed) {
            throw new IOException("stream is closed");
        }
        if (failure != null) {
            throw new IOException("stream failed earlier: " + failure.getMessage(), failure);
        }
    }

    /**
     * The decoded bytes this stream holds and has not returned: a read of that many returns them
     * without reading the underlying stream. 0 before the first read, at the end of input, after
     * an error, and whenever the next byte needs more decoding.
     *
     * @return the bytes a read can return at once
     * @throws IOException when this stream is closed
     */
    @Override
    public int available() throws IOException {
        if (closed) {
            throw new IOException("stream is closed");
        }
        // 0 too when the decompressor was taken over or closed (it forgets its stream): the next read refuses
        return failure != null || decompressor.stream != this ? 0 : (int) (outAvailable - outRead);
    }

    /**
     * {@link #decodeMore()}, its errors naming where in the stream they happened: which frame
     * (a stream fails in its 3rd frame as often as in its 1st), where it starts in the input and in
     * the content. The one place a {@link ZstdException} leaves the decoding: it becomes the
     * {@link ZstdStreamException} (an {@link IOException}) that {@code java.io} code catches.
     */
    private boolean decodeMoreNamingTheFrame() throws IOException {
        try {
            return decodeMore();
        } catch (ZstdException e) {
            throw new ZstdStreamException(frames == 0 ? e : e.withContext("; in the stream: frame=" + frames
                    + ", inputOffset=" + frameStart + ", contentOffset=" + totalBeforeFrame));
        }
    }

    /** Decodes into the output scratch; false at a clean end of input between frames. */
    private boolean decodeMore() throws IOException {
        if (skippableLeft > 0) {
            skipRest(); // a source's timeout stopped the last read inside a skippable frame
            return true;
        }
        if (atFrameStart) {
            // Only the header's own bytes: a frame may be shorter than the longest header (18
            // bytes), and on a live connection the bytes after it may not come until it is read.
            while (!inputEnded
                    && available(buffers) < ZstdFrames.headerBytesNeeded(buffers.scratchIn, buffers.inPos(), available(buffers))) {
                refill();
            }
            if (available(buffers) == 0) {
                if (!anyInput) {
                    throw new ZstdException(ZstdException.Reason.EMPTY, "input is empty: length=0");
                }
                return false;
            }
            frames++;
            frameStart = discarded + buffers.inPos();
            totalBeforeFrame = total;
            if (ZstdFrames.isSkippable(buffers.scratchIn, buffers.inPos(), available(buffers))) {
                skipSkippableFrame();
                return true; // no content (outRead == outAvailable still): the caller asks for the next frame
            }
            long declared = decompressor.prepareFrame(buffers.scratchIn, buffers.inPos(), available(buffers));
            long left = decompressor.maxDecompressedSize() - total;
            if (declared != ZstdFrames.CONTENT_SIZE_UNKNOWN && Long.compareUnsigned(declared, left) > 0) {
                // prepareFrame held the frame to the whole limit; the frames before took part of it
                decompressor.reset();
                throw new ZstdException(ZstdException.Reason.TOO_LARGE, "stream larger than limit: decompressed=" + total
                        + " and the next frame declares " + Long.toUnsignedString(declared) + ", limit="
                        + decompressor.maxDecompressedSize() + " (the limit holds for all frames of a stream)");
            }
            frameDeclared = declared; // for an error once the header is no longer in the buffer
            atFrameStart = false;
        } else {
            // Until the source gives bytes or ends: a read that returns 0 (a non-blocking source)
            // must not reach zstd as a call without input, which it fails after 16 in a row.
            // Not while zstd may still hold output for us: the last step filled the scratch.
            // Reading first would wait for input the decoded bytes do not need (a flushed prefix).
            while (available(buffers) == 0 && !inputEnded && !outputFull) {
                refill();
            }
        }
        buffers.setOutToScratch();
        long remaining;
        try {
            remaining = decompressor.streamStep(buffers);
        } catch (ZstdException e) {
            // The frame is checked again only while the scratch still holds all of it, from its header;
            // else the size its header declared is compared with what the stream produced of it
            long inScratch = frameStart - discarded;
            throw inScratch < 0 ? decompressor.explainStreamShortfall(e, frameDeclared, total - totalBeforeFrame)
                    : decompressor.explainDecodeFailure(e, buffers.scratchIn, inScratch, buffers.inSize() - inScratch, true);
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
        long produced = buffers.outPos();
        total += produced;
        if (total > decompressor.maxDecompressedSize()) {
            decompressor.reset();
            // A first frame past the limit declares no size (prepareFrame refused a larger declared one).
            String message = totalBeforeFrame == 0
                    ? "frame larger than limit: declared=unknown, limit=" + decompressor.maxDecompressedSize()
                    : "stream larger than limit: decompressed=" + total + ", limit=" + decompressor.maxDecompressedSize()
                    + " (the limit holds for all frames of a stream)";
            throw new ZstdException(ZstdException.Reason.TOO_LARGE, message);
        }
        outRead = 0;
        outAvailable = produced;
        outputFull = produced == StreamBuffers.SCRATCH_BYTES;
        atFrameStart = remaining == 0;
        if (!atFrameStart && produced < StreamBuffers.SCRATCH_BYTES && available(buffers) == 0 && inputEnded) {
            decompressor.reset();
            throw new ZstdException(ZstdException.Reason.TRUNCATED,
                    "frame truncated: input ended inside a frame, decompressed=" + total);
        }
        return true;
    }

    /** Reads past the skippable frame at the input position, refilling as needed; stays at a frame start. */
    private void skipSkippableFrame() throws IOException {
        if (available(buffers) < ZstdFrames.SKIPPABLE_HEADER_SIZE) {
            throw new ZstdException(ZstdException.Reason.TRUNCATED,
                    "skippable frame truncated: header=" + available(buffers) + " of " + ZstdFrames.SKIPPABLE_HEADER_SIZE + " bytes");
        }
        skippableLength = ZstdFrames.skippableFrameLength(buffers.scratchIn, buffers.inPos());
        skippableLeft = skippableLength;
        skipRest();
    }

    /** Steps over the {@link #skippableLeft} bytes of the skippable frame still to come. */
    private void skipRest() throws IOException {
        while (true) {
            long n = Math.min(skippableLeft, available(buffers));
            buffers.skipIn(n);
            skippableLeft -= n;
            if (skippableLeft == 0) {
                return;
            }
            if (inputEnded) {
                throw new ZstdException(ZstdException.Reason.TRUNCATED,
                        "skippable frame truncated: length=" + skippableLength + ", missing=" + skippableLeft);
            }
            refill();
        }
    }

    private static long available(StreamBuffers b) {
        return b.inSize() - b.inPos();
    }

    /** Moves unread input to the front of the scratch and appends what the source has. */
    private void refill() throws IOException {
        long pos = buffers.inPos();
        long left = buffers.inSize() - pos;
        if (left > 0 && pos > 0) {
            MemorySegment.copy(buffers.scratchIn, pos, buffers.scratchIn, 0, left);
        }
        // before the source's read: a timeout from it leaves the moved input where zstd will look
        buffers.setIn(buffers.scratchInAddress, left);
        discarded += pos;
        int n;
        int asked = (int) (StreamBuffers.SCRATCH_BYTES - left);
        try {
            n = in.read(heapIn, 0, asked);
        } catch (InterruptedIOException e) {
            sourceInterrupted = true;
            throw e;
        }
        if (n < -1 || n > asked) {
            // A count no read may return: past the scratch it failed in FFM's words, naming neither
            // the source nor the count, and below -1 it read as the end of the input ("truncated")
            throw new IOException("source returned " + n + " from read(byte[], 0, " + asked + "), which returns -1 to "
                    + asked + ": " + in.getClass().getName());
        }
        if (n < 0) {
            inputEnded = true;
            n = 0;
        } else if (n > 0) {
            anyInput = true;
            MemorySegment.copy(heapIn, 0, buffers.scratchIn, JAVA_BYTE, left, n);
        }
        buffers.setIn(buffers.scratchInAddress, left + n);
    }

    /**
     * Closes the underlying stream, and the decompressor if this stream made it; a borrowed one
     * forgets this stream, so it keeps neither the stream nor its source reachable. Idempotent. Called
     * from inside this stream's own read (its source closing it), it cannot free its own
     * decompressor then ({@link IllegalStateException}, as {@link ZstdDecompressor#close()} says):
     * a later call, once that read has returned, frees it (or has a borrowed one forget this stream).
     */
    @Override
    public void close() throws IOException {
        try {
            if (!closed) {
                closed = true;
                in.close();
            }
        } finally {
            // Again at a later close: nothing if done, else what a close from inside a read could not do
            if (ownsDecompressor) {
                decompressor.close();
            } else {
                decompressor.release(this); // closed mid-frame, it kept this stream and its source reachable
            }
        }
    }
}
