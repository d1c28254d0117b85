package io.zmqzstd.pipeline;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqSocket;

import java.util.EnumSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What every {@code build()} requires of the socket it is given: open, of a type that can do the
 * owner's half of the job, and for a receiver one that carries messages. Checked at build time
 * rather than at the first call, where a {@link ParallelCompressingSender} would have started its
 * workers for nothing and failed on one of them, dropping what it had taken.
 */
final class SocketCheck {

    /**
     * Types that carry a byte stream, not messages, for a receiver: a STREAM socket hands over TCP
     * bytes as they come, cut and joined anywhere, behind a routing id, so the wire format's one
     * zstd frame per part cannot hold. Before 2026-11-27 a receiver was built on one and refused
     * every message as {@code NOT_ZSTD} (the routing id in front, and a frame's bytes are not a
     * part of their own). A sender is built on one: {@code publish(routingId, payload)} writes the
     * frame to that TCP peer, whole (a single-part send is a routing id to libzmq, dropped, as on a
     * ROUTER).
     */
    private static final Set<SocketType> NO_MESSAGES = EnumSet.of(SocketType.STREAM);

    private SocketCheck() {
    }

    /** Refuses a closed socket or one that cannot send, for both senders' builders. */
    static void forSender(ZmqSocket socket) {
        require(socket, "a sender", "send", SocketType::sends, EnumSet.noneOf(SocketType.class));
    }

    /** Refuses a closed socket, one that cannot receive or one that carries no messages, for the receiver's builder. */
    static void forReceiver(ZmqSocket socket) {
        require(socket, "a receiver", "receive", SocketType::receives, NO_MESSAGES);
    }

    /**
     * @param can whether a type can do the owner's half at all ({@link SocketType#sends()} or
     *     {@link SocketType#receives()}: libzmq refuses every call of the others with ENOTSUP)
     */
    private static void require(ZmqSocket socket, String owner, String verb, Predicate<SocketType> can, Set<SocketType> noMessages) {
        if (socket.isClosed()) {
            throw new IllegalStateException("socket is closed: type=" + socket.type()
                    + " (build senders and receivers on an open socket)");
        }
        Set<SocketType> takes = EnumSet.noneOf(SocketType.class);
        for (SocketType type : SocketType.values()) {
            if (can.test(type) && !noMessages.contains(type)) {
                takes.add(type);
            }
        }
        if (!can.test(socket.type())) {
            throw new IllegalArgumentException("socket type cannot " + verb + ": type=" + socket.type()
                    + " (libzmq refuses it with ENOTSUP); " + owner + " takes " + takes);
        }
        if (noMessages.contains(socket.type())) {
            throw new IllegalArgumentException("socket type carries no messages: type=" + socket.type()
                    + " (TCP bytes cut and joined anywhere, so a part is not one zstd frame); " + owner + " takes " + takes);
        }
    }
}
