package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.testkit.ForkedJvm;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Error paths provoked thousands of times in a child JVM, which then holds no more than it held
 * before: what a failed build made is stopped or freed before the failure reaches the caller.
 */
class ErrorPathLeakTest {

    private static final int BUILDS = 20_000;
    private static final int WORKERS = 2;
    /** Live threads the child may gain over all the builds: JVM housekeeping, not one per build. */
    private static final int THREAD_MARGIN = 20;
    /** How every refusal begins: it names the thread the factory had started. */
    private static final String NAMED = "threadFactory returned a thread already started: thread=Thread[#";

    /**
     * A thread factory that starts the threads it makes ({@code Thread.ofPlatform()::start}, a
     * slip for {@code Thread.ofPlatform().factory()}): each build is refused with a message naming
     * the started thread, and the threads it started, which run their workers already, are
     * stopped. Before, {@code Thread.start} threw a bare {@link IllegalThreadStateException} and
     * threads stayed parked for good: 486 more live threads after 501 failed builds (the child
     * stops once it has gained more than 200).
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldStopTheThreadsAFactoryStartedItselfWhenTheBuildFails() throws Exception {
        String out = ForkedJvm.run(ErrorPathLeakTest.class, List.of("-Xmx128m"), "startedThreads");
        assertTrue(out.contains("message=threadFactory returned a thread already started: thread=Thread[#"), out);
        assertTrue(out.contains("(it must return unstarted threads, which the sender starts: Thread.ofPlatform().factory(),"
                + " not Thread.ofPlatform()::start)"), out);
        Matcher m = Pattern.compile("refused=(\\d+) named=(\\d+) threadsBefore=(\\d+) threadsAfter=(\\d+)").matcher(out);
        assertTrue(m.find(), out);
        long before = Long.parseLong(m.group(3));
        long after = Long.parseLong(m.group(4));
        assertTrue(after - before <= THREAD_MARGIN, "live threads grew by " + (after - before) + " over "
                + m.group(1) + " failed builds of " + WORKERS + " workers: " + out);
        assertEquals(BUILDS, Integer.parseInt(m.group(1)), out);
        // Each refusal names the started thread, not only the first one printed above.
        assertEquals(BUILDS, Integer.parseInt(m.group(2)), "refusals naming the started thread: " + out);
    }

    /** The child's side: {@code startedThreads}. */
    public static void main(String[] args) throws Exception {
        if (!args[0].equals("startedThreads")) {
            throw new IllegalArgumentException("unknown case: " + args[0]);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket push = ctx.socket(SocketType.PUSH)) {
            push.bind("inproc://error-path-leak");
            Thread.Builder starting = Thread.ofPlatform().daemon().name("factory-started-", 0);
            String message = null;
            int refused = 0;
            int named = 0;
            long before = -1;
            for (int i = -100; i < BUILDS; i++) {
                if (i == 0) {
                    before = threads.getThreadCount(); // after a warm-up: the cleaner and the like are running
                }
                try {
                    ParallelCompressingSender.builder(push).workers(WORKERS).threadFactory(starting::start).build().close();
                    throw new AssertionError("a factory's started threads were taken");
                } catch (RuntimeException e) {
                    if (message == null) {
                        message = String.valueOf(e.getMessage());
                    }
                    if (i >= 0 && String.valueOf(e.getMessage()).startsWith(NAMED)) {
                        named++;
                    }
                }
                if (i >= 0) {
                    refused++;
                    if (i % 500 == 0 && threads.getThreadCount() - before > 200) {
                        break; // leaking: enough to tell, without loading the machine with thousands more
                    }
                }
            }
            System.out.println("message=" + message);
            System.out.println("refused=" + refused + " named=" + named + " threadsBefore=" + before + " threadsAfter=" + threads.getThreadCount());
        }
    }
}
