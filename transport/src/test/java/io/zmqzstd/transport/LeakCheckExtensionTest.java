package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.util.Arrays;
import java.util.List;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The autodetected LeakCheckExtension fails exactly the tests that leak, with the rent site. */
class LeakCheckExtensionTest {

    /** Run only through the launcher below: surefire skips nested classes, and JUnit runs only @Nested ones. */
    static class Leaker {
        static PooledBuffer leaked;

        @Test
        void leaksABuffer() {
            leaked = new NativeBufferPool().rent(100);
        }

        @Test
        void releasesItsBuffer() {
            new NativeBufferPool().rent(100).release();
        }
    }

    @Test
    void shouldFailATestThatLeavesAPooledBufferLeaked() {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        try {
            LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                    .selectors(selectClass(Leaker.class)).build(), listener);
            TestExecutionSummary summary = listener.getSummary();
            assertEquals(2, summary.getTestsStartedCount());
            assertEquals(1, summary.getTestsFailedCount(), "only the leaking test fails");
            TestExecutionSummary.Failure failure = summary.getFailures().getFirst();
            assertEquals("leaksABuffer", ((MethodSource) failure.getTestIdentifier().getSource().orElseThrow()).getMethodName());
            Throwable e = failure.getException();
            assertTrue(e.getMessage().contains("leaked=1"), e.getMessage());
            assertEquals(1, e.getSuppressed().length);
            assertTrue(Arrays.stream(e.getSuppressed()[0].getStackTrace()).anyMatch(f -> f.getMethodName().equals("leaksABuffer")),
                    "the rent site is attached (strict leak detection)");
        } finally {
            if (Leaker.leaked != null) {
                Leaker.leaked.release(); // this test is watched too: leave nothing behind
            }
        }
    }

    @Test
    void shouldFailOnAStrayOrFailingFreeCallback() {
        AssertionError stray = assertThrows(AssertionError.class, () -> LeakCheckExtension.check(List.of(), 1, 0));
        assertTrue(stray.getMessage().contains("strayCallbacks=1"), stray.getMessage());
        AssertionError failed = assertThrows(AssertionError.class, () -> LeakCheckExtension.check(List.of(), 0, 2));
        assertTrue(failed.getMessage().contains("callbackErrors=2"), failed.getMessage());
        LeakCheckExtension.check(List.of(new NativeBufferPool()), 0, 0);
    }
}
