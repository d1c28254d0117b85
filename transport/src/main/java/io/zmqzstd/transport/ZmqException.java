package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;

/**
 * A libzmq call failed for a reason other than "would block" (which every non-blocking call
 * reports as a return value). Carries errno and libzmq's text for it.
 */
public class ZmqException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int errno;

    public ZmqException(String operation, int errno) {
        super(operation + " failed: errno=" + errno + ", error=" + LibZmq.strerror(errno)
                + (errno == LibZmq.ETERM ? " (the context was shut down or closed)" : ""));
        this.errno = errno;
    }

    /** The errno libzmq reported. */
    public int errno() {
        return errno;
    }

    /** True when the context was terminated or shut down (ETERM): the socket can only be closed. */
    public boolean isContextTerminated() {
        return errno == LibZmq.ETERM;
    }
}
