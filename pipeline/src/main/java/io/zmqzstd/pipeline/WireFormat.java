package io.zmqzstd.pipeline;

/**
 * What a zmq-zstd peer puts on the wire: ordinary ZeroMQ multipart messages in which every
 * payload part is one standard zstd frame (RFC 8878) and envelope parts travel as they are.
 * Nothing else is added: no zmq-zstd header, no version byte, so any ZeroMQ + zstd program can
 * talk to us (see README "Wire format").
 *
 * <pre>
 * ZeroMQ message (one "part" = one ZeroMQ frame, in order, the last one without MORE):
 *
 *   [envelope part]*            raw bytes, never compressed: ROUTER routing id, an empty
 *                               delimiter, a PUB/SUB topic. How many: {@code envelopeParts}
 *                               (ROUTER 1, SUB/XSUB 1, others 0), plus any 0-byte part that
 *                               has more parts after it (REQ/REP delimiter).
 *   [payload part]+             each one complete zstd frame:
 *
 *   zstd frame, little-endian:
 *   +-------------+-----+--------+---------+--------------+---------+-------------+
 *   | 28 B5 2F FD | FHD | [WD 1] | [DID n] | FCS 1/2/4/8  | block+  | [checksum 4]|
 *   +-------------+-----+--------+---------+--------------+---------+-------------+
 *     magic        frame header   dict ID   content size   compressed  XXH64 low 32
 *     0xFD2FB528   descriptor     0/1/2/4   (ALWAYS set by  or raw      bits, when
 *                                            our senders)   blocks      enabled
 * </pre>
 *
 * Rules for a payload part: exactly one frame, no trailing bytes, no skippable frames; the
 * content size should be present (frames without it are accepted up to the receiver's limit but
 * cost a retry); a frame that names a window (all but single-segment frames) is accepted only with
 * a window of at most the smallest power of two holding {@code maxDecompressedSize}, 2^23 at
 * least, whether it declares its content size or not (a streaming compressor at level 20 or above
 * on input of unknown size names a larger one, refused as {@code TOO_LARGE} whatever the
 * content); the dictionary ID is present when the frame was compressed with a dictionary; a
 * frame of raw blocks (block type 0) is as valid as a compressed one. A payload of 0 bytes is
 * a frame too (9 bytes on the wire), so a 0-byte payload part is always an error.
 */
public final class WireFormat {

    private WireFormat() {
    }

    /** The zstd frame magic number as a little-endian int: bytes {@code 28 B5 2F FD}. */
    public static final int ZSTD_MAGIC = io.zmqzstd.codec.ZstdFrames.MAGIC;

    /** Bytes of the magic number. */
    public static final int MAGIC_BYTES = 4;

    /** The smallest possible zstd frame: magic, FHD, 1-byte content size, one empty raw block (3). */
    public static final int MIN_FRAME_BYTES = MAGIC_BYTES + 1 + 1 + 3;

    /** The longest frame header: magic, FHD, window descriptor, 4-byte dict ID, 8-byte content size. */
    public static final int MAX_FRAME_HEADER_BYTES = MAGIC_BYTES + 1 + 1 + 4 + 8;

    /**
     * The envelope parts a receiver expects by default for a socket type.
     *
     * @param type the receiving socket's type
     * @return 1 for ROUTER, SUB and XSUB (routing id, topic), 0 for the others
     */
    public static int defaultEnvelopeParts(io.zmqzstd.transport.SocketType type) {
        return switch (type) {
            case ROUTER, SUB, XSUB -> 1;
            default -> 0;
        };
    }
}
