package io.zmqzstd.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.opentest4j.AssertionFailedError;

/** {@link ForkedJvm} with children that succeed, fail and hang: the classes nested below. */
class ForkedJvmTest {

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void shouldReturnWhatTheChildPrintedWithItsOptionsAndArguments() throws Exception {
        String out = ForkedJvm.run(Prints.class, List.of("-Dtestkit.greeting=hello"), "a", "b c");
        assertEquals(List.of("out hello [a, b c]", "err done"), out.lines().toList(), out);
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void shouldFailWithTheChildsOutputWhenItExitsWithAnotherCode() {
        AssertionFailedError e = assertThrows(AssertionFailedError.class, () -> ForkedJvm.run(Fails.class, List.of()));
        assertTrue(e.getMessage().contains("something broke"), e.getMessage());
        assertEquals(3, e.getActual().getValue(), e.getMessage());
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void shouldKillAChildThatRunsPastTheLimit() {
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> ForkedJvm.run(Duration.ofSeconds(5), Hangs.class, List.of()));
        assertTrue(e.getMessage().contains("still running after PT5S, killed"), e.getMessage());
        Matcher pid = Pattern.compile("waiting pid=(\\d+)").matcher(e.getMessage());
        assertTrue(pid.find(), "the child's output is not in the message: " + e.getMessage());
        assertFalse(ProcessHandle.of(Long.parseLong(pid.group(1))).map(ProcessHandle::isAlive).orElse(false),
                "the child is still alive: " + e.getMessage());
    }

    /** Prints a system property and its arguments to stdout, then a line to stderr. */
    static final class Prints {
        public static void main(String[] args) {
            System.out.println("out " + System.getProperty("testkit.greeting") + " " + List.of(args));
            System.out.flush();
            System.err.println("err done");
        }
    }

    /** Says what broke and exits with 3. */
    static final class Fails {
        public static void main(String[] args) {
            System.out.println("something broke");
            System.exit(3);
        }
    }

    /** Prints its pid, then blocks on a stdin that nobody writes or closes. */
    static final class Hangs {
        public static void main(String[] args) throws Exception {
            System.out.println("waiting pid=" + ProcessHandle.current().pid());
            System.out.flush();
            System.in.read();
        }
    }
}
