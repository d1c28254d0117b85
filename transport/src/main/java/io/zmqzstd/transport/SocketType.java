package io.zmqzstd.transport;

/** The standard ZeroMQ socket types; {@link #code()} is the value of the ZMQ_* constant. */
public enum SocketType {
    PAIR(0), PUB(1), SUB(2), REQ(3), REP(4), DEALER(5), ROUTER(6), PULL(7), PUSH(8), XPUB(9), XSUB(10), STREAM(11);

    private final int code;

    SocketType(int code) {
        this.code = code;
    }

    /** The libzmq constant (ZMQ_PAIR = 0 ... ZMQ_STREAM = 11). */
    public int code() {
        return code;
    }

    /** The type for a libzmq constant. */
    public static SocketType fromCode(int code) {
        for (SocketType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown socket type: code=" + code);
    }
}
