package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;

/**
 * A libzmq call failed for a reason other than "would block" (which every non-blocking call
 * reports as a return value). Carries errno and libzmq's text for it.
 */
public class ZmqException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The errno the failed call reported. */
    private final int errno;

    /**
     * A failure of a libzmq call. The message names the call and adds errno (with its name when it
     * is one of libzmq's own codes, whose numbers say nothing) and libzmq's text for it
     * ({@code zmq_strerror}), plus a hint for ETERM and EFSM.
     *
     * @param operation the call that failed, as it should appear in the message (e.g.
     *     {@code "zmq_msg_send"})
     * @param errno the errno the call reported: a system value, or one of libzmq's own (ETERM,
     *     EFSM)
     */
    public ZmqException(String operation, int errno) {
        this(operation, errno, null);
    }

    /**
     * A failure of a libzmq call, with what libzmq's text leaves out.
     *
     * @param why appended in brackets, or null for nothing but the hint for ETERM and EFSM
     */
    ZmqException(String operation, int errno, String why) {
        super(operation + " failed: errno=" + errno + ownName(errno) + ", error=" + LibZmq.strerror(errno)
                + note(errno, why));
        this.errno = errno;
    }

    /** " (EFSM)" for libzmq's own codes (ZMQ_HAUSNUMERO + n), "" for a system errno, named by its text. */
    private static String ownName(int errno) {
        return switch (errno) {
            case LibZmq.EFSM -> " (EFSM)";
            case LibZmq.ENOCOMPATPROTO -> " (ENOCOMPATPROTO)";
            case LibZmq.ETERM -> " (ETERM)";
            case LibZmq.EMTHREAD -> " (EMTHREAD)";
            default -> "";
        };
    }

    /** {@code why}, or else the hint for ETERM and EFSM, in brackets; "" for neither. */
    private static String note(int errno, String why) {
        String note = why != null ? why : switch (errno) {
            case LibZmq.ETERM -> "the context was shut down or closed";
            case LibZmq.EFSM -> "out of the socket's turn: a REQ sends a request, then receives its reply, a REP the"
                    + " other way round, each message whole";
            default -> null;
        };
        return note != null ? " (" + note + ")" : "";
    }

    /**
     * The errno libzmq reported.
     *
     * @return a system errno value, which differs by OS (EHOSTUNREACH is 113 on Linux, 65 on
     *     macOS), or one of libzmq's own codes (ETERM, EFSM)
     */
    public int errno() {
        return errno;
    }

    /**
     * True when the context was terminated or shut down (ETERM): the socket can only be closed.
     *
     * @return whether {@link #errno()} is ETERM
     */
    public boolean isContextTerminated() {
        return errno == LibZmq.ETERM;
    }
}
