package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** Lowers this process's descriptor limit, for the tests that run out of descriptors in a child JVM. */
final class OpenFileLimits {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final FunctionDescriptor RLIMIT_CALL = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS);
    private static final MethodHandle GETRLIMIT = LINKER.downcallHandle(LINKER.defaultLookup().find("getrlimit").orElseThrow(), RLIMIT_CALL);
    private static final MethodHandle SETRLIMIT = LINKER.downcallHandle(LINKER.defaultLookup().find("setrlimit").orElseThrow(), RLIMIT_CALL);

    private OpenFileLimits() {
    }

    /**
     * Sets the soft {@code RLIMIT_NOFILE} to {@code soft}, the hard one as it is (read first:
     * setrlimit sets both), and checks that {@link LibC#openFileLimit()} reads it back.
     *
     * @throws IllegalStateException when getrlimit or setrlimit fails, or the limit reads back otherwise
     */
    static void lowerSoft(long soft) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment rlimit = a.allocate(16, 8); // struct rlimit { rlim_t rlim_cur, rlim_max; }
            if ((int) GETRLIMIT.invokeExact(LibC.RLIMIT_NOFILE, rlimit) != 0) {
                throw new IllegalStateException("getrlimit(RLIMIT_NOFILE) failed");
            }
            rlimit.set(ValueLayout.JAVA_LONG, 0, soft);
            if ((int) SETRLIMIT.invokeExact(LibC.RLIMIT_NOFILE, rlimit) != 0) {
                throw new IllegalStateException("setrlimit(RLIMIT_NOFILE, " + soft + ") failed");
            }
        }
        if (LibC.openFileLimit() != soft) {
            throw new IllegalStateException("RLIMIT_NOFILE reads " + LibC.openFileLimit() + " after setting " + soft);
        }
    }
}
