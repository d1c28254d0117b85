package io.zmqzstd.transport.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The process's limit on open file descriptors, {@code RLIMIT_NOFILE}'s soft value, read from the C
 * library's {@code getrlimit}. Not API.
 *
 * <p>Why: {@code poll(2)} refuses more descriptors than that limit with EINVAL, and libzmq's
 * {@code zmq_poll} asserts that its {@code poll} did not fail ({@code errno_assert}, src/zmq.cpp),
 * so a poll over more items than the limit aborts the process ("Invalid argument
 * (src/zmq.cpp:988)"). Each socket holds a descriptor, so only a socket registered many times in
 * one poller gets there; the poller keeps its registrations within this limit.
 */
public final class OpenFileLimit {

    /** RLIMIT_NOFILE in sys/resource.h: 7 on Linux, 8 on macOS and the BSDs. */
    public static final int RLIMIT_NOFILE = LibZmq.ERRNO_VALUES == LibZmq.Errno.MACOS ? 8 : 7;
    /** struct rlimit { rlim_t rlim_cur; rlim_t rlim_max; }, rlim_t a 64-bit unsigned on both systems. */
    private static final long RLIMIT_BYTES = 16;

    /** int getrlimit(int resource, struct rlimit *rlim); null when the C library has none. */
    private static final MethodHandle GETRLIMIT;

    static {
        Linker linker = Linker.nativeLinker();
        GETRLIMIT = linker.defaultLookup().find("getrlimit")
                .map(address -> linker.downcallHandle(address,
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS)))
                .orElse(null);
    }

    private OpenFileLimit() {
    }

    /**
     * The current soft limit, read anew on each call (setrlimit can change it at any time; the JVM
     * raises it to the hard limit at start-up).
     *
     * @return how many descriptors the process may have open, {@link Long#MAX_VALUE} when there is
     *     no limit ({@code RLIM_INFINITY}) or it cannot be read
     */
    public static long current() {
        if (GETRLIMIT == null) {
            return Long.MAX_VALUE;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment rlimit = a.allocate(RLIMIT_BYTES, 8);
            int rc = (int) GETRLIMIT.invokeExact(RLIMIT_NOFILE, rlimit);
            long soft = rlimit.get(ValueLayout.JAVA_LONG, 0);
            // RLIM_INFINITY is all ones: negative as a Java long, as is any value above it
            return rc != 0 || soft < 0 ? Long.MAX_VALUE : soft;
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }
}
