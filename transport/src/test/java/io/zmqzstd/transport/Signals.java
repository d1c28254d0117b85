package io.zmqzstd.transport;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Real signals for the tests of calls that libzmq's waits give up with EINTR: SIGPIPE, which the
 * JVM's own handler ignores and which, like any signal with a handler, interrupts a poll().
 */
final class Signals {

    static final int SIGPIPE = 13;

    private static final MethodHandle PTHREAD_SELF;
    private static final MethodHandle PTHREAD_KILL;

    static {
        Linker linker = Linker.nativeLinker();
        PTHREAD_SELF = linker.downcallHandle(linker.defaultLookup().find("pthread_self").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG));
        PTHREAD_KILL = linker.downcallHandle(linker.defaultLookup().find("pthread_kill").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    }

    private Signals() {
    }

    /** The calling thread's pthread_t, for {@link #sigpipe}. */
    static long self() throws Throwable {
        return (long) PTHREAD_SELF.invokeExact();
    }

    /** pthread_kill(thread, SIGPIPE); true when it was sent. */
    static boolean sigpipe(long thread) throws Throwable {
        return (int) PTHREAD_KILL.invokeExact(thread, SIGPIPE) == 0;
    }
}
