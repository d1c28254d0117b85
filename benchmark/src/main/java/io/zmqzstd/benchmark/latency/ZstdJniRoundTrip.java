package io.zmqzstd.benchmark.latency;

import io.zmqzstd.benchmark.Closing;
import io.zmqzstd.benchmark.LoopThread;
import io.zmqzstd.benchmark.Stamp;
import io.zmqzstd.benchmark.ZstdJniCodec;

/**
 * The {@code byte[]} way: zstd-jni compresses the request into a new array, the socket API sends it and
 * returns each received frame as a new array, zstd-jni decompresses into a new array sized from the
 * frame header. Contexts are kept and reused, as a careful user does; the server's acknowledgement array
 * is reused too. Subclasses supply the sockets.
 */
abstract class ZstdJniRoundTrip implements RoundTripContestant {

    private final int size;
    private final byte[] request;
    private final byte[] serverAck = new byte[Stamp.BYTES];
    private final ZstdJniCodec codec;
    private LoopThread loop;
    /** The next sequence number the server expects; server thread only. */
    private long expected;

    ZstdJniRoundTrip(byte[] payload, int level) {
        this.size = payload.length;
        this.request = payload.clone();
        this.codec = new ZstdJniCodec(level, null);
    }

    /** Starts the server thread; call at the end of the subclass constructor, once the sockets are connected. */
    protected final void start(String name) {
        loop = new LoopThread("server", name, this::serveOne);
    }

    /**
     * Closes what a subclass constructor opened before it failed with {@code failure} (close failures added
     * as suppressed); the subclass then rethrows it. Its {@link #closeTransport()} must take sockets not yet
     * made (null).
     */
    protected final void closeAfterFailure(Throwable failure) {
        Closing.afterFailure(failure, this);
    }

    /** Sends a request frame from the measuring thread, blocking while the socket pushes back. */
    protected abstract void clientSend(byte[] frame);

    /** The next acknowledgement on the measuring thread, or null when the receive timed out. */
    protected abstract byte[] clientReceive();

    /** The next request on the server thread, or null when the receive timed out. */
    protected abstract byte[] serverReceive();

    /** Sends an acknowledgement from the server thread. */
    protected abstract void serverSend(byte[] ack);

    /** Closes sockets and context once the server has stopped. */
    protected abstract void closeTransport();

    @Override
    public final void roundTrip(long sequence) {
        Stamp.write(request, sequence);
        clientSend(codec.compress(request));
        byte[] ack;
        while ((ack = clientReceive()) == null) {
            loop.checkHealthy();
        }
        Stamp.check(ack, ack.length, sequence, Stamp.BYTES);
    }

    /** Serves one request, or returns when the receive timed out (so the loop can notice close). */
    private void serveOne() {
        byte[] frame = serverReceive();
        if (frame == null) {
            return;
        }
        byte[] decompressed = codec.decompress(frame);
        Stamp.check(decompressed, decompressed.length, expected, size);
        Stamp.write(serverAck, expected++);
        serverSend(serverAck);
    }

    @Override
    public final void close() {
        try {
            if (loop != null) {
                loop.close();
            }
        } finally {
            closeTransport();
            codec.close();
        }
    }
}
