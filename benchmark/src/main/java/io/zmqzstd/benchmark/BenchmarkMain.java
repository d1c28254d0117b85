package io.zmqzstd.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Entry point of {@code benchmarks.jar}: JMH's own {@code Main}, with {@code -prof async} made to work
 * out of the box.
 *
 * <p>For every {@code -prof async[:opts]} (also {@code -prof=async...}) it fills in what the user left out:
 * <ul>
 *   <li>{@code libPath}: {@code libasyncProfiler.so} for this platform, taken from the
 *       {@code tools.profiler:async-profiler} artifact shaded into this jar and written once to
 *       {@code ~/.cache/zmq-zstd/async-profiler-<version>/} (or the temp directory);</li>
 *   <li>{@code output=flamegraph} and {@code dir=profile-results/<timestamp>};</li>
 *   <li>{@code event=itimer} instead of {@code cpu} when this process may not open perf events
 *       ({@code kernel.perf_event_paranoid > 1} and not root), with one line saying so; only when JMH would
 *       sample cpu ({@code event=cpu}, or no event and neither {@code alloc} nor {@code lock}).</li>
 * </ul>
 * and {@code async} runs as {@link ShortPathAsyncProfiler}, JMH's profiler with trial directory names
 * short enough for benchmarks with many parameters ({@code PipelineBenchmark}'s would not fit in a file
 * name). {@code -prof org.openjdk.jmh.profile.AsyncProfiler} gets the same options and stays JMH's.
 * Everything else is passed to JMH unchanged.
 */
public final class BenchmarkMain {

    /** Every benchmark fork runs our FFM code, zstd-jni and aircompressor: no restricted-method warnings. */
    public static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    /** JMH 1.37 itself uses sun.misc.Unsafe; without this JDK 24+ prints a deprecation warning per fork. */
    public static final String UNSAFE_ALLOWED = "--sun-misc-unsafe-memory-access=allow";

    private static final String PROFILER = "async";

    private BenchmarkMain() {
    }

    public static void main(String[] args) throws Exception {
        org.openjdk.jmh.Main.main(rewrite(args));
    }

    /** Returns {@code args} with every async-profiler option completed; other arguments untouched. */
    static String[] rewrite(String[] args) throws IOException {
        List<String> out = new ArrayList<>(args.length);
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("-prof") && i + 1 < args.length && isAsync(args[i + 1])) {
                out.add(arg);
                out.add(complete(args[++i]));
            } else if (arg.startsWith("-prof=") && isAsync(arg.substring("-prof=".length()))) {
                out.add("-prof");
                out.add(complete(arg.substring("-prof=".length())));
            } else {
                out.add(arg);
            }
        }
        return out.toArray(String[]::new);
    }

    private static boolean isAsync(String spec) {
        String name = spec.contains(":") ? spec.substring(0, spec.indexOf(':')) : spec;
        return name.equals(PROFILER) || name.equals("org.openjdk.jmh.profile.AsyncProfiler");
    }

    /** {@code async[:k=v;k=v...]} in, the same with libPath, output, dir and event settled out. */
    static String complete(String spec) throws IOException {
        int colon = spec.indexOf(':');
        String name = colon < 0 ? spec : spec.substring(0, colon);
        Map<String, String> opts = parseOptions(colon < 0 ? "" : spec.substring(colon + 1));
        if (name.equals(PROFILER)) {
            name = ShortPathAsyncProfiler.class.getName();
        }

        if (!opts.containsKey("libPath")) {
            opts.put("libPath", extractLibrary().toString());
        }
        opts.putIfAbsent("output", "flamegraph");
        if (!opts.containsKey("dir")) {
            opts.put("dir", Path.of("profile-results", timestamp()).toString());
        }
        // JMH samples cpu only when given event=cpu, or no event and neither alloc nor lock: given alloc or
        // lock alone it profiles that event, and an event added beside them would be a secondary one, which
        // JMH refuses unless output=jfr ("-prof async:alloc" failed so where perf events are not allowed).
        boolean cpu = opts.containsKey("event") ? "cpu".equals(opts.get("event"))
                : !opts.containsKey("alloc") && !opts.containsKey("lock");
        if (cpu) {
            String refusal = perfEventsRefusal(Path.of(opts.get("libPath")));
            if (refusal != null) {
                opts.put("event", "itimer");
                System.out.println("# async-profiler: perf events are not available here (" + refusal
                        + "); profiling with event=itimer instead of cpu");
            }
        }
        StringBuilder sb = new StringBuilder(name).append(':');
        String sep = "";
        for (Map.Entry<String, String> e : opts.entrySet()) {
            sb.append(sep).append(e.getKey());
            if (e.getValue() != null) {
                sb.append('=').append(e.getValue());
            }
            sep = ";";
        }
        return sb.toString();
    }

    /** JMH profiler options: {@code key=value} pairs separated by {@code ;} (flags have no value). */
    private static Map<String, String> parseOptions(String opts) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String part : opts.split(";")) {
            if (part.isBlank()) {
                continue;
            }
            int eq = part.indexOf('=');
            if (eq < 0) {
                map.put(part.trim(), null);
            } else {
                map.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
            }
        }
        return map;
    }

    private static String timestamp() {
        return java.time.LocalDateTime.now().format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    }

    /**
     * The integer a sysctl file under /proc/sys holds. Read by lines, not with {@code Files.readString}:
     * that one sizes its first read by the file's size, 0 in /proc, reads one byte, and then finds a
     * sysctl file ended at offset 1, so "-1" read as "-" (and "32768 60999" as "3").
     */
    static int sysctlInt(Path file) throws IOException {
        return Integer.parseInt(Files.readAllLines(file).getFirst().trim().split("\\s+")[0]);
    }

    /**
     * Why cpu (perf_events) sampling cannot work here, or {@code null} when it can. perf_event_open needs
     * {@code kernel.perf_event_paranoid <= 1} or root; even root can be refused inside a container
     * (seccomp), so when the sysctl does not already say no we try: a short child JVM starts async-profiler
     * with {@code event=cpu} ({@link CpuProbe}). A child, because loading the library into this JVM first
     * would keep JMH's own binding of it from ever registering.
     */
    static String perfEventsRefusal(Path libPath) {
        Path paranoid = Path.of("/proc/sys/kernel/perf_event_paranoid");
        if (Files.isReadable(paranoid)) {
            try {
                int level = sysctlInt(paranoid);
                if (level > 1 && !isRoot()) {
                    return "kernel.perf_event_paranoid=" + level + ", not root";
                }
            } catch (IOException | NumberFormatException e) {
                // unreadable: let the probe decide
            }
        }
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder probe = new ProcessBuilder(javaBin.toString(), NATIVE_ACCESS, "-cp",
                System.getProperty("java.class.path"), CpuProbe.class.getName(), libPath.toString())
                .redirectErrorStream(true);
        Path log = null;
        try {
            // Its output goes to a file, read once it has ended: read from a pipe, the wait below
            // would start only when the child closed its output, and a probe that hung would hang here.
            log = Files.createTempFile("zmqzstd-cpu-probe", ".txt");
            Process process = probe.redirectOutput(log.toFile()).start();
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return "cpu probe did not finish in 30 s";
            }
            String output = Files.readString(log).trim();
            boolean refused = process.exitValue() != 0 || output.contains("[WARN]") || output.contains("[ERROR]");
            // "Picked up JAVA_TOOL_OPTIONS: ..." is the JVM's, not the probe's
            return refused ? output.lines().filter(l -> !l.isBlank() && !l.startsWith("Picked up "))
                    .findFirst().orElse("cpu probe failed: exit " + process.exitValue()) : null;
        } catch (IOException e) {
            return "cpu probe could not start: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "cpu probe interrupted";
        } finally {
            if (log != null) {
                try {
                    Files.deleteIfExists(log);
                } catch (IOException e) {
                    // a temporary file left behind
                }
            }
        }
    }

    /** Child-JVM probe: exits 0 and prints nothing else when async-profiler can sample with event=cpu. */
    static final class CpuProbe {
        public static void main(String[] args) throws Exception {
            one.profiler.AsyncProfiler profiler = one.profiler.AsyncProfiler.getInstance(args[0]);
            try {
                profiler.execute("start,event=cpu,interval=1ms");
                long deadline = System.nanoTime() + 20_000_000L;
                long spin = 0;
                while (System.nanoTime() < deadline) {
                    spin++;
                }
                profiler.execute("stop");
                System.out.println("OK " + (spin & 1));
            } catch (IllegalStateException | IOException e) {
                System.out.println(e.getMessage());
                System.exit(1);
            }
        }
    }

    private static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    // Uid: real effective saved fs: the effective uid decides.
                    return line.split("\\s+")[2].equals("0");
                }
            }
        } catch (IOException | ArrayIndexOutOfBoundsException e) {
            return false;
        }
        return false;
    }

    /** Writes the bundled native library for this platform to a cache file once, and returns its path. */
    static Path extractLibrary() throws IOException {
        String resource = platformDirectory() + "/libasyncProfiler.so";
        String version = bundledVersion();
        Path dir = cacheDirectory().resolve("async-profiler-" + version).resolve(platformDirectory());
        Path lib = dir.resolve("libasyncProfiler.so");
        try (InputStream in = BenchmarkMain.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("async-profiler library not bundled for this platform: resource=" + resource
                        + ", os.name=" + System.getProperty("os.name") + ", os.arch=" + System.getProperty("os.arch")
                        + "; pass -prof async:libPath=/path/to/libasyncProfiler.so");
            }
            byte[] bytes = in.readAllBytes();
            if (Files.exists(lib) && Files.size(lib) == bytes.length) {
                return lib;
            }
            Files.createDirectories(dir);
            // Write then rename: two JVMs starting at once must never load a half-written library.
            Path tmp = Files.createTempFile(dir, "libasyncProfiler", ".tmp");
            Files.write(tmp, bytes);
            Files.move(tmp, lib, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return lib;
        }
    }

    private static String platformDirectory() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        if (os.contains("mac")) {
            return "macos";
        }
        boolean arm = arch.equals("aarch64") || arch.equals("arm64");
        return arm ? "linux-arm64" : "linux-x64";
    }

    private static String bundledVersion() {
        try (InputStream in = BenchmarkMain.class.getClassLoader()
                .getResourceAsStream("META-INF/maven/tools.profiler/async-profiler/pom.properties")) {
            if (in != null) {
                java.util.Properties p = new java.util.Properties();
                p.load(in);
                return p.getProperty("version", "unknown");
            }
        } catch (IOException e) {
            // fall through: an unversioned directory is still correct, only shared across versions.
        }
        return "unknown";
    }

    private static Path cacheDirectory() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg)
                : Path.of(System.getProperty("user.home"), ".cache");
        Path dir = base.resolve("zmq-zstd");
        try {
            Files.createDirectories(dir);
            if (Files.isWritable(dir)) {
                return dir;
            }
        } catch (IOException e) {
            // fall back below
        }
        return Path.of(System.getProperty("java.io.tmpdir"), "zmq-zstd-" + System.getProperty("user.name"));
    }
}
