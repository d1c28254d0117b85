package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeElement;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Interleavings too narrow to hit by repetition (a few nanoseconds between two reads of the
 * caller), forced: the sender is loaded in a class loader of its own with a call to {@link Pause}
 * put into its bytecode at the point where the caller would have to be descheduled, and the test
 * runs a step of its own there.
 */
class ParallelCompressingSenderInterleavingTest {

    /**
     * The caller waiting for the byte bound reads head, then the bytes in flight, then head again
     * to choose how far to wait. When the last message in flight went out between the two reads,
     * head was already at the tail, and before 2026-11-26 the caller then waited for head to pass
     * the tail, which only the caller itself moves: send never returned. Here the worker's send of
     * the first message waits for a peer, and the peer connects right after the caller read the
     * bytes.
     */
    @Test
    void shouldTakeAMessageWhenTheLastOneInFlightGoesOutWhileTheCallerChecksTheByteBound() throws Exception {
        ClassLoader loader = new PausingLoader("overBytes", "java/util/concurrent/atomic/AtomicLong", "get", 2);
        try (ZmqContext ctx = new ZmqContext()) {
            String address = Fixtures.bindAddress("inproc");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.bind(address);
            ZmqSocket pull = ctx.socket(SocketType.PULL); // connected later: until then the worker's send waits
            byte[] first = Fixtures.payload(900, 1);
            byte[] second = Fixtures.payload(900, 2);
            Object builder = callStatic(loader.loadClass(ParallelCompressingSender.class.getName()), "builder", push);
            call(builder, "workers", 1);
            call(builder, "inFlightBytes", 1000L); // one message of 900 B at a time
            AutoCloseable sender = (AutoCloseable) call(builder, "build");
            try (sender; DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                assertEquals(true, call(sender, "send", first, 0));
                // At the second look at the bound (the first decides whether to wait at all), the
                // caller has read head (the first message in flight) and the bytes (over the
                // bound); now the first message goes out, before the caller reads head again.
                Pause.at(2, () -> {
                    pull.connect(address);
                    assertTrue(Fixtures.await(() -> (long) call(sender, "inFlight") == 0, 10_000), "the first went out");
                });
                assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertEquals(true, call(sender, "send", second, 0)),
                        "send waits for head to pass the tail");
                assertTrue(Pause.happened(), "the interleaving was forced");
                call(sender, "flush");
                for (byte[] expected : new byte[][] {first, second}) {
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                    assertArrayEquals(expected, receiver.message().partBytes(0));
                }
            } finally {
                Pause.at(0, null);
            }
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
        }
    }

    /** Where the instrumented sender pauses: runs the step set by {@link #at} once, at the nth pass. */
    public static final class Pause {
        private static volatile Runnable step;
        private static volatile int passesLeft;
        private static volatile boolean happened;

        static synchronized void at(int nth, Runnable s) {
            happened = false;
            passesLeft = nth;
            step = s;
        }

        static boolean happened() {
            return happened;
        }

        /** Called by the instrumented sender. */
        public static void here() {
            Runnable s;
            synchronized (Pause.class) {
                s = step;
                if (s == null || --passesLeft > 0) {
                    return;
                }
                step = null;
            }
            s.run();
            happened = true;
        }
    }

    /**
     * Loads the pipeline's main classes itself (so that they share a runtime package), with a call
     * to {@link Pause#here()} after the {@code nth} call of {@code owner.name} in the code of
     * method {@code method} of ParallelCompressingSender; everything else from the parent.
     */
    private static final class PausingLoader extends ClassLoader {
        private final String method;
        private final String owner;
        private final String name;
        private final int nth;

        PausingLoader(String method, String owner, String name, int nth) {
            super(ParallelCompressingSenderInterleavingTest.class.getClassLoader());
            this.method = method;
            this.owner = owner;
            this.name = name;
            this.nth = nth;
        }

        @Override
        protected Class<?> loadClass(String className, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(className)) {
                Class<?> c = findLoadedClass(className);
                if (c == null) {
                    URL url = getParent().getResource(className.replace('.', '/') + ".class");
                    boolean main = className.startsWith("io.zmqzstd.pipeline.") && url != null
                            && !url.getPath().contains("test-classes");
                    if (!main) {
                        return super.loadClass(className, resolve);
                    }
                    byte[] bytes = read(url);
                    if (className.equals(ParallelCompressingSender.class.getName())) {
                        bytes = instrument(bytes);
                    }
                    c = defineClass(className, bytes, 0, bytes.length);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        private byte[] instrument(byte[] bytes) {
            ClassFile cf = ClassFile.of();
            int[] seen = {0};
            byte[] out = cf.transformClass(cf.parse(bytes), ClassTransform.transformingMethodBodies(
                    m -> m.methodName().equalsString(method),
                    (code, element) -> {
                        code.with(element);
                        if (isTheCall(element) && ++seen[0] == nth) {
                            code.invokestatic(ClassDesc.of(Pause.class.getName()), "here", MethodTypeDesc.ofDescriptor("()V"));
                        }
                    }));
            assertEquals(nth, seen[0], "calls of " + owner + "." + name + " in " + method);
            return out;
        }

        private boolean isTheCall(CodeElement element) {
            return element instanceof InvokeInstruction i && i.owner().asInternalName().equals(owner)
                    && i.name().equalsString(name);
        }

        private static byte[] read(URL url) {
            try (InputStream in = url.openStream()) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Calls the public method {@code name} of {@code target}'s class (or of {@code type}, static). */
    private static Object invoke(Class<?> type, Object target, String name, Object... args) {
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == args.length && accepts(m.getParameterTypes(), args)) {
                try {
                    return m.invoke(target, args);
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                } catch (InvocationTargetException e) {
                    if (e.getCause() instanceof RuntimeException r) {
                        throw r;
                    }
                    throw new AssertionError(e.getCause());
                }
            }
        }
        throw new AssertionError("no method " + name + " on " + type);
    }

    private static Object callStatic(Class<?> type, String name, Object... args) {
        return invoke(type, null, name, args);
    }

    private static Object call(Object target, String name, Object... args) {
        assertNotNull(target);
        return invoke(target.getClass(), target, name, args);
    }

    private static boolean accepts(Class<?>[] types, Object[] args) {
        for (int i = 0; i < types.length; i++) {
            Class<?> t = types[i];
            Object a = args[i];
            boolean ok = t == int.class ? a instanceof Integer
                    : t == long.class ? a instanceof Long
                    : !t.isPrimitive() && t.isInstance(a);
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
