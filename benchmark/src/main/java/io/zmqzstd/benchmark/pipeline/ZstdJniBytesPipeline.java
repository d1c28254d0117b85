package io.zmqzstd.benchmark.pipeline;

import com.github.luben.zstd.Zstd;
import io.zmqzstd.benchmark.Closing;
import io.zmqzstd.benchmark.CreditedSender;
import io.zmqzstd.benchmark.PayloadCheck;
import io.zmqzstd.benchmark.Stamp;
import io.zmqzstd.benchmark.ZstdJniCodec;

/**
 * What users run today: zstd-jni with {@code byte[]} in and {@code byte[]} out over a socket API that
 * sends and receives {@code byte[]}. A careful user keeps one compression and one decompression context
 * (and the dictionary loaded into them). Subclasses supply the socket.
 *
 * <p>Two ways with the arrays. The short way (the {@code jeromqZstdjni} and {@code libzmqBytes}
 * contestants): each frame and each decompressed payload is a new array, as the one-argument
 * {@code compress}/{@code decompress} and the {@code byte[]}-returning receive give them. The reusing
 * way (the {@code ...Reused} contestants): the sender compresses into one array of the compression
 * bound and sends the frame's slice of it; the receiver receives into one array of that bound and
 * decompresses into one output array, grown only when a frame declares more than it holds. What is
 * left on the heap then is the socket library's own (JeroMQ copies each frame into a new message).
 */
abstract class ZstdJniBytesPipeline implements PipelineContestant {

    private final int size;
    private final byte[] message;
    private final ZstdJniCodec codec;
    private final PayloadCheck check;
    private final boolean reuse;
    /** The reusing way: the sender's frame array and the receiver's frame and output arrays. */
    private final byte[] frameBuffer;
    private final byte[] receiveBuffer;
    private byte[] output;
    private CreditedSender sender;
    /** {@code hop=proxy}: the proxy between the subclass's sockets; null for {@code none}. */
    private ProxyHop hop;
    private long nextSequence;
    /**
     * The sender thread's running total, read by the measuring thread for the log's ratio line once
     * the messages have arrived; a plain field, as {@code zmqzstd}'s counters are (a volatile one
     * was a locked store per message on this contestant's sender thread only).
     */
    private long compressedBytes;

    /** {@code dictionary} is raw zstd dictionary bytes, or null for none; {@code reuse} picks the way above. */
    ZstdJniBytesPipeline(byte[] payload, int level, byte[] dictionary, boolean reuse) {
        this.size = payload.length;
        this.message = payload.clone();
        this.check = new PayloadCheck(payload);
        this.codec = new ZstdJniCodec(level, dictionary);
        this.reuse = reuse;
        int bound = reuse ? Math.toIntExact(Zstd.compressBound(size)) : 0;
        this.frameBuffer = reuse ? new byte[bound] : null;
        this.receiveBuffer = reuse ? new byte[bound] : null;
        this.output = reuse ? new byte[size] : null;
    }

    /**
     * Starts the sender thread; call at the end of the subclass constructor, once sockets are connected.
     * {@code hop} is the proxy between them (null for none), closed here before {@link #closeTransport()}.
     */
    protected final void start(String name, ProxyHop hop) {
        this.hop = hop;
        sender = new CreditedSender(name, this::sendOne);
    }

    /**
     * Closes what a subclass constructor opened before it failed with {@code failure} (to which close
     * failures are added as suppressed): {@code hop} if it made one, its transport, the codec. The subclass
     * then rethrows {@code failure}; its {@link #closeTransport()} must take sockets not yet made (null).
     */
    protected final void closeAfterFailure(Throwable failure, ProxyHop hop) {
        if (this.hop == null) {
            this.hop = hop;
        }
        Closing.afterFailure(failure, this);
    }

    /** Sends {@code frame[0, length)}, blocking while the socket pushes back; runs on the sender thread. */
    protected abstract void sendFrame(byte[] frame, int length);

    /** Receives one frame, or null when the receive timeout expired; runs on the receiving thread. */
    protected abstract byte[] receiveFrame();

    /**
     * Receives one frame into {@code buffer} from index 0: its full length (more than the buffer means
     * it was cut), or -1 when the receive timeout expired; runs on the receiving thread.
     */
    protected abstract int receiveFrame(byte[] buffer);

    /** Closes sockets and context once the sender and the proxy, if any, have stopped. */
    protected abstract void closeTransport();

    /** Throws when the sender or the proxy has failed; called when a receive timed out. */
    private void checkHealthy() {
        sender.checkHealthy();
        if (hop != null) {
            hop.checkHealthy();
        }
    }

    private void sendOne(long sequence) {
        Stamp.write(message, sequence);
        if (reuse) {
            int length = codec.compressInto(message, frameBuffer);
            compressedBytes += length;
            sendFrame(frameBuffer, length);
        } else {
            byte[] frame = codec.compress(message);
            compressedBytes += frame.length;
            sendFrame(frame, frame.length);
        }
    }

    @Override
    public final void grant(int count) {
        sender.grant(count);
    }

    @Override
    public final void receive(int count) {
        for (int i = 0; i < count; i++) {
            if (reuse) {
                receiveOneReusing();
            } else {
                receiveOne();
            }
        }
    }

    /** One receive and its check, in a method of its own (compiled whole, as for every contestant). */
    private void receiveOne() {
        byte[] frame;
        while ((frame = receiveFrame()) == null) {
            checkHealthy();
        }
        byte[] decompressed = codec.decompress(frame);
        check.check(decompressed, decompressed.length, nextSequence++);
    }

    /** {@link #receiveOne()} the reusing way. */
    private void receiveOneReusing() {
        int length;
        while ((length = receiveFrame(receiveBuffer)) < 0) {
            checkHealthy();
        }
        if (length > receiveBuffer.length) {
            throw new IllegalStateException("frame longer than its compression bound: length=" + length
                    + ", bound=" + receiveBuffer.length);
        }
        int declared = ZstdJniCodec.contentSize(receiveBuffer, length);
        if (declared > output.length) {
            output = new byte[declared];
        }
        int decompressed = codec.decompressInto(receiveBuffer, length, output);
        check.check(output, decompressed, nextSequence++);
    }

    @Override
    public final void checkEveryByte(boolean on) {
        check.everyByte(on);
    }

    @Override
    public int senderThreadId() {
        return sender.nativeThreadId();
    }

    @Override
    public long compressedBytes() {
        return compressedBytes;
    }

    @Override
    public final void close() {
        try {
            if (sender != null) {
                sender.close();
            }
        } finally {
            ProxyHop.closeThen(hop, () -> {
                closeTransport();
                codec.close();
            });
        }
    }
}
