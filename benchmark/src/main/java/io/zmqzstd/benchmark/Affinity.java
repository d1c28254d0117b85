package io.zmqzstd.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * CPU pinning for the benchmarks (Linux): puts the sender thread on one CPU and every other thread of the
 * JVM (receiver, libzmq's or JeroMQ's I/O thread, JIT, GC) on another, the same for every contestant, so
 * that a run measures the pipeline and not where the scheduler happened to put three busy threads on two
 * cores. Calls glibc's {@code gettid} and {@code sched_setaffinity} through FFM.
 */
public final class Affinity {

    /** {@code cpu_set_t}: 1024 bits. */
    private static final long CPU_SET_BYTES = 128;
    private static final MethodHandle GETTID;
    private static final MethodHandle SCHED_SETAFFINITY;
    /** CPUs this JVM may use, read before any pinning (afterwards the JVM reports the pinned set). */
    private static final int CPUS = Runtime.getRuntime().availableProcessors();

    static {
        Linker linker = Linker.nativeLinker();
        var libc = linker.defaultLookup();
        GETTID = libc.find("gettid")
                .map(a -> linker.downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_INT)))
                .orElse(null);
        SCHED_SETAFFINITY = libc.find("sched_setaffinity")
                .map(a -> linker.downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS)))
                .orElse(null);
    }

    private Affinity() {
    }

    /** Whether pinning works here: Linux with glibc's calls and at least 2 CPUs. */
    public static boolean available() {
        return GETTID != null && SCHED_SETAFFINITY != null && Files.isDirectory(Path.of("/proc/self/task"))
                && CPUS >= 2;
    }

    /** The kernel's id of the calling thread. */
    public static int currentThreadId() {
        requireAvailable();
        try {
            return (int) GETTID.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("gettid failed", t);
        }
    }

    /** Restricts thread {@code tid} to the given CPUs. */
    public static void pin(int tid, int... cpus) {
        requireAvailable();
        if (cpus.length == 0) {
            throw new IllegalArgumentException("no cpu given: tid=" + tid);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(CPU_SET_BYTES, 8);
            for (int cpu : cpus) {
                if (cpu < 0 || cpu >= CPU_SET_BYTES * 8) {
                    throw new IllegalArgumentException("cpu out of range: cpu=" + cpu);
                }
                long at = cpu / 8;
                mask.set(ValueLayout.JAVA_BYTE, at, (byte) (mask.get(ValueLayout.JAVA_BYTE, at) | (1 << (cpu % 8))));
            }
            int r = (int) SCHED_SETAFFINITY.invokeExact(tid, CPU_SET_BYTES, mask);
            if (r != 0) {
                throw new IllegalStateException("sched_setaffinity failed: tid=" + tid + ", cpus=" + Arrays.toString(cpus));
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_setaffinity failed: tid=" + tid, t);
        }
    }

    /**
     * The sender on CPU 0, every other thread of this process on CPU 1.
     *
     * @return the ids of the threads pinned to CPU 1
     */
    public static List<Integer> split(int senderTid) {
        pin(senderTid, 0);
        List<Integer> others = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                int tid = Integer.parseInt(task.getFileName().toString());
                if (tid != senderTid) {
                    try {
                        pin(tid, 1);
                        others.add(tid);
                    } catch (IllegalStateException gone) {
                        // a thread that ended after the listing; nothing to pin
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return others;
    }

    private static void requireAvailable() {
        if (!available()) {
            throw new IllegalStateException("CPU pinning needs Linux (glibc) and at least 2 CPUs: cpus="
                    + CPUS);
        }
    }
}
