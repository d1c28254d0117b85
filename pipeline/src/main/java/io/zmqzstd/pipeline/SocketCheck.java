package io.zmqzstd.pipeline;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqSocket;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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

    /** {@link #USERS}' value for a socket an open {@link ParallelCompressingSender} holds. */
    private static final int PARALLEL = -1;

    /**
     * Who sends on a socket (by identity: a socket does not override equals): {@link #PARALLEL}
     * when an open {@link ParallelCompressingSender} holds it, else how many open
     * {@link CompressingSender}s use it (no entry for none). A parallel sender's workers send on
     * the socket from threads of their own at any moment, so any other sender's call overlaps
     * them sooner or later, and the transport refuses the second call inside the socket; when that
     * is a worker's, its sender fails and drops every message it holds. Until 2026-11-29 a second
     * sender was built on such a socket and so failed, or failed the first (a second parallel
     * sender's message dropped, "socket used by two threads at once", with the first one's worker
     * blocked at the high-water mark); and until later that day a parallel sender was still built
     * on a socket a {@code CompressingSender} built first used. Several {@code CompressingSender}s
     * on one socket are legal (each call is the owner's, one thread at a time): they are counted,
     * not refused. Touched only when a sender is built and closed (or collected): nothing on a
     * message's way.
     */
    private static final ConcurrentHashMap<ZmqSocket, Integer> USERS = new ConcurrentHashMap<>();

    private SocketCheck() {
    }

    /**
     * Refuses a closed socket, one that cannot send, or one an open {@link ParallelCompressingSender}
     * holds, for both senders' builders (the parallel sender's constructor also refuses one an open
     * {@link CompressingSender} uses, in {@link #hold}).
     */
    static void forSender(ZmqSocket socket) {
        require(socket, "a sender", "send", SocketType::sends, EnumSet.noneOf(SocketType.class));
        Integer users = USERS.get(socket);
        if (users != null && users == PARALLEL) {
            throw held(socket);
        }
    }

    /**
     * Takes {@code socket} for a {@link ParallelCompressingSender} being built, or refuses it when
     * another one holds it or an open {@link CompressingSender} uses it (atomically: of two builds
     * at once, one is refused). Given back by {@link #release}.
     */
    static void hold(ZmqSocket socket) {
        USERS.compute(socket, (s, users) -> {
            if (users == null) {
                return PARALLEL;
            }
            throw users == PARALLEL ? held(s) : used(s, users);
        });
    }

    /** Gives back a socket taken by {@link #hold}: the sender is closed, collected, or failed to build. */
    static void release(ZmqSocket socket) {
        USERS.remove(socket, PARALLEL);
    }

    /**
     * Counts one more {@link CompressingSender} on {@code socket}, or refuses it when an open
     * {@link ParallelCompressingSender} holds it (a build that raced the builder's check). Given
     * back by {@link #unuse}, once, when the sender's memory is freed: by its close(), or by the
     * cleaner once it is collected unclosed, so a sender dropped without close() holds the socket
     * only until then.
     */
    static void use(ZmqSocket socket) {
        USERS.compute(socket, (s, users) -> {
            if (users == null) {
                return 1;
            }
            if (users == PARALLEL) {
                throw held(s);
            }
            return users + 1;
        });
    }

    /** Gives back one {@link #use} of {@code socket}. */
    static void unuse(ZmqSocket socket) {
        USERS.computeIfPresent(socket, (s, users) -> users > 1 ? users - 1 : null);
    }

    private static IllegalStateException held(ZmqSocket socket) {
        return new IllegalStateException("socket is in use by an open ParallelCompressingSender: type=" + socket.type()
                + " (its workers send on it from their own threads, and a second sender's calls would overlap"
                + " theirs; close that sender first, or give each sender a socket of its own)");
    }

    private static IllegalStateException used(ZmqSocket socket, int senders) {
        return new IllegalStateException("socket is in use by an open CompressingSender: type=" + socket.type()
                + ", senders=" + senders + " (a ParallelCompressingSender's workers would send on it from their own"
                + " threads, overlapping that sender's calls; close it first, or give each sender a socket of its own;"
                + " a CompressingSender dropped without close() holds the socket until it is collected)");
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
