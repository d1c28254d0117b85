package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@link ZmqPoller} whose construction fails takes no native memory with it. The constructor
 * allocates the poll items (16 B per registration) and two Java arrays; when the arrays came
 * second, an {@link OutOfMemoryError} for them left the items allocated in a shared arena nobody
 * could close. The check runs in a child JVM with a 16 MiB heap, where the arrays of a poller for
 * 2^22 sockets cannot fit, and reads the JVM's native memory tracking (the arena's memory is its
 * "Other" category) before and after, the {@link #main} below.
 */
class PollerConstructionLeakTest {

    private static final int CAPACITY = 1 << 22; // 64 MiB of poll items, a 16 MiB ZmqSocket[]
    private static final Pattern RESULT = Pattern.compile("failed=(\\S+) otherKbBefore=(\\d+) otherKbAfter=(\\d+)");
    private static final Pattern OTHER = Pattern.compile("Other \\(reserved=(\\d+)KB");

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldKeepNoNativeMemoryWhenTheConstructorRunsOutOfHeap() throws Exception {
        String out = ForkedJvm.run(PollerConstructionLeakTest.class,
                List.of("-Xmx16m", "-XX:NativeMemoryTracking=summary"));
        Matcher m = RESULT.matcher(out);
        assertTrue(m.find(), "no result line in: " + out);
        assertTrue(m.group(1).startsWith("java.lang.OutOfMemoryError"), "the constructor did not fail: " + out);
        long leakedKb = Long.parseLong(m.group(3)) - Long.parseLong(m.group(2));
        // 65,536 KiB of poll items stayed allocated before
        assertTrue(leakedKb < 1024, "native memory kept after the failed constructor: " + leakedKb + " KiB: " + out);
    }

    /** The child: a poller too large for the heap, with the native memory tracked before and after. */
    public static void main(String[] args) throws Exception {
        Class.forName(io.zmqzstd.transport.internal.LibZmq.class.getName()); // library loaded before the baseline
        long before = otherKb();
        String failed = "nothing";
        try (ZmqPoller poller = new ZmqPoller(CAPACITY)) {
            failed = "nothing: size=" + poller.size();
        } catch (OutOfMemoryError e) {
            failed = e.toString().replace(' ', '_');
        }
        System.out.println("failed=" + failed + " otherKbBefore=" + before + " otherKbAfter=" + otherKb());
    }

    private static long otherKb() throws Exception {
        String summary = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
        Matcher m = OTHER.matcher(summary);
        if (!m.find()) {
            throw new IllegalStateException("no Other category in: " + summary);
        }
        return Long.parseLong(m.group(1));
    }
}
