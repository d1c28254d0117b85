package io.zmqzstd.cli;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Notices that the reader of standard output went away while nothing is being written: recv waits
 * for the next message inside libzmq, and a write is the only other way to learn that
 * {@code recv | head -1} has ended, so on a quiet stream recv went on waiting (for ever, if no other
 * message came). A daemon thread waits in {@code poll(2)} on descriptor 1 for no event but the two
 * that poll always reports: {@code POLLERR}, which Linux gives the write end of a pipe once its last
 * reader has closed it, and {@code POLLHUP} (a socket whose peer has closed, a terminal hung up). As
 * GNU {@code tail -f} does. A regular file or {@code /dev/null} reports neither, so there the thread
 * only waits. {@link #close()} ends the watch with the run (recv in a test's JVM).
 */
final class OutputWatch implements AutoCloseable {

    /** {@code struct pollfd}: int fd; short events; short revents. */
    private static final long POLLFD_BYTES = 8;
    private static final long REVENTS_OFFSET = 6;
    private static final short POLLERR = 0x008;
    private static final short POLLHUP = 0x010;
    private static final short POLLNVAL = 0x020;
    private static final int STDOUT = 1;
    /** The same on Linux and macOS. */
    private static final int EINTR = 4;
    /** How often the thread looks whether the run has ended: it ends within this after {@link #close()}. */
    private static final int POLL_MS = 500;
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(PathElement.groupElement("errno"));

    private volatile boolean closed;

    private OutputWatch() {
    }

    /**
     * Starts watching standard output; {@code onClosed} runs once, on the watching thread, with the
     * reason ({@code Broken pipe}, {@code hung up}) when its reader is gone before {@link #close()}.
     * Watches nothing where {@code poll} cannot be called.
     */
    static OutputWatch start(Consumer<String> onClosed) {
        OutputWatch watch = new OutputWatch();
        pollHandle().ifPresent(poll -> Thread.ofPlatform().daemon().name("zmq-zstd-stdout-watch").start(() -> {
            String reason = watch.await(poll);
            if (reason != null && !watch.closed) {
                onClosed.accept(reason);
            }
        }));
        return watch;
    }

    /** A watch of nothing: for an output that is not the process's standard output. */
    static OutputWatch none() {
        return new OutputWatch();
    }

    /** Stops watching: the thread ends within {@link #POLL_MS} and calls {@code onClosed} no more. */
    @Override
    public void close() {
        closed = true;
    }

    private static Optional<MethodHandle> pollHandle() {
        try {
            Linker linker = Linker.nativeLinker();
            // int poll(struct pollfd *fds, nfds_t nfds, int timeout); nfds_t is an unsigned long
            return linker.defaultLookup().find("poll").map(address -> linker.downcallHandle(address,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT),
                    Linker.Option.captureCallState("errno")));
        } catch (RuntimeException | LinkageError e) {
            return Optional.empty(); // no poll on this platform, or native access refused: recv finds out at its next write
        }
    }

    /** Waits until standard output's reader is gone: its reason, or null when closed or there is nothing to watch. */
    private String await(MethodHandle poll) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollfd = arena.allocate(POLLFD_BYTES, 4);
            MemorySegment callState = arena.allocate(CALL_STATE);
            while (!closed) {
                pollfd.set(ValueLayout.JAVA_INT, 0, STDOUT);
                pollfd.set(ValueLayout.JAVA_SHORT, 4, (short) 0); // no events asked: only errors and hang-ups come back
                pollfd.set(ValueLayout.JAVA_SHORT, REVENTS_OFFSET, (short) 0);
                int ready = (int) poll.invokeExact(callState, pollfd, 1L, POLL_MS);
                if (ready < 0) {
                    if ((int) ERRNO.get(callState, 0L) == EINTR) {
                        continue;
                    }
                    return null;
                }
                short revents = pollfd.get(ValueLayout.JAVA_SHORT, REVENTS_OFFSET);
                if ((revents & POLLNVAL) != 0) {
                    return null; // descriptor 1 is not open: the first write says so
                }
                if ((revents & POLLERR) != 0) {
                    return "Broken pipe";
                }
                if ((revents & POLLHUP) != 0) {
                    return "hung up";
                }
            }
            return null;
        } catch (Throwable e) {
            return null; // the watch is a courtesy: without it the next write still finds the pipe gone
        }
    }
}
