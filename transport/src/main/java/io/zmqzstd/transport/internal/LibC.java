package io.zmqzstd.transport.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The few C library calls the transport makes itself, to count the process's free file descriptors
 * before libzmq calls that abort the process when they find none ({@code Descriptors}), and to read
 * the descriptor limit, beyond which libzmq's {@code zmq_poll} aborts too ({@code ZmqPoller}), and
 * to allocate and free the memory of unpooled buffers ({@code NativeBufferPool}). Not for direct use. Errno is captured as in {@link LibZmq} ({@link LibZmq#CAPTURE_LAYOUT}).
 */
public final class LibC {

    private LibC() {
    }

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");

    /** {@code ENFILE}, the system's table of open files full: 23 on Linux and macOS alike. */
    public static final int ENFILE = 23;

    /** {@code O_RDONLY}: 0 on Linux and macOS. */
    public static final int O_RDONLY = 0;

    /**
     * {@code RLIMIT_NOFILE}, the resource number of the descriptor limit ({@code ulimit -n}): 7 on
     * Linux, 8 on macOS, picked as {@link LibZmq.Errno} picks its values.
     */
    public static final int RLIMIT_NOFILE =
            System.getProperty("os.name", "").toLowerCase(Locale.ROOT).matches(".*(mac|darwin).*") ? 8 : 7;

    /** {@code int open(const char *path, int flags, ...)}: variadic, called with no mode. */
    public static final MethodHandle open = h("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT),
            ERRNO, Linker.Option.firstVariadicArg(2));

    /** {@code int close(int fd)}. */
    public static final MethodHandle close = h("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    /**
     * {@code void *calloc(size_t nmemb, size_t size)}, pointers as {@code long}: zeroed memory, which
     * for a large block glibc maps fresh from the kernel (zero pages, resident only once written)
     * instead of zeroing it, where the JDK's {@code Arena.allocate} writes every byte.
     */
    public static final MethodHandle calloc = h("calloc", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));

    /** {@code void free(void *ptr)}, the pointer as {@code long}. */
    public static final MethodHandle free = h("free", FunctionDescriptor.ofVoid(JAVA_LONG));

    /** {@code int getrlimit(int resource, struct rlimit *rlim)}. */
    private static final MethodHandle getrlimit = h("getrlimit", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

    /**
     * The process's soft limit on open file descriptors ({@code RLIMIT_NOFILE}, {@code ulimit -n}),
     * read anew on each call (setrlimit may change it at any time; the JVM raises it to the hard
     * limit at start-up). {@code struct rlimit} is two 64-bit counts, soft first, on Linux and macOS.
     *
     * @return how many descriptors the process may have open; {@link Long#MAX_VALUE} when there is
     *     no limit ({@code RLIM_INFINITY}, all ones) or it cannot be read
     */
    public static long openFileLimit() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment rlimit = a.allocate(16, 8);
            int rc = (int) getrlimit.invokeExact(RLIMIT_NOFILE, rlimit);
            long soft = rlimit.get(JAVA_LONG, 0);
            return rc != 0 || soft < 0 ? Long.MAX_VALUE : soft; // RLIM_INFINITY is negative as a Java long
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    private static MethodHandle h(String name, FunctionDescriptor fd, Linker.Option... options) {
        MemorySegment address = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("the C library has no " + name));
        return LINKER.downcallHandle(address, fd, options);
    }
}
