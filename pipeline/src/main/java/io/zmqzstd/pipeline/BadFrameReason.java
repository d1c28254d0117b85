package io.zmqzstd.pipeline;

import io.zmqzstd.codec.ZstdException;

/**
 * Why a {@link DecompressingReceiver} refused a part. The receiver reports it as
 * {@link DecompressingReceiver#BAD_FRAME}, counts it, skips the rest of that message and stays
 * usable.
 */
public enum BadFrameReason {
    /** A 0-byte part where a compressed part belongs (a 0-byte part is never a zstd frame). */
    EMPTY,
    /**
     * The part does not start with the zstd magic number {@code 28 B5 2F FD} (a skippable frame
     * included). A part of 1 to 3 bytes that the magic starts with is {@link #TRUNCATED}.
     */
    NOT_ZSTD,
    /**
     * The frame declares (or, without a declared size, produces) more than the receiver's limit,
     * or the message has more parts, or envelope bytes, than the receiver's limits allow.
     */
    TOO_LARGE,
    /**
     * zstd found damaged block data, or the frame is malformed: a reserved bit or block type set,
     * content longer than its header declares, or bytes after the frame (trailing bytes, a second
     * frame, a skippable frame: one part is exactly one frame).
     */
    CORRUPT,
    /** The part ends before its frame does (or the frame header, or its magic number, is cut short). */
    TRUNCATED,
    /** The frame names a dictionary ID the receiver was not given. */
    DICTIONARY_MISSING,
    /** The frame's content checksum does not match. */
    CHECKSUM,
    /**
     * The message ended with its envelope: no compressed part followed the envelope parts (a
     * message is {@code [envelope part]* [payload part]+}), for example a PUB that sent without a
     * topic to a SUB receiver, whose first part is taken as the topic.
     */
    NO_PAYLOAD,
    /** Anything else zstd reported. */
    OTHER;

    /**
     * The one mapping from the codec's reasons. The codec's {@code DESTINATION_TOO_SMALL} can only
     * get here when the output was sized from the frame's own header or already at the size
     * limit, so it means {@link #TOO_LARGE}. A part that does not fit in a {@code receiveInto}
     * destination is not a bad frame: the receiver finds that itself and hands the message back
     * ({@link UndeliveredMessageException.Reason#DESTINATION_TOO_SMALL}).
     */
    static BadFrameReason of(ZstdException.Reason reason) {
        return switch (reason) {
            case EMPTY -> EMPTY;
            case NOT_ZSTD -> NOT_ZSTD;
            case TOO_LARGE, DESTINATION_TOO_SMALL -> TOO_LARGE;
            case CORRUPT -> CORRUPT;
            case TRUNCATED -> TRUNCATED;
            case DICTIONARY_MISSING -> DICTIONARY_MISSING;
            case CHECKSUM -> CHECKSUM;
            case OTHER -> OTHER;
        };
    }
}
