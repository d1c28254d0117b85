package io.zmqzstd.pipeline;

import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.transport.NativeBufferPool;
import io.zmqzstd.transport.ZmqSocket;

import java.util.Objects;

/**
 * The frame settings both senders' builders share ({@link CompressingSender.Builder},
 * {@link ParallelCompressingSender.Builder}): one set of setters filling one {@link FrameOptions}.
 *
 * @param <B> the concrete builder, returned by every setter
 */
abstract class SenderBuilder<B extends SenderBuilder<B>> {

    final ZmqSocket socket;
    final FrameOptions frames = new FrameOptions();

    SenderBuilder(ZmqSocket socket) {
        this.socket = Objects.requireNonNull(socket, "socket");
    }

    abstract B self();

    /**
     * zstd level (default 3; negative = faster, up to 22).
     *
     * @param level the compression level, -131072 (libzstd's fastest) to 22; 0 also means 3
     * @return this builder
     * @throws IllegalArgumentException when {@code level} is outside that range (libzstd would
     *     clamp it to the nearest bound without a word)
     */
    public B level(int level) {
        frames.level(level);
        return self();
    }

    /**
     * Append a 4-byte content checksum to every frame (default off). Not allowed with
     * {@code rawFrameBelowBytes} set above 0 or {@code rawIncompressible(true)}: {@code build()}
     * throws {@link IllegalArgumentException}.
     *
     * @param checksum true to add the checksum
     * @return this builder
     */
    public B checksum(boolean checksum) {
        frames.checksum = checksum;
        return self();
    }

    /**
     * Compress with this dictionary; frames carry its ID (unless {@link #dictionaryIdInFrame(boolean)}
     * leaves it out). Every compressor digests its own copy at
     * {@code build()}, so the dictionary must be open until then (a closed one makes
     * {@code build()} throw {@link IllegalStateException}) and may be closed after it.
     * Not allowed with {@code rawFrameBelowBytes} set above 0 or {@code rawIncompressible(true)}:
     * {@code build()} throws {@link IllegalArgumentException}.
     *
     * @param dictionary the dictionary, or null for none (the default)
     * @return this builder
     */
    public B dictionary(ZstdDictionary dictionary) {
        frames.dictionary = dictionary;
        return self();
    }

    /**
     * Whether frames carry the dictionary's 4-byte ID (default true). {@code false} saves up to 4
     * bytes a frame (libzstd's {@code ZSTD_c_dictIDFlag=0}, {@code zstd --no-dictID}); every
     * receiver then needs this dictionary as its
     * {@link DecompressingReceiver.Builder#dictionaryForFramesWithoutId(ZstdDictionary)}, and one
     * without it refuses the frames (see there for what a wrong one does). Raw frames are
     * unaffected. Not allowed without a dictionary: {@code build()} throws
     * {@link IllegalArgumentException} ("dictionaryIdInFrame(false) without a dictionary: …").
     *
     * @param include false to leave the ID out
     * @return this builder
     */
    public B dictionaryIdInFrame(boolean include) {
        frames.dictionaryIdInFrame = include;
        return self();
    }

    /**
     * Frames of at least this many bytes are sent zero-copy, smaller ones copied by libzmq.
     * Default: the context pool's {@link NativeBufferPool#zeroCopyThresholdBytes()} (8 KiB), on
     * inproc-only sockets too (end to end, zero-copy from their 512 B measured no faster:
     * BENCHMARKS.md, "A threshold per kind of socket"). Lowest allowed value: the socket's
     * {@link ZmqSocket#zeroCopyThresholdBytes()} (512 B while every endpoint is inproc, 8 KiB
     * otherwise), below which the socket copies anyway; to go lower, lower the pool's
     * ({@link NativeBufferPool.Builder#zeroCopyThresholdBytes},
     * {@link NativeBufferPool.Builder#inprocZeroCopyThresholdBytes}). Never applied below the
     * socket's, also when an endpoint added later raises it. Raise it for one sender, e.g. over
     * tcp, where copying measured as fast as zero-copy up to 128 KiB. See
     * {@link CompressingSender} for where each payload is compressed.
     *
     * @param bytes the threshold in bytes, at least the socket's (checked by {@code build()})
     * @return this builder
     * @throws IllegalArgumentException when {@code bytes} is negative
     */
    public B zeroCopyThresholdBytes(long bytes) {
        frames.zeroCopyThresholdBytes(bytes);
        return self();
    }

    /**
     * Payloads shorter than this go out as a frame of raw blocks, without a compressor call.
     * Default {@value CompressingSender#DEFAULT_RAW_FRAME_BELOW_BYTES} without a dictionary or
     * checksum, 0 (never) with either; 0 turns it off. Not allowed together with a dictionary
     * (small parts are exactly where a dictionary gains) or a checksum (raw frames carry none).
     *
     * @param bytes the limit in bytes, 0 or more; above 0 with a dictionary or checksum,
     *     {@code build()} throws {@link IllegalArgumentException}
     * @return this builder
     * @throws IllegalArgumentException when {@code bytes} is negative
     */
    public B rawFrameBelowBytes(long bytes) {
        frames.rawFrameBelowBytes(bytes);
        return self();
    }

    /**
     * Send payloads of at most 16 KiB that would not gain from compression as raw-block frames
     * (valid zstd frames for every decoder), without the compressor's cost. Default on without a
     * dictionary or checksum, off with either; not allowed with either. Costs nothing while frames
     * gain: only after a frame that saved less than 1/64 of its payload does each compressing
     * thread sample the bytes of the next payloads (up to 256 bytes each) and send raw those whose
     * bytes are as evenly spread as random data's (already compressed or encrypted payloads).
     * Measured over tcp on random payloads (BENCHMARKS.md, "Incompressible payloads"): 2.1x the
     * messages of compressing at 1 KiB with one compressing thread, 1.46x with 3 workers (medians); no gain
     * from 16 KiB up, hence the bound.
     *
     * @param on true to send such payloads raw; true with a dictionary or checksum makes
     *     {@code build()} throw {@link IllegalArgumentException}
     * @return this builder
     */
    public B rawIncompressible(boolean on) {
        frames.rawIncompressible = on;
        return self();
    }

    /**
     * The settings as they are now, checked against each other and the socket, with the defaults
     * filled in: a set of the sender's own, which later setters of this builder do not change.
     */
    final FrameOptions resolveFrames() {
        SocketCheck.forSender(socket);
        return frames.copy().resolve(socket);
    }
}
