package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.zmqzstd.testkit.ForkedJvm;
import io.zmqzstd.transport.internal.LibC;
import io.zmqzstd.transport.internal.LibZmq;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The process out of file descriptors: each case runs in a child JVM (the {@link #main} below),
 * because libzmq 4.3.4 aborts the process on some of them ("Too many open files
 * (src/epoll.cpp:65)" at a context's first socket, "(src/ip_resolver.cpp:542)" at a tcp bind to an
 * address). The child lowers its own descriptor limit ({@code setrlimit}), takes every free
 * descriptor on {@code /dev/null} and gives back as many as a case needs, so the count is exact.
 * Classes the child needs are loaded before it runs out: the test class path is directories, and
 * loading a class from one opens its file.
 */
class DescriptorExhaustionTest {

    /** The child's soft limit: low, so that taking every free descriptor is quick. */
    private static final long LIMIT = 512;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"newContext", "firstSocket", "laterSocket", "tcpBind", "ipcBindProbe", "acceptResumes",
        "curveBeforeLibzmqOpens"})
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void shouldFailCleanlyAndRecoverWhenOutOfDescriptors(String scenario) throws Exception {
        assumeTrue(System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux"),
                "setrlimit's RLIMIT_NOFILE and the counts here are Linux's");
        String out = ForkedJvm.run(DescriptorExhaustionTest.class, List.of("-Xmx64m"), scenario);
        assertTrue(out.contains("scenario passed: " + scenario), out);
    }

    // ------------------------------------------------------------------ the child

    public static void main(String[] args) throws Throwable {
        // The last case's first call into libzmq is its point: libzmq must not be opened before it
        preload(!args[0].equals("curveBeforeLibzmqOpens"));
        OpenFileLimits.lowerSoft(LIMIT);
        switch (args[0]) {
            case "newContext" -> newContext();
            case "firstSocket" -> firstSocket();
            case "laterSocket" -> laterSocket();
            case "tcpBind" -> tcpBind();
            case "ipcBindProbe" -> ipcBindProbe();
            case "acceptResumes" -> acceptResumes();
            case "curveBeforeLibzmqOpens" -> curveBeforeLibzmqOpens();
            default -> throw new IllegalArgumentException(args[0]);
        }
        System.out.println("scenario passed: " + args[0]);
    }

    /**
     * A context takes a descriptor for its mailbox: with none, libzmq's EMFILE, which named no limit,
     * now names it; the pool the context made for itself is closed again, and a context can be made
     * once there are descriptors.
     */
    private static void newContext() throws Throwable {
        List<NativeBufferPool> pools = new ArrayList<>();
        NativeBufferPool.buildListener = pools::add;
        takeAllBut(0);
        expectOutOfDescriptors(ZmqContext::new, "zmq_ctx_new", "a context taking one");
        giveBack();
        check(pools.size() == 1 && pools.get(0).isClosed(), "the failed context's own pool left open: " + pools);
        try (ZmqContext ctx = new ZmqContext()) {
            roundTrip(ctx, "inproc://new");
        }
    }

    /**
     * The first socket starts libzmq's reaper and I/O threads, 2 descriptors each, and libzmq aborted
     * the process when it ran out between a thread's two (1 to 3 free with one I/O thread): now every
     * count short of the 5 it needs is refused with EMFILE, and the socket is made once there are
     * descriptors again.
     */
    private static void firstSocket() throws Throwable {
        try (ZmqContext ctx = new ZmqContext()) {
            for (int free : new int[] {1, 2, 3, 4, 0}) { // libzmq aborted at 1, 2 and 3
                takeAllBut(free);
                expectOutOfDescriptors(() -> ctx.socket(SocketType.PAIR), "free=" + free, "needs 5");
                giveBack();
            }
            roundTrip(ctx, "inproc://first");
        }
        try (ZmqContext ctx = ZmqContext.builder().ioThreads(2).build()) {
            takeAllBut(6);
            expectOutOfDescriptors(() -> ctx.socket(SocketType.PAIR), "ioThreads=2, free=6", "needs 7");
            giveBack();
            roundTrip(ctx, "tcp://127.0.0.1:*");
        }
    }

    /**
     * A socket once the threads run: libzmq's EMFILE, whose message blamed the context's socket
     * limit (and told to raise {@code maxSockets}), now says the process is out of descriptors; the
     * same for a monitor, which makes a socket of its own in libzmq.
     */
    private static void laterSocket() throws Throwable {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket s = ctx.socket(SocketType.PULL);
            takeAllBut(0);
            expectOutOfDescriptors(() -> ctx.socket(SocketType.PAIR), "socket", "each socket taking one");
            giveBack();
            takeAllBut(1); // the monitor's receiving socket takes it, libzmq's own then finds none
            expectOutOfDescriptors(() -> s.monitor(MonitorEvent.Type.ALL), "monitor", "each socket taking one");
            giveBack();
            s.monitor(MonitorEvent.Type.ALL).close();
            roundTrip(ctx, "inproc://later");
        }
    }

    /**
     * A tcp bind to an address lists the interfaces first, and libzmq aborted the process when it
     * found no descriptor for that; a bind to {@code *} failed with EMFILE, naming no limit. Both now
     * refused, naming it, and the socket binds once there are descriptors.
     */
    private static void tcpBind() throws Throwable {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            takeAllBut(0);
            expectOutOfDescriptors(() -> pull.bind("tcp://127.0.0.1:*"), "bind to an address", "lists the network interfaces");
            expectOutOfDescriptors(() -> pull.bind("tcp://*:*"), "bind to *", "the listening socket taking one");
            giveBack();
            pull.bind("tcp://127.0.0.1:*");
            sendAndReceive(ctx, pull, pull.lastEndpoint(), "after the refusals");
        }
    }

    /**
     * An ipc bind to a leftover socket file connects to it first to tell whether somebody listens.
     * Short of descriptors that probe threw the JDK's {@link ExceptionInInitializerError} (the JDK's
     * first socket channel), after which no socket channel could be made in the process; once the
     * JDK had made one, it said EADDRINUSE "a socket listens" of a file nobody listened on. Now both
     * are EMFILE, the JDK's channels work afterwards, and the bind takes the file over.
     */
    private static void ipcBindProbe() throws Throwable {
        Path dir = Files.createTempDirectory("emfile");
        Path first = dir.resolve("first.sock");
        Path second = dir.resolve("second.sock");
        leaveSocketFile(first);
        leaveSocketFile(second);
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            takeAllBut(1); // the JDK's socket pair cannot be made
            expectOutOfDescriptors(() -> pull.bind("ipc://" + first), "first probe", "whether somebody listens on " + first);
            giveBack();
            SocketChannel.open(StandardProtocolFamily.UNIX).close(); // threw NoClassDefFoundError after the old probe
            pull.bind("ipc://" + first);
            sendAndReceive(ctx, pull, "ipc://" + first, "over the file taken over");
            // A descriptor that comes free after takeAllBut took every one (closed late, by libzmq's
            // I/O thread say, after the round trip above: seen once in a fresh-clone CI run on a busy
            // machine) lets the bind succeed, which says nothing of the probe: then the listener is
            // let go, the file left behind again, and the case tried again, at most 5 times
            for (int attempt = 1; ; attempt++) {
                takeAllBut(0);
                if (refusedForWantOfDescriptors(() -> pull.bind("ipc://" + second), "later probe",
                        "whether somebody listens on " + second)) {
                    break;
                }
                giveBack();
                check(attempt < 5, "later probe: not refused in 5 attempts");
                pull.unbind(pull.lastEndpoint());
                Files.deleteIfExists(second);
                leaveSocketFile(second);
            }
            giveBack();
            pull.bind("ipc://" + second);
        } finally {
            Files.deleteIfExists(first);
            Files.deleteIfExists(second);
            Files.delete(dir);
        }
    }

    /**
     * A connection a listener cannot accept for want of a descriptor: libzmq reports ACCEPT_FAILED
     * (its I/O thread retries at once, a core busy meanwhile: see the README), and once descriptors
     * are free again accepts it and the message goes through.
     */
    private static void acceptResumes() throws Throwable {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.bind("tcp://127.0.0.1:*");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            try (SocketMonitor m = pull.monitor(EnumSet.of(MonitorEvent.Type.ACCEPTED, MonitorEvent.Type.ACCEPT_FAILED))) {
                takeAllBut(1); // the connecting socket takes it
                push.connect(pull.lastEndpoint());
                MonitorEvent failed = m.receive(Duration.ofSeconds(10));
                check(failed != null && failed.type() == MonitorEvent.Type.ACCEPT_FAILED && failed.value() == LibZmq.EMFILE,
                        "expected ACCEPT_FAILED with EMFILE, got " + failed);
                giveBack();
                check(push.send("resumed", 0), "send refused");
                pull.receiveTimeoutMs(10_000);
                String got = pull.receiveString(0);
                check("resumed".equals(got), "received " + got);
            }
        }
    }

    // ------------------------------------------------------------------ helpers of the child

    private interface Call {
        void run() throws Throwable;
    }

    private static void expectOutOfDescriptors(Call call, String what, String named) throws Throwable {
        if (!refusedForWantOfDescriptors(call, what, named)) {
            throw new IllegalStateException(what + ": not refused");
        }
    }

    /** True when {@code call} was refused with EMFILE and a message naming the limit and {@code named}; false when it ran. */
    private static boolean refusedForWantOfDescriptors(Call call, String what, String named) throws Throwable {
        try {
            call.run();
        } catch (ZmqException e) {
            check(e.errno() == LibZmq.EMFILE, what + ": errno " + e.errno() + ", " + e.getMessage());
            for (String part : List.of("out of file descriptors", "RLIMIT_NOFILE=" + LIMIT, named)) {
                check(e.getMessage().contains(part), what + ": no '" + part + "' in: " + e.getMessage());
            }
            return true;
        }
        return false;
    }

    private static void roundTrip(ZmqContext ctx, String endpoint) {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.bind(endpoint);
        sendAndReceive(ctx, pull, pull.lastEndpoint(), "round trip");
    }

    private static void sendAndReceive(ZmqContext ctx, ZmqSocket pull, String endpoint, String text) {
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.connect(endpoint);
        check(push.send(text, 0), "send refused");
        pull.receiveTimeoutMs(10_000);
        String got = pull.receiveString(0);
        check(text.equals(got), "sent '" + text + "', received '" + got + "'");
        push.close();
    }

    /**
     * {@code Curve.isAvailable()} as the process's first call into libzmq, with no descriptor to
     * open it: the loader's reason, and once descriptors are free the answer. Before, the answer was
     * a holder class's constant: the first call threw ExceptionInInitializerError, and every later
     * one NoClassDefFoundError, for the life of the process.
     */
    private static void curveBeforeLibzmqOpens() throws Throwable {
        // Taken with the JDK's streams: takeAllBut's capture layout is LibZmq's, whose initialisation
        // opens libzmq
        List<java.io.FileInputStream> taken = new ArrayList<>();
        try {
            while (true) {
                taken.add(new java.io.FileInputStream("/dev/null"));
            }
        } catch (java.io.IOException full) {
            check(full.getMessage().contains("Too many open files"), "stopped for another reason: " + full.getMessage());
        }
        try {
            boolean answered = Curve.isAvailable();
            throw new IllegalStateException("answered " + answered + " with no descriptor to open libzmq");
        } catch (io.zmqzstd.nativelib.NativeLibraryUnavailableException e) {
            check(e.getMessage().contains("Too many open files"), "not the loader's reason: " + e.getMessage());
        } finally {
            for (java.io.FileInputStream in : taken) {
                in.close();
            }
        }
        check(Curve.isAvailable(), "Debian's libzmq5 has CURVE, once libzmq could be opened");
        check(Curve.isAvailable(), "asked again");
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new IllegalStateException(message);
        }
    }

    /**
     * Loads every class of this project on the class path while a class file can still be opened:
     * the test class path is directories, and each class is read from its own file when first used.
     * With {@code openLibzmq}, also opens libzmq (an exception's message asks it for its text).
     */
    private static void preload(boolean openLibzmq) throws Exception {
        ClassLoader loader = DescriptorExhaustionTest.class.getClassLoader();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path root = Path.of(entry);
            Path project = root.resolve("io/zmqzstd");
            if (!Files.isDirectory(project)) {
                continue;
            }
            try (var files = Files.walk(project)) {
                for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                    String name = root.relativize(file).toString().replace(java.io.File.separatorChar, '.');
                    Class.forName(name.substring(0, name.length() - ".class".length()), false, loader);
                }
            }
        }
        if (openLibzmq) {
            new ZmqException("preload", LibZmq.EMFILE).getMessage();
        }
    }

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle SOCKET = LINKER.downcallHandle(LINKER.defaultLookup().find("socket").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle BIND = LINKER.downcallHandle(LINKER.defaultLookup().find("bind").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final Deque<Integer> TAKEN = new ArrayDeque<>();

    /** Takes every free descriptor, then gives {@code free} back. */
    private static void takeAllBut(int free) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(LibZmq.CAPTURE_LAYOUT);
            MemorySegment path = a.allocateFrom("/dev/null", StandardCharsets.US_ASCII);
            for (;;) {
                int fd = (int) LibC.open.invokeExact(capture, path, LibC.O_RDONLY);
                if (fd < 0) {
                    check(LibZmq.errno(capture) == LibZmq.EMFILE, "open failed: errno=" + LibZmq.errno(capture));
                    break;
                }
                TAKEN.push(fd);
            }
        }
        for (int i = 0; i < free; i++) {
            int ignored = (int) LibC.close.invokeExact((int) TAKEN.pop());
        }
    }

    private static void giveBack() throws Throwable {
        while (!TAKEN.isEmpty()) {
            int ignored = (int) LibC.close.invokeExact((int) TAKEN.pop());
        }
    }

    /**
     * A unix socket file nobody listens on, as a process that ended leaves it: bound with libc's
     * socket and bind (not the JDK's channels, whose first use is part of the case), then closed.
     */
    private static void leaveSocketFile(Path path) throws Throwable {
        byte[] name = path.toString().getBytes(StandardCharsets.UTF_8);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment addr = a.allocate(110); // struct sockaddr_un on Linux: sa_family_t, then sun_path[108]
            addr.set(ValueLayout.JAVA_SHORT, 0, (short) 1); // AF_UNIX
            MemorySegment.copy(name, 0, addr, ValueLayout.JAVA_BYTE, 2, name.length);
            int fd = (int) SOCKET.invokeExact(1, 1, 0); // AF_UNIX, SOCK_STREAM
            check(fd >= 0, "socket failed");
            int rc = (int) BIND.invokeExact(fd, addr, (int) addr.byteSize());
            int ignored = (int) LibC.close.invokeExact(fd);
            check(rc == 0, "bind of " + path + " failed");
        }
    }
}
