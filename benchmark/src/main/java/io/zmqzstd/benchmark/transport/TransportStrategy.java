package io.zmqzstd.benchmark.transport;

import io.zmqzstd.benchmark.Stamp;
import io.zmqzstd.transport.PooledBuffer;
import io.zmqzstd.transport.ZmqMessage;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * How one payload frame is produced, sent and received: the {@code strategy} parameter of
 * {@link io.zmqzstd.benchmark.TransportBenchmark}. Every strategy fills its send buffer from the same
 * source payload (a producer has to put its bytes somewhere) and stamps it; every receiver checks
 * length and sequence. The send half runs on the sender thread, the receive half on the measuring
 * thread; they share no mutable state.
 */
public abstract class TransportStrategy implements AutoCloseable {

    public static final String BYTE_ARRAY = "byteArray";
    public static final String REUSED_BUFFER = "reusedBuffer";
    public static final String MESSAGE = "message";
    public static final String ZERO_COPY_POOLED = "zeroCopyPooled";
    /** Not in TransportBenchmark's default list: pass it with -p strategy=... or to TransportOverhead. */
    public static final String NATIVE_SEGMENT = "nativeSegment";

    /** Values of {@code TransportBenchmark}'s {@code read}: how much of each payload the receiver reads. */
    public static final String READ_STAMP = "stamp";
    public static final String READ_ALL = "all";
    /**
     * As {@link #READ_ALL}, but a receiver that reads libzmq's frame in place first copies it into one
     * reused heap array and reads that (the heap receivers read as with {@code all}): separates what
     * reading native memory in place costs from what the receive path costs.
     */
    public static final String READ_COPY = "copy";

    /** Every strategy {@link #create} accepts, the default list's and {@link #NATIVE_SEGMENT}. */
    public static final List<String> NAMES = List.of(BYTE_ARRAY, REUSED_BUFFER, MESSAGE, ZERO_COPY_POOLED, NATIVE_SEGMENT);
    /** Every value of {@code read}. */
    public static final List<String> READS = List.of(READ_STAMP, READ_ALL, READ_COPY);

    protected final int size;
    protected final byte[] source;
    /** {@link Stamp#foldAfterStamp} of the source: what every payload's bytes after the stamp fold to. */
    private final long expectedFold;
    private boolean readAll;
    /** With {@link #READ_COPY}: the one heap array an in-place frame is copied into before it is read. */
    private byte[] readCopy;
    private final Arena arena = Arena.ofShared();
    protected final MemorySegment nativeSource;

    TransportStrategy(byte[] source) {
        this.size = source.length;
        this.source = source.clone();
        this.nativeSource = arena.allocate(size, 64);
        nativeSource.copyFrom(MemorySegment.ofArray(source));
        this.expectedFold = Stamp.foldAfterStamp(source, size);
    }

    /**
     * {@link #READ_STAMP}: the receiver checks length and stamp only, 8 bytes of each payload (the
     * default, and every published transport figure before the {@code read} parameter). {@link #READ_ALL}:
     * it also reads every byte and compares them with the source, as a consumer that uses its messages
     * does; a strategy that hands the receiver the sender's own memory (zero-copy over inproc) is then
     * charged for bringing that memory to the receiving core, as the copying strategies are in their copy.
     * {@link #READ_COPY}: as {@code all}, an in-place frame copied to the heap first.
     */
    public void read(String read) {
        readAll = switch (read) {
            case READ_STAMP -> false;
            case READ_ALL, READ_COPY -> true;
            default -> throw new IllegalArgumentException("unknown read: read=" + read + " (stamp, all or copy)");
        };
        readCopy = read.equals(READ_COPY) ? new byte[size] : null;
    }

    /** With {@link #READ_ALL}: reads the whole payload and fails unless it is the source's. */
    protected final void checkContent(byte[] message, int length) {
        if (readAll && Stamp.foldAfterStamp(message, length) != expectedFold) {
            throw contentDiffers();
        }
    }

    /** {@link #checkContent(byte[], int)} of a payload in native memory. */
    protected final void checkContentAt(long address, long length) {
        if (readCopy != null) {
            if (length > readCopy.length) {
                throw contentDiffers();
            }
            Stamp.copyAt(address, readCopy, (int) length);
            checkContent(readCopy, (int) length);
        } else if (readAll && Stamp.foldAfterStampAt(address, length) != expectedFold) {
            throw contentDiffers();
        }
    }

    private IllegalStateException contentDiffers() {
        return new IllegalStateException("payload bytes differ from the source's: size=" + size);
    }

    public static TransportStrategy create(String name, byte[] source) {
        return switch (name) {
            case BYTE_ARRAY -> new ByteArray(source);
            case REUSED_BUFFER -> new ReusedBuffer(source);
            case MESSAGE -> new Message(source);
            case ZERO_COPY_POOLED -> new ZeroCopyPooled(source);
            case NATIVE_SEGMENT -> new NativeSegment(source);
            default -> throw new IllegalArgumentException("unknown transport strategy: strategy=" + name);
        };
    }

    /** Sends the payload frame of message {@code sequence} (the routing frame is already sent). */
    public abstract void sendPayload(ZmqSocket socket, long sequence);

    /** Receives and checks the payload frame of message {@code expectedSequence}. */
    public abstract void receivePayload(ZmqSocket socket, long expectedSequence);

    @Override
    public void close() {
        arena.close();
    }

    static void sent(boolean sent) {
        if (!sent) {
            throw new IllegalStateException("blocking send returned would-block");
        }
    }

    /** The naive way: a new array per message on both sides. */
    static final class ByteArray extends TransportStrategy {
        ByteArray(byte[] source) {
            super(source);
        }

        @Override
        public void sendPayload(ZmqSocket socket, long sequence) {
            byte[] message = new byte[size];
            System.arraycopy(source, 0, message, 0, size);
            Stamp.write(message, sequence);
            sent(socket.send(message, 0));
        }

        @Override
        public void receivePayload(ZmqSocket socket, long expectedSequence) {
            byte[] message = socket.receiveBytes(0);
            Stamp.check(message, message.length, expectedSequence, size);
            checkContent(message, message.length);
        }
    }

    /** One {@code byte[]} per side, allocated once and reused (what the seeds did with an array pool). */
    static final class ReusedBuffer extends TransportStrategy {
        private final byte[] sendBuffer;
        private final byte[] receiveBuffer;

        ReusedBuffer(byte[] source) {
            super(source);
            sendBuffer = new byte[size];
            receiveBuffer = new byte[size];
        }

        @Override
        public void sendPayload(ZmqSocket socket, long sequence) {
            System.arraycopy(source, 0, sendBuffer, 0, size);
            Stamp.write(sendBuffer, sequence);
            sent(socket.send(sendBuffer, 0));
        }

        @Override
        public void receivePayload(ZmqSocket socket, long expectedSequence) {
            int length = socket.receive(receiveBuffer, 0);
            Stamp.check(receiveBuffer, length, expectedSequence, size);
            checkContent(receiveBuffer, length);
        }
    }

    /** Receives into one reused {@link ZmqMessage} and checks the frame in place. */
    abstract static class ReceivesInPlace extends TransportStrategy {
        private final ZmqMessage receiveMessage = new ZmqMessage();

        ReceivesInPlace(byte[] source) {
            super(source);
        }

        @Override
        public final void receivePayload(ZmqSocket socket, long expectedSequence) {
            if (!socket.receive(receiveMessage, 0)) {
                throw new IllegalStateException("receive timed out: expectedSequence=" + expectedSequence);
            }
            Stamp.checkAt(receiveMessage.address(), receiveMessage.size(), expectedSequence, size);
            checkContentAt(receiveMessage.address(), receiveMessage.size());
        }

        @Override
        public void close() {
            receiveMessage.close();
            super.close();
        }
    }

    /**
     * libzmq messages, one reusable {@link ZmqMessage} per side: the sender builds each message by copy
     * (zmq_msg_init_size), the receiver reads the frame in place.
     */
    static final class Message extends ReceivesInPlace {
        private final ZmqMessage sendMessage = new ZmqMessage();

        Message(byte[] source) {
            super(source);
        }

        @Override
        public void sendPayload(ZmqSocket socket, long sequence) {
            sendMessage.set(nativeSource);
            Stamp.writeAt(sendMessage.address(), sequence);
            sent(socket.send(sendMessage, 0));
        }

        @Override
        public void close() {
            sendMessage.close();
            super.close();
        }
    }

    /**
     * The context's native buffer pool: fill a rented buffer, hand it to libzmq (zero-copy at or above
     * the pool's threshold, a copy below it); receive into a reused {@link ZmqMessage} and read in place.
     */
    static final class ZeroCopyPooled extends ReceivesInPlace {
        ZeroCopyPooled(byte[] source) {
            super(source);
        }

        @Override
        public void sendPayload(ZmqSocket socket, long sequence) {
            PooledBuffer buffer = socket.context().bufferPool().rent(size);
            try {
                MemorySegment segment = buffer.segment();
                MemorySegment.copy(nativeSource, 0, segment, 0, size);
                Stamp.write(segment, sequence);
                sent(socket.sendPooled(buffer, size, 0));
            } catch (RuntimeException e) {
                // Until a send succeeds the buffer is ours to give back.
                buffer.release();
                throw e;
            }
        }
    }

    /**
     * One native segment per sender, filled as {@code zeroCopyPooled} fills its buffer and sent with
     * {@code send(MemorySegment, ...)}: one zmq_send, which copies the bytes inside libzmq, and no pool
     * rent or return. The cheapest copying send the library has; received as {@code zeroCopyPooled} is.
     */
    static final class NativeSegment extends ReceivesInPlace {
        private final Arena sendArena = Arena.ofShared();
        private final MemorySegment sendSegment;

        NativeSegment(byte[] source) {
            super(source);
            sendSegment = sendArena.allocate(Math.max(1, size), 64);
        }

        @Override
        public void sendPayload(ZmqSocket socket, long sequence) {
            MemorySegment.copy(nativeSource, 0, sendSegment, 0, size);
            Stamp.write(sendSegment, sequence);
            sent(socket.send(sendSegment, 0, size, 0));
        }

        @Override
        public void close() {
            sendArena.close();
            super.close();
        }
    }
}
