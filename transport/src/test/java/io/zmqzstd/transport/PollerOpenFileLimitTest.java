package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A poller holds no more registrations than the process may open files. poll(2) refuses more
 * descriptors than RLIMIT_NOFILE with EINVAL, and libzmq's zmq_poll asserts on it: until
 * 2026-11-27 a socket registered more times than that (20,001 with {@code ulimit -n} 20000) made
 * the next poll abort the JVM with "Invalid argument (src/zmq.cpp:988)". The check runs in a child
 * JVM, the {@link #main} below, which lowers its own limit so that the case stays small.
 */
class PollerOpenFileLimitTest {

    private static final Pattern RESULT = Pattern.compile("limit=(\\d+) size=(\\d+) ready=(\\d+) refused=(.*)");

    @Test
    void shouldRefuseARegistrationBeyondTheOpenFileLimitAndPollTheOthers() throws Exception {
        String out = ForkedJvm.run(PollerOpenFileLimitTest.class, List.of());
        Matcher m = RESULT.matcher(out);
        assertTrue(m.find(), "no result line in: " + out);
        long limit = Long.parseLong(m.group(1));
        assertEquals(limit, Long.parseLong(m.group(2)), "registrations kept: " + out);
        assertEquals(limit, Long.parseLong(m.group(3)), "every registration polled readable: " + out);
        assertEquals("a poll over more registrations than the process may open files would abort it in libzmq"
                + " (poll(2) fails with EINVAL): registrations=" + (limit + 1) + ", RLIMIT_NOFILE=" + limit
                + " (raise ulimit -n, or register each socket once)", m.group(4));
    }

    /** The child: one readable socket registered up to its lowered limit, and once more. */
    public static void main(String[] args) throws Throwable {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            assertTrue(push.send(new byte[] {1}, 0));
            long open = ((com.sun.management.UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                    .getOpenFileDescriptorCount();
            int limit = (int) open + 64; // room for the classes still to be loaded
            OpenFileLimits.lowerSoft(limit);
            try (ZmqPoller poller = new ZmqPoller(limit + 1)) {
                for (int i = 0; i < limit; i++) {
                    poller.register(pull, ZmqPoller.POLLIN);
                }
                String refused = "nothing";
                try {
                    poller.register(pull, ZmqPoller.POLLIN);
                } catch (IllegalStateException e) {
                    refused = e.getMessage();
                }
                int ready = poller.poll(5000); // over more items than the limit: libzmq aborts
                System.out.println("limit=" + limit + " size=" + poller.size() + " ready=" + ready + " refused=" + refused);
            }
        }
    }
}
