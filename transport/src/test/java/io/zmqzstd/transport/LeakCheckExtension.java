package io.zmqzstd.transport;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * Fails a test after which a pooled buffer is still held by the application (rented, neither
 * released nor sent) in any pool built during the test, or during which the free callback failed
 * or came twice for one buffer. Registered for every test of this module through JUnit's
 * extension autodetection ({@code junit-platform.properties} and {@code META-INF/services}), so a
 * test need not remember to call {@code assertNoLeaks()}. The suite runs with
 * {@code -Dzmqzstd.leakDetection=strict}, so the failure carries each leaked buffer's rent site.
 *
 * <p>It runs after the test's own {@code @AfterEach} methods (where contexts are closed), looks
 * only at pools built during the test, and a buffer in libzmq's hands is not a leak, so nothing
 * here depends on timing. Runs nest (a test that launches tests): each restores the listener it
 * found.
 */
public final class LeakCheckExtension implements BeforeEachCallback, AfterEachCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LeakCheckExtension.class);

    /** What one test built, and the process-wide callback counters when it began. */
    private record Watch(Queue<NativeBufferPool> pools, Consumer<NativeBufferPool> previous,
                         long strayCallbacks, long callbackErrors) {
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        Consumer<NativeBufferPool> previous = NativeBufferPool.buildListener;
        Queue<NativeBufferPool> pools = new ConcurrentLinkedQueue<>();
        context.getStore(NAMESPACE).put(Watch.class, new Watch(pools, previous,
                NativeBufferPool.strayCallbacks(), NativeBufferPool.callbackErrors()));
        NativeBufferPool.buildListener = pool -> {
            pools.add(pool);
            if (previous != null) {
                previous.accept(pool);
            }
        };
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Watch watch = context.getStore(NAMESPACE).remove(Watch.class, Watch.class);
        NativeBufferPool.buildListener = watch.previous();
        check(watch.pools(), NativeBufferPool.strayCallbacks() - watch.strayCallbacks(),
                NativeBufferPool.callbackErrors() - watch.callbackErrors());
    }

    /**
     * @throws AssertionError naming what went wrong, with every leaked buffer's rent site attached
     */
    static void check(Iterable<NativeBufferPool> pools, long newStrayCallbacks, long newCallbackErrors) {
        List<Throwable> leaks = new ArrayList<>();
        for (NativeBufferPool pool : pools) {
            leaks.addAll(pool.leakSites());
        }
        if (leaks.isEmpty() && newStrayCallbacks == 0 && newCallbackErrors == 0) {
            return;
        }
        AssertionError e = new AssertionError("pooled buffers mishandled during the test: leaked=" + leaks.size()
                + ", strayCallbacks=" + newStrayCallbacks + ", callbackErrors=" + newCallbackErrors
                + " (leaked: rented and neither released nor sent; rent sites attached)");
        leaks.forEach(e::addSuppressed);
        throw e;
    }
}
