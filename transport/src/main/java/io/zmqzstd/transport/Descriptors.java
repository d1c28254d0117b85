package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibC;
import io.zmqzstd.transport.internal.LibZmq;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * Free file descriptors, counted before the libzmq 4.3.4 calls that abort the process, rather than
 * fail, when they find none: the first socket of a context, which starts the context's reaper and
 * I/O threads (each opens a mailbox and then an epoll descriptor, and an epoll_create that fails
 * is an assertion: "Too many open files (src/epoll.cpp:65)"), and a tcp bind to a host other than
 * {@code *} (libzmq lists the network interfaces first, and a getifaddrs that fails is an
 * assertion: "Too many open files (src/ip_resolver.cpp:542)"). Counted by opening that many
 * descriptors on {@code /dev/null} and closing them again; another thread of the process may take
 * descriptors between the count and libzmq's call, so this narrows the abort to that race, it
 * cannot rule it out. Not on any per-message path.
 */
final class Descriptors {

    private static final String DEV_NULL = "/dev/null";

    private Descriptors() {
    }

    /**
     * Throws unless {@code count} more descriptors can be opened now.
     *
     * @param operation the libzmq call about to be made, as {@link ZmqException} names it
     * @param needs what the descriptors are for and why they are counted first, as the message
     *     says it ("a context's first socket needs 5 (...), and libzmq aborts ...")
     * @throws ZmqException EMFILE (or ENFILE, the system's table full) naming {@code needs}, how
     *     many could be opened and the process's limit
     */
    static void require(String operation, int count, String needs) {
        Opened o = open(count);
        if (o.outOfDescriptors()) {
            throw new ZmqException(operation, o.errno(), "the " + (o.errno() == LibC.ENFILE ? "system" : "process")
                    + " is out of file descriptors: " + needs + ", " + o.count() + " could be opened; " + limit()
                    + "; close descriptors or raise the limit");
        }
    }

    /**
     * Whether {@code count} more descriptors can be opened now: false only when one of them could
     * not for want of descriptors (EMFILE, or ENFILE).
     */
    static boolean available(int count) {
        return !open(count).outOfDescriptors();
    }

    /**
     * How many of {@code count} descriptors could be opened (all closed again before this returns),
     * and the errno of the open that failed (0 when none did).
     */
    private record Opened(int count, int errno) {
        /** An open failed for want of descriptors; any other failure (no /dev/null in a bare container) tells nothing. */
        boolean outOfDescriptors() {
            return errno == LibZmq.EMFILE || errno == LibC.ENFILE;
        }
    }

    private static Opened open(int count) {
        int[] fds = new int[count];
        int opened = 0;
        int errno = 0;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(LibZmq.CAPTURE_LAYOUT);
            MemorySegment path = a.allocateFrom(DEV_NULL, StandardCharsets.US_ASCII);
            try {
                while (opened < count) {
                    int fd = (int) LibC.open.invokeExact(capture, path, LibC.O_RDONLY);
                    if (fd < 0) {
                        errno = LibZmq.errno(capture);
                        break;
                    }
                    fds[opened++] = fd;
                }
            } finally {
                for (int i = 0; i < opened; i++) {
                    int ignored = (int) LibC.close.invokeExact(fds[i]);
                }
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
        return new Opened(opened, errno);
    }

    /**
     * What an EMFILE of libzmq's adds to its text, "Too many open files": "the process is out of
     * file descriptors, {@code taking}; its limit RLIMIT_NOFILE=1024 (ulimit -n); close descriptors
     * or raise the limit".
     *
     * @param taking what took the descriptor that was missing, e.g. "each socket taking one"
     */
    static String outOf(String taking) {
        return "the process is out of file descriptors, " + taking + "; " + limit() + "; close descriptors or raise the limit";
    }

    /** The process's descriptor limit as a message names it: "its limit RLIMIT_NOFILE=1024 (ulimit -n)". */
    static String limit() {
        long soft = LibC.openFileLimit();
        return "its limit RLIMIT_NOFILE=" + (soft == Long.MAX_VALUE ? "unlimited" : Long.toString(soft)) + " (ulimit -n)";
    }
}
