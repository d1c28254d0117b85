package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class AffinityTest {

    /** The CPUs a thread may run on, as the kernel reports them. */
    private static String allowedCpus(int tid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/task/" + tid + "/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring("Cpus_allowed_list:".length()).trim();
            }
        }
        throw new AssertionError("no Cpus_allowed_list for thread " + tid);
    }

    @Test
    void shouldPinTheSenderAloneAndEveryOtherThreadTogether() throws Exception {
        assumeTrue(Affinity.available(), "needs Linux and 2 CPUs");
        AtomicReference<Integer> tid = new AtomicReference<>();
        AtomicBoolean released = new AtomicBoolean();
        // Pinning changes every thread of this test JVM: undone in the finally block.
        Thread sender = Thread.ofPlatform().start(() -> {
            tid.set(Affinity.currentThreadId());
            // park may return for no reason: a sender that ended then had no thread id left to pin
            while (!released.get()) {
                LockSupport.park();
            }
        });
        while (tid.get() == null) {
            Thread.onSpinWait();
        }
        String before = allowedCpus(Affinity.currentThreadId());
        try {
            List<Integer> others = Affinity.split(tid.get());
            assertEquals("0", allowedCpus(tid.get()));
            assertTrue(others.contains(Affinity.currentThreadId()), others::toString);
            assertFalse(others.contains(tid.get()));
            assertEquals("1", allowedCpus(Affinity.currentThreadId()));
        } finally {
            // Undo for the rest of the test JVM: every thread back on every CPU it had.
            restore(before);
            released.set(true);
            LockSupport.unpark(sender);
            sender.join();
        }
        assertEquals(before, allowedCpus(Affinity.currentThreadId()));
        assertThrows(IllegalArgumentException.class, () -> Affinity.pin(Affinity.currentThreadId(), -1));
    }

    /** "0-1" or "0,2-3" into CPU numbers. */
    private static int[] parse(String list) {
        return java.util.Arrays.stream(list.split(",")).flatMapToInt(r -> {
            String[] ends = r.split("-");
            int from = Integer.parseInt(ends[0]);
            int to = Integer.parseInt(ends[ends.length - 1]);
            return java.util.stream.IntStream.rangeClosed(from, to);
        }).toArray();
    }

    private static void restore(String cpus) throws Exception {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                int tid = Integer.parseInt(task.getFileName().toString());
                try {
                    Affinity.pin(tid, parse(cpus));
                } catch (IllegalStateException gone) {
                    // ended meanwhile
                }
            }
        }
    }
}
