package io.zmqzstd.transport.internal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The few C library calls the transport makes itself, to count the process's free file descriptors
 * before libzmq calls that abort the process when they find none ({@code Descriptors}). Not for
 * direct use. Errno is captured as in {@link LibZmq} ({@link LibZmq#CAPTURE_LAYOUT}).
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

    /**
     * {@code struct rlimit { rlim_t rlim_cur; rlim_t rlim_max; }}: two 64-bit counts on both
     * systems.
     * <pre>
     *  0          8          16
     *  | rlim_cur | rlim_max |
     * </pre>
     */
    public static final long RLIMIT_SIZE = 16;
    public static final long RLIMIT_CUR = 0;

    /** {@code int open(const char *path, int flags, ...)}: variadic, called with no mode. */
    public static final MethodHandle open = h("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT),
            ERRNO, Linker.Option.firstVariadicArg(2));

    /** {@code int close(int fd)}. */
    public static final MethodHandle close = h("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    /** {@code int getrlimit(int resource, struct rlimit *rlim)}. */
    public static final MethodHandle getrlimit = h("getrlimit", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

    private static MethodHandle h(String name, FunctionDescriptor fd, Linker.Option... options) {
        MemorySegment address = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("the C library has no " + name));
        return LINKER.downcallHandle(address, fd, options);
    }
}
