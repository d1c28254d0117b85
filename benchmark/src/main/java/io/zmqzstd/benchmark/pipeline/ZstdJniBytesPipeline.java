package io.zmqzstd.benchmark.pipeline;

import io.zmqzstd.benchmark.CreditedSender;
import io.zmqzstd.benchmark.Stamp;
import io.zmqzstd.benchmark.ZstdJniCodec;

/**
 * What users run today: zstd-jni with {@code byte[]} in and {@code byte[]} out over a socket API that
 * sends and receives {@code byte[]}. A careful user keeps one compression and one decompression context
 * (and the dictionary loaded into them); the frames and decompressed arrays are new per message, because
 * that is what these APIs return. Subclasses supply the socket.
 */
abstract class ZstdJniBytesPipeline implements PipelineContestant {

    private final int size;
    private final byte[] message;
    private final ZstdJniCodec codec;
    private CreditedSender sender;
    private long nextSequence;
    private volatile long compressedBytes;

    /** {@code dictionary} is raw zstd dictionary bytes, or null for none. */
    ZstdJniBytesPipeline(byte[] payload, int level, byte[] dictionary) {
        this.size = payload.length;
        this.message = payload.clone();
        this.codec = new ZstdJniCodec(level, dictionary);
    }

    /** Starts the sender thread; call at the end of the subclass constructor, once sockets are connected. */
    protected final void start(String name) {
        sender = new CreditedSender(name, this::sendOne);
    }

    /** Sends one frame, blocking while the socket pushes back; runs on the sender thread. */
    protected abstract void sendFrame(byte[] frame);

    /** Receives one frame, or null when the receive timeout expired; runs on the receiving thread. */
    protected abstract byte[] receiveFrame();

    /** Closes sockets and context once the sender has stopped. */
    protected abstract void closeTransport();

    private void sendOne(long sequence) {
        Stamp.write(message, sequence);
        byte[] frame = codec.compress(message);
        compressedBytes += frame.length;
        sendFrame(frame);
    }

    @Override
    public final void grant(int count) {
        sender.grant(count);
    }

    @Override
    public final void receive(int count) {
        for (int i = 0; i < count; i++) {
            receiveOne();
        }
    }

    /** One receive and its check, in a method of its own (compiled whole, as for every contestant). */
    private void receiveOne() {
        byte[] frame;
        while ((frame = receiveFrame()) == null) {
            sender.checkHealthy();
        }
        byte[] decompressed = codec.decompress(frame);
        Stamp.check(decompressed, decompressed.length, nextSequence++, size);
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
            closeTransport();
            codec.close();
        }
    }
}
