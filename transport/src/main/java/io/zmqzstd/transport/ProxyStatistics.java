package io.zmqzstd.transport;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A {@link ZmqProxy}'s counters, as its run answers the {@code STATISTICS} command: what went in
 * and out of each of its two sockets since the run began. They are counted as libzmq 4.3.4's
 * {@code zmq_proxy_steerable} counts them, in the same reply layout: a multipart message counts as
 * one message, once its last frame is forwarded, its bytes as the sum of its frames' sizes.
 * Commands, and the copies sent to a capture socket, are not counted.
 *
 * <p>What the frontend receives the backend sends, and the other way round, so
 * {@code frontendMessagesReceived == backendMessagesSent} and
 * {@code backendMessagesReceived == frontendMessagesSent} (bytes likewise) in every answer, but for
 * the messages a side could not route (a ROUTER with {@code ZMQ_ROUTER_MANDATORY} or a STREAM whose
 * addressed peer has gone): the proxy drops those, and counts them as received, not as sent.
 * The reply's counters are unsigned 64-bit; at any rate a proxy reaches they stay below
 * {@link Long#MAX_VALUE}.
 *
 * @param frontendMessagesReceived messages received on the frontend (forwarded to the backend)
 * @param frontendBytesReceived bytes of those messages, all frames added up
 * @param frontendMessagesSent messages sent on the frontend (those received on the backend)
 * @param frontendBytesSent bytes of those messages, all frames added up
 * @param backendMessagesReceived messages received on the backend (forwarded to the frontend)
 * @param backendBytesReceived bytes of those messages, all frames added up
 * @param backendMessagesSent messages sent on the backend (those received on the frontend)
 * @param backendBytesSent bytes of those messages, all frames added up
 */
public record ProxyStatistics(long frontendMessagesReceived, long frontendBytesReceived, long frontendMessagesSent,
        long frontendBytesSent, long backendMessagesReceived, long backendBytesReceived, long backendMessagesSent,
        long backendBytesSent) {

    /**
     * libzmq's reply layout: {@value} frames, each one {@code uint64_t} in the proxy's native byte
     * order, in the order of this record's components.
     */
    static final int FRAMES = 8;
    /** Size of each frame of the reply: one {@code uint64_t}. */
    static final int FRAME_BYTES = Long.BYTES;

    /**
     * The counters of one reply.
     *
     * @param frames the reply's {@value #FRAMES} frames, each {@value #FRAME_BYTES} bytes in native order
     * @throws IllegalArgumentException when the reply does not have that shape
     */
    static ProxyStatistics fromReply(byte[][] frames) {
        if (frames.length != FRAMES) {
            throw new IllegalArgumentException("malformed STATISTICS reply: frames=" + frames.length + ", expected=" + FRAMES);
        }
        long[] v = new long[FRAMES];
        for (int i = 0; i < FRAMES; i++) {
            if (frames[i].length != FRAME_BYTES) {
                throw new IllegalArgumentException("malformed STATISTICS reply: frame " + i + " has bytes=" + frames[i].length
                        + ", expected=" + FRAME_BYTES);
            }
            v[i] = ByteBuffer.wrap(frames[i]).order(ByteOrder.nativeOrder()).getLong();
        }
        return new ProxyStatistics(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    }
}
