package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The I/O threads' scheduling policy, read back from the kernel (/proc/self/task/TID/stat, field 41). */
class IoThreadSchedulingTest {

    private static final int SCHED_OTHER = 0;
    private static final int SCHED_BATCH = 3;

    @Test
    void shouldRunTheIoThreadsUnderTheChosenPolicy() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux /proc");
        Set<Integer> before = ioThreads().keySet();
        try (ZmqContext ctx = ZmqContext.builder().ioThreads(2)
                .ioThreadScheduling(ZmqContext.ThreadScheduling.BATCH).build()) {
            ctx.socket(SocketType.PULL); // the first socket starts the I/O threads
            Map<Integer, Integer> started = newIoThreads(before, 2);
            // Each thread applies the policy as it starts: wait for it, bounded.
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!started.values().stream().allMatch(p -> p == SCHED_BATCH) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                started = policiesOf(started.keySet());
            }
            assertEquals(Map.of(), filterNot(started, SCHED_BATCH), "I/O threads not under SCHED_BATCH: " + started);
        }
    }

    @Test
    void shouldLeaveTheInheritedPolicyByDefault() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux /proc");
        assumeTrue(policyOf(Integer.parseInt(Path.of("/proc/thread-self").toRealPath().getFileName().toString()))
                == SCHED_OTHER, "the test thread runs under SCHED_OTHER");
        Set<Integer> before = ioThreads().keySet();
        try (ZmqContext ctx = new ZmqContext()) {
            ctx.socket(SocketType.PULL);
            Map<Integer, Integer> started = newIoThreads(before, 1);
            assertEquals(Map.of(), filterNot(started, SCHED_OTHER), "policy changed without being asked: " + started);
        }
    }

    @Test
    void shouldRefuseANullPolicy() {
        assertThrows(NullPointerException.class, () -> ZmqContext.builder().ioThreadScheduling(null));
    }

    /**
     * The I/O threads that appeared since {@code before}; exactly {@code expected} of them. Each
     * names itself as it starts, so the names appear a moment after the socket call: awaited, bounded.
     */
    private static Map<Integer, Integer> newIoThreads(Set<Integer> before, int expected) throws IOException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        Map<Integer, Integer> now;
        do {
            Thread.onSpinWait();
            now = ioThreads();
            now.keySet().removeAll(before);
        } while (now.size() < expected && System.nanoTime() < deadline);
        assumeTrue(!now.isEmpty() || namesItsThreads(), "libzmq " + ZmqContext.version() + " names none of its threads"
                + " (a build without pthread_setname_np, such as pyzmq's manylinux1 wheels): its I/O threads cannot be found");
        assertEquals(expected, now.size(), "new libzmq I/O threads: " + now);
        return now;
    }

    private static Map<Integer, Integer> filterNot(Map<Integer, Integer> policies, int wanted) {
        Map<Integer, Integer> out = new HashMap<>(policies);
        out.values().removeIf(p -> p == wanted);
        return out;
    }

    /** Whether any thread of this process has a libzmq name (ZMQbg/...: the reaper, I/O threads). */
    private static boolean namesItsThreads() throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    if (Files.readString(task.resolve("comm")).startsWith("ZMQbg/")) {
                        return true;
                    }
                } catch (IOException ended) {
                    // a thread that ended after the listing
                }
            }
        }
        return false;
    }

    /** tid -> policy of every thread of this process named ZMQbg/IO/n. */
    private static Map<Integer, Integer> ioThreads() throws IOException {
        Map<Integer, Integer> out = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    if (Files.readString(task.resolve("comm")).strip().startsWith("ZMQbg/IO/")) {
                        int tid = Integer.parseInt(task.getFileName().toString());
                        out.put(tid, policyOf(tid));
                    }
                } catch (IOException ended) {
                    // a thread that ended after the listing
                }
            }
        }
        assertFalse(out.containsValue(-1));
        return out;
    }

    private static Map<Integer, Integer> policiesOf(Set<Integer> tids) throws IOException {
        Map<Integer, Integer> out = new HashMap<>();
        for (int tid : tids) {
            out.put(tid, policyOf(tid));
        }
        return out;
    }

    /** Field 41 of stat(5), counted after the parenthesised name (which may hold spaces). */
    private static int policyOf(int tid) throws IOException {
        String stat = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"));
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        assertTrue(after.length > 38, stat);
        return Integer.parseInt(after[41 - 3]);
    }
}
