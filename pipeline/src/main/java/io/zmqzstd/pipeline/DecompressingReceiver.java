package io.zmqzstd.pipeline;

import io.zmqzstd.codec.ZstdDecompressor;
import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.codec.ZstdException;
import io.zmqzstd.codec.ZstdFrames;
import io.zmqzstd.nativelib.internal.CallGuard;
import io.zmqzstd.nativelib.internal.RawSegments;
import io.zmqzstd.transport.ZmqMessage;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Receives ZeroMQ messages whose payload parts are zstd frames and decompresses them straight
 * from libzmq's memory into this receiver's native output region ({@link #receive}) or into a
 * segment the caller supplies ({@link #receiveInto}); the caller reads the result through the
 * reused {@link ReceivedMessage} view.
 *
 * <pre>{@code
 * try (DecompressingReceiver receiver = DecompressingReceiver.builder(socket).build()) {
 *     for (;;) {
 *         int status = receiver.receive(0);
 *         if (status == DecompressingReceiver.RECEIVED) {
 *             ReceivedMessage m = receiver.message();      // valid until the next receive
 *             handle(m.part(m.parts() - 1));
 *         } else if (status == DecompressingReceiver.BAD_FRAME) {
 *             log(receiver.lastErrorReason(), receiver.lastErrorMessage());  // and carry on
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>Each message: the first {@code envelopeParts} parts (ROUTER: the routing id; SUB/XSUB: the
 * topic), and any 0-byte part followed by more parts (a REQ/REP delimiter), are copied as they
 * are; every other part must be one zstd frame and is decompressed. Before any work on a part
 * it is refused when empty, not zstd, declaring more than {@code maxDecompressedSize}, or naming
 * an unknown dictionary; frames that do not declare their size are stopped at the limit. A
 * refused part makes the whole message {@link #BAD_FRAME}: the rest of it is read and dropped,
 * the reason is in {@link #lastErrorReason()}, the counters count it, and the next receive
 * starts with the next message.
 *
 * <p>Ownership: the receiver borrows the socket (close the receiver first) and owns one
 * {@code zmq_msg_t}, its decompressor and its output region; {@link #close()} frees them
 * (dropped unclosed, the garbage collector's cleaner does, with a warning). The
 * region grows on demand to the largest message seen and is kept; it never grows past
 * {@code maxMessageSize} (payload, default: the per-part limit) plus the envelope bytes of the
 * message that needed it (at most {@code maxEnvelopeSize}, default 64 KiB), whatever the input.
 *
 * <p>Threading: one thread at a time, like the socket; concurrent use throws
 * {@link IllegalStateException} naming both threads.
 *
 * <p>Allocation: {@link #receive(int)}, and {@link #receiveInto} with a native destination,
 * allocate nothing on the Java heap in steady state, for any size (growing the region or the
 * part table, and bad frames, allocate).
 */
public final class DecompressingReceiver implements AutoCloseable {

    /** {@link #receive} delivered a message: read it through {@link #message()}. */
    public static final int RECEIVED = 0;
    /** {@link #receive} found no message (DONTWAIT, or the socket's receive timeout expired). */
    public static final int WOULD_BLOCK = 1;
    /** {@link #receive} consumed a message with a bad part; see {@link #lastErrorReason()}. */
    public static final int BAD_FRAME = 2;

    /** Default per-part limit on decompressed size. */
    public static final long DEFAULT_MAX_DECOMPRESSED_SIZE = 64L << 20;

    /**
     * Default limit on the envelope parts of one message together: room for 250 hops of the
     * longest routing id libzmq allows (255 B), or a 64 KiB topic. Envelope bytes are counted
     * apart from the payload, so that a routing id or topic in front of a part at the per-part
     * limit does not push the message over {@code maxMessageSize}.
     */
    public static final long DEFAULT_MAX_ENVELOPE_SIZE = 64 * 1024;

    /**
     * Default limit on the parts of one message, envelope and payload together. libzmq bounds the
     * size of a part ({@code ZMQ_MAXMSGSIZE}) but not how many a message has; each part costs the
     * receiver 17 bytes of heap in its part table, which grows to the largest message seen.
     */
    public static final int DEFAULT_MAX_PARTS = 4096;

    private static final long INITIAL_REGION_BYTES = 64 * 1024;
    /**
     * Where decompression of a frame without a declared size starts when the region has less room;
     * doubled up to the limit.
     */
    private static final long UNKNOWN_SIZE_FIRST_TRY = 256 * 1024;
    /**
     * {@link #decompressPart}'s answer for a part that does not fit in what is left of the caller's
     * destination: not a refusal (-1) but the caller's sizing, so the message goes on in the region
     * and is handed back ({@link UndeliveredMessageException}).
     */
    private static final long NOT_WRITTEN = -2;
    /** All of memory as one segment: libzmq's frame addresses are read through it, no per-frame segment. */
    private static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    /** The frame magic as it lies on the wire: little-endian ("Wire format"). */
    private static final ValueLayout.OfInt MAGIC_LAYOUT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * Why a conflating socket cannot carry an envelope, for the errors that meet one: set after
     * {@code build()} (before the socket's bind or connect), the build's check did not see it.
     */
    private static final String CONFLATE_NOTE = " (libzmq keeps only the last part of each message, which arrives"
            + " alone: a topic or routing id in front of the frame never does)";

    private final ZmqSocket socket;
    private final ZstdDecompressor decompressor;
    private final ZmqMessage frame = new ZmqMessage();
    private final long maxDecompressedSize;
    private final long maxMessageSize;
    private final long maxEnvelopeSize;
    private final int envelopeParts;
    private final int maxParts;
    private final CallGuard owner = new CallGuard("DecompressingReceiver", null, "a callback");
    private final Counters counters = new Counters();
    private final ReceivedMessage message = new ReceivedMessage(this);
    /** The envelope of the message the last receive refused, filled on the refusal path only: {@link #failedEnvelope()}. */
    private final ReceivedMessage failedEnvelope = new ReceivedMessage(this, message);
    /** The region's arena and the frame, freed by close() or, if this is dropped unclosed, by {@link Unclosed}. */
    private final Unclosed.Memory memory = Unclosed.Memory.register(this, "DecompressingReceiver", frame);
    private MemorySegment region;
    private BadFrameReason lastErrorReason;
    private String lastErrorMessage;
    private int lastErrorPart = -1;
    /** {@link #lastErrorDictionaryId()}: set on the refusal path only. */
    private long lastErrorDictionaryId = -1;
    /** Decompressions of frames without a declared size into the region, retries included: for tests. */
    private long unknownSizeTries;
    /** True while the part in {@link #frame} has more parts of its message after it. */
    private boolean partsPending;
    /** Envelope bytes of the message being read: the region may hold that much beyond maxMessageSize. */
    private long envelopeBytes;
    private volatile boolean closed;

    /** Options for a receiver. */
    public static final class Builder {
        private final ZmqSocket socket;
        private long maxDecompressedSize = DEFAULT_MAX_DECOMPRESSED_SIZE;
        private long maxMessageSize = -1;
        private long maxEnvelopeSize = DEFAULT_MAX_ENVELOPE_SIZE;
        private final List<ZstdDictionary> dictionaries = new ArrayList<>();
        private ZstdDictionary forFramesWithoutId;
        private int envelopeParts;
        private int maxParts = DEFAULT_MAX_PARTS;

        private Builder(ZmqSocket socket) {
            this.socket = Objects.requireNonNull(socket, "socket");
            this.envelopeParts = WireFormat.defaultEnvelopeParts(socket.type());
        }

        /**
         * The most bytes one part may decompress to (default 64 MiB). It also bounds the window a
         * frame names (every frame but a single-segment one, whose window is its content size): at
         * most the smallest power of two holding this limit, never below 2^23; a larger one (a
         * streaming compressor at level 20 or above on input of unknown size) is refused as
         * {@link BadFrameReason#TOO_LARGE} whatever the frame's content, declared or not.
         *
         * @param bytes the per-part limit in bytes, 0 or more
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is negative
         */
        public Builder maxDecompressedSize(long bytes) {
            this.maxDecompressedSize = Settings.atLeastZero("maxDecompressedSize", bytes);
            return this;
        }

        /**
         * The most bytes the payload parts of one message may decompress to together (default:
         * {@link #maxDecompressedSize(long)}, so one part at the per-part limit fits). libzmq
         * bounds neither the number of parts nor their sum; raise this for multipart messages
         * whose parts add up to more than one part's limit. Envelope parts are bounded apart, by
         * {@link #maxEnvelopeSize(long)}. The two together are held to {@code Long.MAX_VALUE}
         * (the region, which holds both, is counted in a long): when they would pass it, the larger
         * gives way to {@code Long.MAX_VALUE} minus the smaller, the smaller keeping at most half,
         * so with both at their largest each is about {@code Long.MAX_VALUE / 2}, and a frame that
         * declares {@code Long.MAX_VALUE} bytes is refused as {@link BadFrameReason#TOO_LARGE},
         * behind an envelope too.
         *
         * @param bytes the per-message limit on payload bytes, 0 or more
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is negative
         */
        public Builder maxMessageSize(long bytes) {
            this.maxMessageSize = Settings.atLeastZero("maxMessageSize", bytes);
            return this;
        }

        /**
         * The most bytes the envelope parts of one message (routing ids, delimiters, a topic)
         * may hold together (default {@value DecompressingReceiver#DEFAULT_MAX_ENVELOPE_SIZE}).
         * The output region never grows past {@code maxMessageSize} plus the envelope bytes of the
         * message that needed it, so never past {@code maxMessageSize + maxEnvelopeSize}; the two
         * together are held to {@code Long.MAX_VALUE} as {@link #maxMessageSize(long)} says.
         *
         * @param bytes the per-message limit on envelope bytes, 0 or more
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is negative
         */
        public Builder maxEnvelopeSize(long bytes) {
            this.maxEnvelopeSize = Settings.atLeastZero("maxEnvelopeSize", bytes);
            return this;
        }

        /**
         * Adds a dictionary; repeatable, one per ID; frames pick theirs by ID. The receiver
         * digests its own copy at {@link #build()}, so the dictionary must be open until then.
         * Two dictionaries with the same ID (the same one given twice included) are refused by
         * {@link #build()}: a frame names only the ID, and one decoded with another dictionary of
         * that ID comes out as wrong bytes, without an error unless the frame has a checksum.
         *
         * @param dictionary a dictionary frames may name; not null
         * @return this builder
         */
        public Builder dictionary(ZstdDictionary dictionary) {
            dictionaries.add(Objects.requireNonNull(dictionary, "dictionary"));
            return this;
        }

        /**
         * The dictionary for frames that name no dictionary ID: those of senders that leave it out
         * ({@link CompressingSender.Builder#dictionaryIdInFrame(boolean)} false,
         * {@code zstd --no-dictID -D}, zstd-jni's {@code setDictID(false)}). Frames that carry its
         * ID need it added with {@link #dictionary(ZstdDictionary)} as well (without, they are
         * {@code DICTIONARY_MISSING}, the message naming its ID as {@code forFramesWithoutId}). Digested at
         * {@link #build()}, like those.
         *
         * <p>Every compressed frame without an ID on this socket must have been made with this
         * dictionary. Raw frames are unaffected, and frames made without any dictionary decoded
         * correctly with a trained one (repeat offsets 1, 4, 8). A frame made with another
         * dictionary fails, but measured 10 in 3,000 small frames decoding to wrong bytes without an
         * error when they had no checksum (the codec README, "Frames without a dictionary ID").
         * Without this option such frames are refused (measured: {@code DICTIONARY_MISSING}
         * "Dictionary is corrupted", a few {@code CORRUPT}); on a receiver that holds dictionaries,
         * and for "Dictionary is corrupted" on any, the message says that the frame declares no
         * dictionary ID and names this option.
         *
         * @param dictionary the dictionary, or null for none (the default: such frames are decoded
         *     with no dictionary)
         * @return this builder
         */
        public Builder dictionaryForFramesWithoutId(ZstdDictionary dictionary) {
            this.forFramesWithoutId = dictionary;
            return this;
        }

        /**
         * Leading parts of every message that are not compressed. Default by socket type:
         * ROUTER 1 (routing id), SUB and XSUB 1 (topic), others 0. A DEALER talking to a REP
         * (which sends an empty delimiter first) needs nothing extra: 0-byte parts with more
         * parts after them always pass through. A ROUTER behind other ROUTERs (a broker chain)
         * receives one routing id per hop: set this to the number of hops, or the second id is
         * taken for a frame and refused ({@code NOT_ZSTD}).
         *
         * @param parts the number of envelope parts, 0 or more and below {@code maxParts} (checked
         *     by {@link #build()})
         * @return this builder
         * @throws IllegalArgumentException when {@code parts} is negative
         */
        public Builder envelopeParts(int parts) {
            this.envelopeParts = (int) Settings.atLeastZero("envelopeParts", parts);
            return this;
        }

        /**
         * The most parts one message may have, envelope parts included (default
         * {@value DecompressingReceiver#DEFAULT_MAX_PARTS}). A message with more is refused as
         * {@link BadFrameReason#TOO_LARGE} at the first part past the limit, the rest of it
         * skipped, so that a peer cannot grow the receiver's part table without bound with parts
         * that no size limit counts (0-byte delimiters, frames of empty payloads).
         *
         * @param parts the limit, at least 1 and above {@code envelopeParts} (checked by
         *     {@link #build()})
         * @return this builder
         * @throws IllegalArgumentException when {@code parts} is below 1
         */
        public Builder maxParts(int parts) {
            if (parts < 1) {
                throw new IllegalArgumentException("maxParts must be at least 1: maxParts=" + parts);
            }
            this.maxParts = parts;
            return this;
        }

        /**
         * A new receiver on the socket; the caller owns it and closes it before the socket.
         *
         * @return the new receiver
         * @throws IllegalArgumentException when {@code envelopeParts} is not below {@code maxParts},
         *     or two dictionaries have the same ID (named), or a raw-content dictionary (ID 0) is
         *     given as well as {@link #dictionaryForFramesWithoutId(ZstdDictionary)}, or the socket
         *     is of a type that cannot receive (PUSH, PUB) or carries no messages (STREAM: TCP bytes
         *     cut anywhere), named with the types a receiver takes
         * @throws IllegalStateException when the socket or a dictionary is closed, or when
         *     {@code envelopeParts} is above 0 on a socket with conflate on (libzmq keeps only the
         *     last part of each message there, so no message would carry its envelope)
         */
        public DecompressingReceiver build() {
            SocketCheck.forReceiver(socket);
            if (envelopeParts >= maxParts) {
                throw new IllegalArgumentException("maxParts must leave room for a payload part after the envelope: maxParts="
                        + maxParts + ", envelopeParts=" + envelopeParts);
            }
            if (envelopeParts > 0 && socket.conflate()) {
                // Before 2026-11-29 it was built, and every message (a SUB's topic and frame)
                // arrived as its frame alone, taken for the topic: NO_PAYLOAD each, not saying why
                throw new IllegalStateException("envelopeParts=" + envelopeParts + " on a socket with conflate on: type="
                        + socket.type() + CONFLATE_NOTE + "; build the receiver with envelopeParts(0) (a SUB subscribed"
                        + " to everything then receives each message's frame), or turn conflate off");
            }
            return new DecompressingReceiver(this);
        }
    }

    /**
     * Options for a receiver on {@code socket}.
     *
     * @param socket the socket to receive from; borrowed, not owned. Its type sets the default
     *     {@link Builder#envelopeParts(int) envelopeParts}
     * @return a new builder
     */
    public static Builder builder(ZmqSocket socket) {
        return new Builder(socket);
    }

    private DecompressingReceiver(Builder b) {
        this.socket = b.socket;
        this.maxDecompressedSize = b.maxDecompressedSize;
        // The region holds a message's envelope and payload, and its size is a long: held here so
        // that no offset plus declared size can pass Long.MAX_VALUE (before 2026-11-26 one did,
        // the region was not grown, and a frame declaring Long.MAX_VALUE bytes behind a topic
        // made receive throw IndexOutOfBoundsException instead of refusing it as TOO_LARGE). The
        // larger of the two gives way, the smaller keeping its value up to half of Long.MAX_VALUE:
        // until later that day the payload's limit always gave way, and maxEnvelopeSize(Long.MAX_VALUE)
        // left maxMessageSize 0, refusing every payload.
        long message = b.maxMessageSize >= 0 ? b.maxMessageSize : b.maxDecompressedSize;
        long envelope = b.maxEnvelopeSize;
        if (message > Long.MAX_VALUE - envelope) {
            long smaller = Math.min(Math.min(message, envelope), Long.MAX_VALUE / 2);
            long larger = Long.MAX_VALUE - smaller;
            boolean messageLarger = message >= envelope;
            message = messageLarger ? larger : smaller;
            envelope = messageLarger ? smaller : larger;
        }
        this.maxMessageSize = message;
        this.maxEnvelopeSize = envelope;
        this.envelopeParts = b.envelopeParts;
        this.maxParts = b.maxParts;
        ZstdDecompressor.Builder d = ZstdDecompressor.builder().maxDecompressedSize(b.maxDecompressedSize);
        try {
            b.dictionaries.forEach(d::dictionary);
            this.decompressor = d.dictionaryForFramesWithoutId(b.forFramesWithoutId).build();
        } catch (RuntimeException e) {
            memory.close();
            throw e;
        }
        try {
            memory.arena = Arena.ofShared();
            region = memory.arena.allocate(Math.max(1, Math.min(INITIAL_REGION_BYTES, regionBound(0))), 64);
        } catch (RuntimeException | Error e) {
            memory.close();
            decompressor.close();
            throw e;
        }
    }

    /**
     * Receives the next message and decompresses its payload parts into this receiver's region.
     * {@code flags}: 0 to block, {@link ZmqSocket#DONTWAIT} not to. Once the first part is in,
     * the rest of the message is read blocking (libzmq delivers messages whole).
     * Allocation-free in steady state. Whatever this throws (a socket failure, an
     * {@link OutOfMemoryError} growing the region), the rest of the message being read is skipped
     * first, so the next receive starts at a message boundary.
     *
     * <p>A receive blocked here cannot be ended by {@link #close()} from another thread (that
     * throws {@link IllegalStateException}: two threads inside the receiver), nor by an interrupt
     * (it waits on, the flag stays set); use a receive timeout, or
     * {@link io.zmqzstd.transport.ZmqContext#shutdown()}, which makes the blocked receive throw a
     * {@code ZmqException} (ETERM), then close the receiver.
     *
     * @param flags 0 to block, {@link ZmqSocket#DONTWAIT} not to
     * @return {@link #RECEIVED}, {@link #WOULD_BLOCK} or {@link #BAD_FRAME}
     * @throws IllegalStateException when the receiver is closed or used by two threads at once
     * @throws io.zmqzstd.transport.ZmqException when the socket fails (ETERM after
     *     {@link io.zmqzstd.transport.ZmqContext#shutdown()}, for one)
     */
    public int receive(int flags) {
        return receive(null, flags);
    }

    /**
     * Like {@link #receive(int)}, but decompresses the payload parts straight into the caller's
     * {@code dst}: the first at offset 0, the next ones right after it, with no gap. Envelope
     * parts (routing ids, delimiters, a topic) still go to the receiver's own region. Read the
     * parts through {@link #message()}: {@link ReceivedMessage#segment(int)},
     * {@link ReceivedMessage#partOffset(int)} and {@link ReceivedMessage#partSize(int)} say where
     * each lies; for a message of one payload part it is {@code dst[0, partSize)}.
     *
     * <p>A part that does not fit in what is left of {@code dst} (found from its declared size
     * before it is decompressed, all of ours declare it, or when a frame without one runs out of
     * room part-way) does not lose the message: it goes on in the receiver's region, that part
     * decompressed whole there, and {@link UndeliveredMessageException} hands it back with
     * {@link UndeliveredMessageException.Reason#DESTINATION_TOO_SMALL}, its message naming the
     * part, its size, the offset and {@code dst}'s size. The receiver's limits
     * ({@code maxDecompressedSize}, {@code maxMessageSize}) still apply and are checked first: over
     * them the message is {@link #BAD_FRAME} ({@link BadFrameReason#TOO_LARGE}) whatever
     * {@code dst}, and so is a message whose rest turns out bad in the region.
     *
     * <p>Ownership: {@code dst} stays the caller's; its arena must stay open during the call, and
     * this thread must be allowed to use it (not confined to another thread). The
     * receiver writes to it only during this call, and keeps no reference beyond the message
     * view, which ends at the next receive. After {@link #BAD_FRAME} or an exception, the content
     * of {@code dst} is unspecified (earlier parts may have been written). A
     * {@link io.zmqzstd.transport.PooledBuffer PooledBuffer}'s segment is a fine destination: the
     * buffer stays the caller's to release or to send on.
     *
     * <p>A {@code dst} that turns out unwritable only once the message is taken (a fault in a
     * mapping of a file shortened since it was mapped, its arena closed by another thread during
     * the call) does not lose the message either: the rest of it goes to the receiver's region, and
     * {@link UndeliveredMessageException} hands it back whole
     * ({@link UndeliveredMessageException.Reason#DESTINATION_UNWRITABLE}). Either way the exception
     * holds every part decompressed, in copies the caller keeps; the socket stands at the next
     * message, and the message counts in {@link PipelineStats#undeliveredMessages()}. Copies
     * rather than the view: the view stays as after any failed receive (no message to read), and a
     * successful receive pays nothing for this (the copies are made on the failure path only).
     * Payload parts written to {@code dst} before the failure are read back from it; when that
     * fails too (its arena closed), the message is lost, counted in
     * {@link PipelineStats#undeliveredMessages()}, and an {@link IllegalStateException} saying so
     * is thrown (the first failure its cause, the read's suppressed in it; or, for a {@code dst}
     * only too small, the read's failure its cause).
     *
     * <p>Allocation: none in steady state when {@code dst} is native; a heap segment works but
     * is written through the codec's native scratch memory (zstd never writes heap memory in place).
     *
     * @param dst where the payload parts are decompressed to, from offset 0; writable, its arena
     *     open during the call
     * @param flags 0 to block, {@link ZmqSocket#DONTWAIT} not to
     * @return {@link #RECEIVED}, {@link #WOULD_BLOCK} or {@link #BAD_FRAME}
     * @throws IllegalArgumentException when {@code dst} is read-only, or shares memory with this
     *     receiver's region ({@link ReceivedMessage#region()}, a part of the last message), or
     *     {@code flags} has a bit other than DONTWAIT: nothing is received
     * @throws IllegalStateException when the receiver is closed (said before any fault of the
     *     arguments) or used by two threads at once, or when {@code dst}'s arena is closed (nothing
     *     is received)
     * @throws WrongThreadException when {@code dst} is confined to another thread (nothing is
     *     received)
     * @throws UndeliveredMessageException when a part did not fit in what was left of {@code dst},
     *     or {@code dst} could not be written once the message was taken: the message is in the
     *     exception
     * @throws io.zmqzstd.transport.ZmqException when the socket fails, as for {@link #receive(int)}
     */
    public int receiveInto(MemorySegment dst, int flags) {
        return receive(Objects.requireNonNull(dst, "dst"), flags);
    }

    private int receive(MemorySegment dst, int flags) {
        owner.enter();
        try {
            // Closed is said first: after close every receive throws IllegalStateException "receiver
            // is closed" (README, "Closing"), as a CompressingSender's sends do, whatever the
            // arguments. Until 2026-11-29 a read-only dst or a bad flag was refused first, with an
            // IllegalArgumentException that did not say the receiver was closed.
            ensureOpen();
            if ((flags & ~ZmqSocket.DONTWAIT) != 0) {
                // libzmq ignores the bits it does not know: a mistaken flag would pass silently
                throw new IllegalArgumentException("flags other than DONTWAIT: flags=" + flags);
            }
            if (dst != null) {
                // Checked before the message is taken: found while decompressing (zstd refuses a
                // closed arena and another thread's confined memory), it would end the call after
                // libzmq had handed the message over, and the message would be lost.
                RawSegments.checkWritable(dst, "destination");
                RawSegments.checkUsable(dst, "destination");
                checkNotInRegion(dst);
            }
            message.begin(region, dst); // a read of the view on another thread is refused until end()
            try {
                if (!socket.receive(frame, flags)) {
                    counters.wouldBlock++;
                    return WOULD_BLOCK;
                }
                partsPending = true;
                try {
                    return readMessage(dst);
                } catch (Throwable t) {
                    // Not a bad frame but a failure (OutOfMemoryError growing the region, a socket
                    // error, a bug): the caller sees it, and the receiver still ends at a message
                    // boundary, so that the next receive does not start inside this message.
                    message.invalidate();
                    failedEnvelope.releaseEnvelope(); // a refusal that ended in a throw is no BAD_FRAME to answer
                    try {
                        skipRestOfMessage();
                    } catch (Throwable again) {
                        t.addSuppressed(again);
                    }
                    throw t;
                }
            } finally {
                message.end();
            }
        } finally {
            owner.exit(this);
        }
    }

    /**
     * Refuses a {@code dst} that shares memory with the region (its segment from
     * {@link ReceivedMessage#region()}, a part of the last message, a slice): this message's
     * envelope parts are copied there at offset 0 while its payload is decompressed into
     * {@code dst} from 0, so before 2026-11-27 a routing id was delivered overwritten by payload
     * bytes, and a region grown for the envelope closed {@code dst} under the call and lost the
     * message. A few comparisons, no allocation.
     */
    private void checkNotInRegion(MemorySegment dst) {
        long d = dst.address();
        long r = region.address();
        if (dst.isNative() && dst.byteSize() > 0 && d < r + region.byteSize() && r < d + dst.byteSize()) {
            throw new IllegalArgumentException("destination inside the receiver's own region: offset=" + (d - r)
                    + ", dstBytes=" + dst.byteSize() + ", regionBytes=" + region.byteSize()
                    + " (the region holds the envelope parts and the last message: receive into memory of your own)");
        }
    }

    /**
     * The message the last {@link #receive} delivered: one reused view, owned by this receiver,
     * valid until the next receive or close (see {@link ReceivedMessage}).
     *
     * @return the receiver's one message view
     */
    public ReceivedMessage message() {
        return message;
    }

    /**
     * The envelope parts of the message the last receive returned as {@link #BAD_FRAME}: its routing
     * id(s) on a ROUTER, a REQ's request id and empty delimiter, as they arrived, so that the
     * sender of the bad message can be answered with an error reply,
     * {@code sender.reply(receiver.failedEnvelope(), error, flags)}
     * ({@link CompressingSender#reply(ReceivedMessage, byte[], int)}), and its client does not wait
     * for a reply that never comes. The view holds the leading uncompressed parts of the message in
     * front of the refused part (the first {@code envelopeParts}, and any empty delimiter after
     * them), where they lie in this receiver's region; {@link ReceivedMessage#isCompressed(int)} is
     * false for each, {@link ReceivedMessage#sequence()} is 0 (the message was not delivered).
     *
     * <p>A view apart from {@link #message()}, which holds no message after {@code BAD_FRAME} as after
     * any receive that did not return {@code RECEIVED}: code that reads {@code message()} after
     * a refusal is still refused, never handed an envelope for a payload. One object per receiver,
     * owned by it, valid as {@link #message()} is: until the next receive or close, after which its
     * accessors throw {@link IllegalStateException}. Recorded on the refusal path only: a receive
     * that returns {@code RECEIVED} pays nothing for it. {@link #lastErrorReason()} and the other
     * {@code lastError} accessors describe the refusal as before.
     *
     * @return the receiver's failed-envelope view, holding at least one part
     * @throws IllegalStateException when the receiver is closed; when the last receive did not
     *     return {@code BAD_FRAME} (it returned {@code RECEIVED} or {@code WOULD_BLOCK}, or threw: a
     *     message handed back in an {@link UndeliveredMessageException} holds its envelope parts in
     *     the exception); or when the envelope is not there to answer, the message naming why: the
     *     refused part is one of the first {@code envelopeParts} (an envelope part over
     *     {@code maxEnvelopeSize}), the message ended within them ({@code NO_PAYLOAD}), or it has no
     *     envelope part at all ({@code envelopeParts} 0 and no empty delimiter in front)
     */
    public ReceivedMessage failedEnvelope() {
        ensureOpen();
        if (!failedEnvelope.heldByLastReceive()) {
            throw new IllegalStateException("no failed message: the last receive did not return BAD_FRAME (a message"
                    + " handed back in an UndeliveredMessageException holds its envelope parts in the exception)");
        }
        if (failedEnvelope.partCount() > 0) {
            return failedEnvelope;
        }
        // Failure path: say why the envelope is not there
        String why = lastErrorPart >= envelopeParts ? "the message has no envelope part in front of the refused part"
                + " (envelopeParts=0, and no empty delimiter came first): reply with send(…)"
                : lastErrorReason == BadFrameReason.NO_PAYLOAD ? "the message ended within its envelope: parts="
                + (lastErrorPart + 1) + ", envelopeParts=" + envelopeParts + " (its parts are not known to be an envelope)"
                : "the refused part is envelope part " + lastErrorPart + " of envelopeParts=" + envelopeParts
                + " (reason=" + lastErrorReason + "): the envelope was not received whole";
        throw new IllegalStateException("no envelope to reply behind: " + why);
    }

    /**
     * Why the most recent {@link #BAD_FRAME} happened; null before the first. Kept until the next
     * one.
     *
     * @return the reason, or null when no receive returned {@link #BAD_FRAME} yet
     */
    public BadFrameReason lastErrorReason() {
        return lastErrorReason;
    }

    /**
     * A key=value description of the most recent bad part; null before the first.
     *
     * @return the description, or null when no receive returned {@link #BAD_FRAME} yet
     */
    public String lastErrorMessage() {
        return lastErrorMessage;
    }

    /**
     * Index of the bad part within its message for the most recent {@link #BAD_FRAME}; -1 before
     * the first.
     *
     * @return the part's index from 0, or -1 when no receive returned {@link #BAD_FRAME} yet
     */
    public int lastErrorPart() {
        return lastErrorPart;
    }

    /**
     * The dictionary ID named in the header of the part refused by the most recent
     * {@link #BAD_FRAME}, when the decompressor took it and refused it (e.g. {@code CORRUPT},
     * {@code CHECKSUM}, {@code DICTIONARY_MISSING}): 0 when it names none. So a caller can say which dictionary decoded a frame that
     * failed: the one of that ID, or for 0 the one for frames without an ID
     * ({@link Builder#dictionaryForFramesWithoutId}, else a raw-content one), or none. Kept until
     * the next {@link #BAD_FRAME}.
     *
     * @return the unsigned 32-bit ID, 0, or -1 before the first {@link #BAD_FRAME}, or when the part
     *     was refused before the decompressor took it (empty, its declared size over a limit, an
     *     envelope or parts refusal) or its header does not read as a zstd frame's
     */
    public long lastErrorDictionaryId() {
        return lastErrorDictionaryId;
    }

    /**
     * The per-part decompressed size limit.
     *
     * @return the limit in bytes
     */
    public long maxDecompressedSize() {
        return maxDecompressedSize;
    }

    /**
     * The most bytes the payload parts of one message may decompress to together: the builder's,
     * unless it and {@link #maxEnvelopeSize()} together would pass {@code Long.MAX_VALUE} (see
     * {@link Builder#maxMessageSize(long)}).
     *
     * @return the limit in bytes
     */
    public long maxMessageSize() {
        return maxMessageSize;
    }

    /**
     * The most bytes the envelope parts of one message may hold together: the builder's, unless it
     * and {@link #maxMessageSize()} together would pass {@code Long.MAX_VALUE} (see
     * {@link Builder#maxMessageSize(long)}).
     *
     * @return the limit in bytes
     */
    public long maxEnvelopeSize() {
        return maxEnvelopeSize;
    }

    /**
     * Leading uncompressed parts per message.
     *
     * @return the number of envelope parts, 0 or more
     */
    public int envelopeParts() {
        return envelopeParts;
    }

    /**
     * The most parts one message may have, envelope parts included.
     *
     * @return the limit, at least 1
     */
    public int maxParts() {
        return maxParts;
    }

    /**
     * The socket this receiver reads (borrowed, not owned).
     *
     * @return the socket given to {@link #builder}
     */
    public ZmqSocket socket() {
        return socket;
    }

    /**
     * A snapshot of this receiver's counters (allocates), would-blocks included. A receiver rents
     * no pooled buffers; the pool-wide figures are those of the socket context's pool. Callable
     * from any thread; taken from another while the owner receives, it may be slightly behind and
     * its counters need not agree with each other (README, "Threading").
     *
     * @return a new snapshot; after close its pool-wide figures are 0
     */
    public PipelineStats stats() {
        return counters.snapshot(closed ? null : socket.context().bufferPool());
    }

    /**
     * True after {@link #close()}.
     *
     * @return whether the receiver is closed
     */
    public boolean isClosed() {
        return closed;
    }

    // ------------------------------------------------------------------ per message

    /**
     * Reads the message whose first part is in {@link #frame}: envelope parts into the region,
     * payload parts decompressed into {@code dst} from offset 0 or, when it is null, into the
     * region after the parts before them.
     */
    private int readMessage(MemorySegment dst) {
        MemorySegment into = dst;     // null once the rest of the message goes to the region, to be handed back
        String undelivered = null;    // why dst did not take the message, which is then handed back
        RuntimeException fault = null; // what dst threw, when it could not be written; null when it was too small
        long used = 0;                // region bytes taken by this message's parts
        long dstUsed = 0;             // dst bytes taken by its payload parts
        envelopeBytes = 0;            // counted against maxEnvelopeSize
        long compressedBytes = 0;
        long uncompressedBytes = 0;   // counted against maxMessageSize
        int payloadParts = 0;
        int envelope = 0;
        for (int index = 0; ; index++) {
            boolean more = frame.hasMore();
            partsPending = more;
            if (index == maxParts) {
                refuse(index, BadFrameReason.TOO_LARGE, "message has more parts than limit: parts>" + maxParts
                        + ", maxParts=" + maxParts);
                skipRestOfMessage();
                return BAD_FRAME;
            }
            long address = frame.address();
            long size = frame.size();
            if (index < envelopeParts || (size == 0 && more)) {
                if (size > maxEnvelopeSize - envelopeBytes) {
                    refuse(index, BadFrameReason.TOO_LARGE, "envelope larger than limit: total>="
                            + (envelopeBytes + size) + ", maxEnvelopeSize=" + maxEnvelopeSize
                            + (startsWithZstdMagic(address, size) ? frameTakenForEnvelopePart(index) : ""));
                    skipRestOfMessage();
                    return BAD_FRAME;
                }
                envelopeBytes += size;
                ensureCapacity(used, used + size);
                MemorySegment.copy(EVERYTHING, address, region, used, size);
                message.add(used, size, false);
                used += size;
                envelope++;
            } else {
                long at = into == null ? used : dstUsed;
                long n;
                try {
                    n = decompressPart(index, address, size, into, at, uncompressedBytes);
                } catch (RuntimeException e) {
                    if (into == null) {
                        throw e;
                    }
                    // dst could not be written (a fault in a mapped file shortened since it was
                    // mapped, its arena closed by another thread)
                    fault = e;
                    n = NOT_WRITTEN;
                }
                if (n < 0) {
                    if (n != NOT_WRITTEN) {
                        if (lastErrorReason == BadFrameReason.NOT_ZSTD) {
                            if (ZstdFrames.startsWithSkippableMagic(EVERYTHING, address, size)) {
                                lastErrorMessage = badFrame(index, BadFrameReason.NOT_ZSTD,
                                        skippableFrameIsNoPayload(address, size, envelope + 1));
                            } else if (payloadParts == 0 && more) {
                                lastErrorMessage += oneMoreEnvelopePart(index);
                            }
                        }
                        skipRestOfMessage();
                        return BAD_FRAME;
                    }
                    // Failure path. dst failed, or has no room left for this part: the message is
                    // off the socket, so it goes on in the region and is handed back whole in the
                    // exception. A frame without a declared size that ran out of dst part-way is
                    // decompressed again, from the frame still held, into the region.
                    String tooSmall = fault != null ? null : "destination too small: part=" + index + ", offset=" + at
                            + ", dstBytes=" + into.byteSize();
                    used = movePayloadToRegion(fault, tooSmall, into, used, dstUsed);
                    into = null;
                    at = used;
                    n = decompressPart(index, address, size, null, at, uncompressedBytes);
                    if (n < 0) {
                        skipRestOfMessage();
                        return BAD_FRAME;
                    }
                    undelivered = fault != null ? fault.getMessage() : tooSmall + ", partBytes=" + n
                            + (ZstdFrames.contentSize(EVERYTHING, address, size) == ZstdFrames.CONTENT_SIZE_UNKNOWN
                            ? " (the frame declares no size: dst ran out part-way)" : "");
                }
                message.add(at, n, true);
                if (into == null) {
                    used += n;
                } else {
                    dstUsed += n;
                }
                compressedBytes += size;
                uncompressedBytes += n;
                payloadParts++;
            }
            if (!more) {
                break;
            }
            socket.receive(frame, 0);
        }
        if (payloadParts == 0) {
            // [envelope part]* [payload part]+: envelope parts alone are not a message to deliver
            // (every part was one; the error is reported at the last, still in the frame)
            boolean lastIsFrame = startsWithZstdMagic(frame.address(), frame.size());
            releaseFrame();
            refuse(envelope - 1, BadFrameReason.NO_PAYLOAD, "message ended without a compressed part: parts=" + envelope
                    + ", envelopeParts=" + envelopeParts + " (a message is [envelope part]* [payload part]+)"
                    + (lastIsFrame ? frameTakenForEnvelopePart(envelope - 1) : "")
                    + (socket.conflate() ? "; the socket has conflate on" + CONFLATE_NOTE : ""));
            return BAD_FRAME;
        }
        releaseFrame();
        if (undelivered != null) {
            counters.undeliveredMessages++;
            throw message.undelivered(fault == null ? UndeliveredMessageException.Reason.DESTINATION_TOO_SMALL
                    : UndeliveredMessageException.Reason.DESTINATION_UNWRITABLE, undelivered + " (the message was taken"
                    + " off the socket and is handed back whole in this exception: parts=" + message.partCount()
                    + "; the next receive takes the next message)", fault);
        }
        counters.messages++;
        counters.parts += payloadParts;
        counters.envelopeParts += envelope;
        counters.compressedBytes += compressedBytes;
        counters.uncompressedBytes += uncompressedBytes;
        message.complete();
        return RECEIVED;
    }

    /**
     * The end of a NOT_ZSTD message for the first part after the envelope when more parts follow:
     * the likeliest cause is an envelope part the receiver was not told of (a DEALER behind a
     * ROUTER's proxy receives each request behind its routing id, a ROUTER behind a ROUTER one id
     * per hop), which before 2026-11-29 the message left to be guessed from "magic mismatch".
     * Failure path only.
     */
    private String oneMoreEnvelopePart(int index) {
        return "; more parts follow it and no payload part came before it: if it is one more envelope part"
                + " (a routing id, a topic, a header), build the receiver with envelopeParts(" + (index + 1)
                + ") (now " + envelopeParts + ")";
    }

    /**
     * The end of a refusal of envelope part {@code index} that starts with the zstd magic (a
     * NO_PAYLOAD at the last part, a TOO_LARGE envelope): envelopeParts is likely above the
     * envelope the message has, a PUB that published no topic to a SUB, say. Until 2026-11-29 the
     * TOO_LARGE said only the envelope's size, for a frame too large for maxEnvelopeSize.
     * Failure path only.
     */
    private String frameTakenForEnvelopePart(int index) {
        return "; part " + index + " starts with the zstd magic: a frame taken for an envelope part, envelopeParts="
                + envelopeParts + " being more than the envelope parts this message has (a sender that sent no topic or"
                + " header where the receiver expects one? if its messages have " + index + " envelope parts, build the"
                + " receiver with envelopeParts(" + index + "))";
    }

    /**
     * Why a part that starts with a skippable frame was refused, said in the pipeline's terms (the
     * codec's message points to {@code ZstdInputStream}, which reads past skippable frames, a
     * codec class a pipeline user may never have met; until 2026-11-29 that was the whole advice),
     * with {@code envelope} the {@code envelopeParts} that would take it in front of the payload.
     * Failure path only.
     */
    private String skippableFrameIsNoPayload(long address, long size, int envelope) {
        return "not a zstd frame: length=" + size + ", a skippable frame (magic 0x"
                + Integer.toHexString(EVERYTHING.get(MAGIC_LAYOUT, address)).toUpperCase(java.util.Locale.ROOT)
                + "), which is not a message payload: a payload part is exactly one zstd frame, and the receiver"
                + " steps over no skippable frame; the sender should send the zstd frame alone in its part, or send"
                + " what the skippable frame carries as an envelope part in front of the first payload part and build"
                + " the receiver with envelopeParts(" + envelope + ") (now " + envelopeParts + ")";
    }

    /** Whether the {@code size} bytes at {@code address} start with the zstd frame magic. Failure path only. */
    private static boolean startsWithZstdMagic(long address, long size) {
        return size >= WireFormat.MAGIC_BYTES && EVERYTHING.get(MAGIC_LAYOUT, address) == WireFormat.ZSTD_MAGIC;
    }

    /**
     * The payload parts that a {@code receiveInto} wrote to {@code dst} before it failed or ran out
     * of room ({@code [0, dstUsed)}) are read back into the region at {@code used}, where the rest
     * of the message goes: returns the region bytes now taken. Failure path only. When {@code dst}
     * cannot be read back (its arena closed, a fault there too), those parts are gone (their frames
     * too, released part by part) and the message is lost, counted in {@code undeliveredMessages}:
     * an {@link IllegalStateException} says {@code fault}'s message, or {@code tooSmall} for a
     * {@code dst} that was only too small ({@code fault} null), and that the message is lost; its
     * cause {@code fault}, the read's failure suppressed, or without {@code fault} the read's
     * failure its cause.
     */
    private long movePayloadToRegion(RuntimeException fault, String tooSmall, MemorySegment dst, long used, long dstUsed) {
        if (dstUsed > 0) {
            ensureCapacity(used, used + dstUsed);
            try {
                MemorySegment.copy(dst, 0, region, used, dstUsed);
            } catch (RuntimeException | InternalError e) {
                // Taken and not delivered, and not to be handed back whole: counted with those
                // handed back, so that every message a receive takes counts once (before
                // 2026-11-29 it counted nowhere)
                counters.undeliveredMessages++;
                // Said in the exception's own message, which before 2026-11-29 was dst's first
                // failure alone when there was one ("segment is no longer alive: …"), the loss
                // only in a suppressed exception
                IllegalStateException lost = new IllegalStateException((fault != null ? fault.getMessage() : tooSmall)
                        + " (the message was taken off the socket, and the payload parts written to dst before could"
                        + " not be read back: the message is lost)", fault != null ? fault : e);
                if (fault != null) {
                    lost.addSuppressed(e);
                }
                throw lost;
            }
        }
        message.payloadMoved(used);
        return used + dstUsed;
    }

    /**
     * Decompresses the frame at {@code address} into {@code dst} (the region when null) at
     * {@code at}; the message's payload parts before it decompressed to {@code payloadBefore}
     * bytes. The limits come first, the destination's room last: a frame over a limit is
     * TOO_LARGE whatever the destination, and one that passes them but does not fit in {@code dst}
     * is decompressed again into the region by the caller, whose other checks it then meets.
     *
     * @return decompressed bytes, -1 after recording why the part was refused, or
     *     {@link #NOT_WRITTEN} when it does not fit in what is left of {@code dst}
     */
    private long decompressPart(int index, long address, long size, MemorySegment dst, long at, long payloadBefore) {
        if (size == 0) {
            return refuse(index, BadFrameReason.EMPTY, "empty part: size=0 (a zstd frame is at least "
                    + WireFormat.MIN_FRAME_BYTES + " bytes)");
        }
        try {
            long declared = ZstdFrames.contentSize(EVERYTHING, address, size);
            long limit = Math.min(maxDecompressedSize, maxMessageSize - payloadBefore);
            if (declared == ZstdFrames.CONTENT_SIZE_UNKNOWN) {
                return dst == null ? decompressUnknownSize(index, address, size, at, limit)
                        : decompressUnknownSizeInto(index, address, size, dst, at, limit);
            }
            if (Long.compareUnsigned(declared, maxDecompressedSize) > 0) {
                return refuse(index, BadFrameReason.TOO_LARGE, "frame larger than limit: declared="
                        + Long.toUnsignedString(declared) + ", limit=" + maxDecompressedSize);
            }
            if (declared > maxMessageSize - payloadBefore) {
                return refuse(index, BadFrameReason.TOO_LARGE, "message larger than limit: total="
                        + (payloadBefore + declared) + ", maxMessageSize=" + maxMessageSize);
            }
            if (dst == null) {
                if (at + declared > region.byteSize()) {
                    // The region grows for this frame: its blocks must be able to hold what the
                    // header declares, or a few bytes of header would have it grow (and zero) up
                    // to the limit before libzstd finds the frame damaged. Only on growth: a frame
                    // that fits is not walked twice.
                    contentBound(address, size);
                }
                ensureCapacity(at, at + declared);
                return decompressor.decompress(EVERYTHING, address, size, region, at, declared);
            }
            if (declared > dst.byteSize() - at) {
                return NOT_WRITTEN; // handed back: the caller's sizing, not a bad frame
            }
            return decompressor.decompress(EVERYTHING, address, size, dst, at, declared);
        } catch (ZstdException e) {
            long refused = refuse(index, BadFrameReason.of(e.reason()), e.getMessage());
            lastErrorDictionaryId = namedDictionaryId(address, size);
            return refused;
        }
    }

    /**
     * Refusal path only: the dictionary ID the header at {@code address} names (0: none), which
     * says which dictionary decoded a frame that failed, or -1 when the header does not read.
     */
    private static long namedDictionaryId(long address, long size) {
        try {
            return Integer.toUnsignedLong(ZstdFrames.dictionaryId(EVERYTHING, address, size));
        } catch (ZstdException unreadable) {
            return -1;
        }
    }

    /**
     * A frame without a declared size (zstd streams) into the region: try growing room, up to
     * {@code limit}. The first try takes all the room the region already has, when that is more
     * than the first guess: a larger room costs libzstd nothing (it stops at the frame's end) and
     * grows no memory, where each refused try cost a decompression up to its room (until
     * 2026-11-29 the first try was the guess alone, so 4 MiB of such content in a region grown to
     * 8 MiB took 5 decompressions instead of 1). A streaming decompression into a growing region
     * would never decompress twice, but libzstd's streaming decoder either copies through a window
     * buffer of its own or, with a stable output buffer, keeps pointers into the output, which a
     * region moved by its growth would break; retrying in doubled room costs at most about three
     * times the content's decompression, only when the region has to grow for it.
     */
    private long decompressUnknownSize(int index, long address, long size, long at, long limit) {
        long room = Math.min(limit, Math.max(Math.max(UNKNOWN_SIZE_FIRST_TRY, 4 * size), region.byteSize() - at));
        if (at + room > region.byteSize()) {
            // Growth for this frame goes no further than its blocks can hold, and a truncated
            // or damaged frame is refused before the region grows
            room = Math.min(room, Math.max(1, contentBound(address, size)));
        }
        for (;;) {
            ensureCapacity(at, at + room);
            unknownSizeTries++;
            try {
                return decompressor.decompress(EVERYTHING, address, size, region, at, room);
            } catch (ZstdException e) {
                if (e.reason() != ZstdException.Reason.DESTINATION_TOO_SMALL) {
                    throw e;
                }
                if (room >= limit) {
                    return refuseOverLimit(index, limit);
                }
                room = Math.min(limit, room * 2);
            }
        }
    }

    /**
     * {@link ZstdFrames#contentBound} of the frame at {@code address}, read before the region grows
     * for it. A frame that walk refuses (cut inside a block, declaring more than its blocks hold) is
     * reported as the decompressor would report it: its header checks (the window allowance, the
     * dictionary) come before its blocks are looked at (README, "Checks, in order"), whether or not
     * the region has to grow. Before 2026-11-29 the walk spoke first here, so a cut frame naming an
     * unknown dictionary, or with a window past the allowance, was {@code TRUNCATED} on a receiver
     * whose region had to grow for it and {@code DICTIONARY_MISSING} or {@code TOO_LARGE} on one
     * whose region had grown before. Only the refusal costs more: a zero-capacity decompress, in
     * which the decompressor checks the header, then walks the blocks, and writes nothing.
     */
    private long contentBound(long address, long size) {
        try {
            return ZstdFrames.contentBound(EVERYTHING, address, size);
        } catch (ZstdException walk) {
            try {
                decompressor.decompress(EVERYTHING, address, size, region, 0, 0);
            } catch (ZstdException header) {
                if (header.reason() != ZstdException.Reason.DESTINATION_TOO_SMALL) {
                    throw header;
                }
            }
            throw walk;
        }
    }

    /**
     * A frame without a declared size into the caller's {@code dst}: one try with all the room there
     * is; {@link #NOT_WRITTEN} when that room, below the limit, ran out part-way.
     */
    private long decompressUnknownSizeInto(int index, long address, long size, MemorySegment dst, long at, long limit) {
        long room = Math.min(limit, dst.byteSize() - at);
        try {
            return decompressor.decompress(EVERYTHING, address, size, dst, at, room);
        } catch (ZstdException e) {
            if (e.reason() != ZstdException.Reason.DESTINATION_TOO_SMALL) {
                throw e;
            }
            return room < limit ? NOT_WRITTEN : refuseOverLimit(index, limit);
        }
    }

    /** A frame without a declared size outgrew {@code limit}: the per-part one, or what the message had left. */
    private long refuseOverLimit(int index, long limit) {
        return refuse(index, BadFrameReason.TOO_LARGE, limit == maxDecompressedSize
                ? "frame larger than limit: declared=unknown, limit=" + maxDecompressedSize
                : "message larger than limit: total>" + maxMessageSize + ", maxMessageSize=" + maxMessageSize);
    }

    private long refuse(int index, BadFrameReason reason, String why) {
        lastErrorReason = reason;
        lastErrorPart = index;
        lastErrorDictionaryId = -1;
        lastErrorMessage = badFrame(index, reason, why);
        counters.errors[reason.ordinal()]++;
        // The envelope parts laid out before the refused part, for an error reply: whole only when
        // the refused part is not one of the first envelopeParts (a TOO_LARGE envelope part, a
        // NO_PAYLOAD message that ended within them)
        failedEnvelope.holdEnvelope(message, index >= envelopeParts ? index : 0);
        message.invalidate();
        return -1;
    }

    /** The text of {@link #lastErrorMessage()} for part {@code index} refused for {@code reason}. */
    private static String badFrame(int index, BadFrameReason reason, String why) {
        return "bad frame: part=" + index + ", reason=" + reason + ", " + why;
    }

    /**
     * Reads and drops what is left of the current message, so that the next receive starts at
     * the next message. libzmq queues a multipart message whole, so the parts are there to read.
     * A receive here fails only when the context is terminating (ETERM, thrown to the caller);
     * the rest of the message then stays unread, and every later receive on the socket fails
     * with ETERM too.
     */
    private void skipRestOfMessage() {
        while (partsPending) {
            socket.receive(frame, 0);
            partsPending = frame.hasMore();
        }
        releaseFrame();
    }

    /**
     * Gives libzmq's frame back now rather than at the next receive: on inproc it may be a pooled
     * zero-copy buffer the sender is waiting for, on tcp a slice of a large receive batch.
     */
    private void releaseFrame() {
        frame.clear();
    }

    /**
     * The most region a message with {@code envelope} envelope bytes can need: maxMessageSize of
     * payload plus its envelope (never more than maxEnvelopeSize, so the sum is at most
     * Long.MAX_VALUE: see the constructor).
     */
    private long regionBound(long envelope) {
        return maxMessageSize + envelope;
    }

    /**
     * Makes the region at least {@code needed} bytes, keeping {@code [0, used)}. Callers have
     * checked the envelope and payload bytes against their limits, so {@code needed} is within
     * {@link #regionBound} of this message's envelope; growth doubles but never passes that bound,
     * so hostile input cannot make the region larger than the limits, and a message without an
     * envelope never makes it larger than maxMessageSize.
     */
    private void ensureCapacity(long used, long needed) {
        if (needed <= region.byteSize()) {
            return;
        }
        long size = Math.max(needed, Math.min(regionBound(envelopeBytes), Math.min(Long.MAX_VALUE / 2, region.byteSize()) * 2));
        // Made once per growth, never per message. Shared: the receiver may change threads.
        Arena next = Arena.ofShared();
        MemorySegment grown;
        try {
            grown = next.allocate(size, 64);
        } catch (RuntimeException | Error e) {
            next.close();
            throw e;
        }
        MemorySegment.copy(region, 0, grown, 0, used);
        memory.arena.close(); // ends every view into the old region: stale use throws
        memory.arena = next;
        region = grown;
        message.region(grown);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("receiver is closed");
        }
    }

    /**
     * Frees the message, the decompressor and the output region (every view of it ends). The
     * socket stays open (it is the caller's). Idempotent. Called while another thread is inside
     * {@link #receive} (blocked in the socket), it throws {@link IllegalStateException} and frees
     * nothing: end that receive first ({@link io.zmqzstd.transport.ZmqContext#shutdown()} or a
     * receive timeout), then close.
     */
    @Override
    public void close() {
        owner.enter();
        try {
            if (closed) {
                return;
            }
            closed = true;
            message.close();
            try {
                memory.close(); // the frame, then the region
            } finally {
                decompressor.close();
            }
        } finally {
            owner.exit(this);
        }
    }

    /** Decompressions of frames without a declared size into the region, retries included: for tests. */
    long unknownSizeTries() {
        return unknownSizeTries;
    }

    /** This receiver's native memory, freed by close() or by the cleaner: for tests. */
    Unclosed.Memory memory() {
        return memory;
    }
}
