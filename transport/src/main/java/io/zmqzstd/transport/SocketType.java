package io.zmqzstd.transport;

/** The standard ZeroMQ socket types; {@link #code()} is the value of the ZMQ_* constant. */
public enum SocketType {
    /**
     * ZMQ_PAIR: an exclusive pair, connected to one other PAIR socket (e.g. across threads). When
     * the peer of a bound PAIR goes away, libzmq takes a new peer only after the socket has looked
     * for input (a receive, {@link ZmqSocket#events()}, a poll for POLLIN): until then sends are
     * refused and a peer connecting meanwhile is turned away for as long as that connection lasts
     * (transport README, the paragraph "PAIR has no load balancer").
     */
    PAIR(0),
    /** ZMQ_PUB: sends each message to every subscriber with a matching prefix; cannot receive. */
    PUB(1),
    /** ZMQ_SUB: receives what publishers send under its {@link ZmqSocket#subscribe} prefixes. */
    SUB(2),
    /** ZMQ_REQ: request-reply client; sends a request, then must receive its reply. */
    REQ(3),
    /** ZMQ_REP: request-reply service; receives a request, then must send its reply. */
    REP(4),
    /** ZMQ_DEALER: asynchronous request-reply; sends round-robin, receives fair-queued. */
    DEALER(5),
    /** ZMQ_ROUTER: addresses peers by routing id, the first frame of each message in and out. */
    ROUTER(6),
    /** ZMQ_PULL: pipeline sink; receives fair-queued from PUSH peers, cannot send. */
    PULL(7),
    /** ZMQ_PUSH: pipeline source; sends round-robin to PULL peers, cannot receive. */
    PUSH(8),
    /** ZMQ_XPUB: a PUB that also receives its subscribers' (un)subscriptions as messages. */
    XPUB(9),
    /** ZMQ_XSUB: a SUB that subscribes by sending a message, byte 1 + prefix (0: unsubscribe). */
    XSUB(10),
    /** ZMQ_STREAM: raw TCP to non-ZeroMQ peers; frames go in [routing id, bytes] pairs. */
    STREAM(11);

    private final int code;

    SocketType(int code) {
        this.code = code;
    }

    /**
     * The libzmq constant (ZMQ_PAIR = 0 ... ZMQ_STREAM = 11).
     *
     * @return the value passed to {@code zmq_socket}
     */
    public int code() {
        return code;
    }

    /**
     * Whether a socket of this type can send at all.
     *
     * @return false for SUB and PULL, whose every send libzmq refuses with ENOTSUP
     */
    public boolean sends() {
        return this != SUB && this != PULL;
    }

    /**
     * Whether a socket of this type can receive at all.
     *
     * @return false for PUB and PUSH, whose every receive libzmq refuses with ENOTSUP
     */
    public boolean receives() {
        return this != PUB && this != PUSH;
    }

    /**
     * The type for a libzmq constant.
     *
     * @param code a ZMQ_* socket type value, 0 to 11
     * @return the type whose {@link #code()} it is
     * @throws IllegalArgumentException for any other value
     */
    public static SocketType fromCode(int code) {
        for (SocketType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown socket type: code=" + code);
    }
}
