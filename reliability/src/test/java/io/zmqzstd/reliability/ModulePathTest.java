package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.nativelib.NativeLibrary;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.transport.ZmqContext;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * zmq-zstd's jars on the module path, as automatic modules named by their manifests, in a JVM
 * that refuses native access to every module not named in {@code --enable-native-access}: the
 * flag that README and {@link NativeLibrary#MODULES} give must be enough for a whole round trip,
 * and leaving a module out must fail with a message that names it.
 */
class ModulePathTest {

    /** True makes running without the packaged jars (from class folders) a failure, not a skip. */
    static final String REQUIRE_JARS_PROPERTY = "zmqzstd.requireJars";

    private record Run(int exit, String stdout, String stderr) {
    }

    /** The packaged jars of the four library modules; absent when tests run from class folders. */
    private static List<Path> libraryJars() throws URISyntaxException {
        List<Path> jars = new ArrayList<>();
        for (Class<?> c : List.of(NativeLibrary.class, ZstdCompressor.class, ZmqContext.class, CompressingSender.class)) {
            jars.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()));
        }
        MachineRequirement.require(jars.stream().allMatch(j -> j.toString().endsWith(".jar") && Files.isRegularFile(j)),
                "the module path needs the packaged jars (run through ./mvnw verify): " + jars, REQUIRE_JARS_PROPERTY);
        return jars;
    }

    private static Run probe(String... javaOptions) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ChildProcess.java());
        command.add("--illegal-native-access=deny");
        command.addAll(List.of(javaOptions));
        command.add("--module-path");
        command.add(libraryJars().stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)));
        command.add("--add-modules");
        command.add("io.zmqzstd.pipeline");
        command.add("-cp");
        command.add(Path.of(ModulePathProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        command.add(ModulePathProbe.class.getName());
        try (ChildProcess child = ChildProcess.start(command)) {
            int exit = child.awaitExit(Duration.ofSeconds(120));
            return new Run(exit, String.join("\n", child.lines()), child.stderr());
        }
    }

    @Test
    void shouldRoundTripOnTheModulePathWithNativeAccessForItsModulesOnly() throws Exception {
        Run run = probe("--enable-native-access=" + NativeLibrary.MODULES);
        String all = run.stdout + run.stderr;
        assertEquals(0, run.exit, all);
        List<String> lines = run.stdout.lines().toList();
        assertEquals("modules " + NativeLibrary.MODULES, lines.get(0), all);
        assertEquals("flag --enable-native-access=" + NativeLibrary.MODULES, lines.get(1), all);
        // 5 sizes over tcp and 50 messages from the parallel sender over inproc, each compared on
        // arrival; the 64 KiB and 256 KiB frames went zero-copy, freed through the pool's upcall.
        assertEquals("ok messages=55 zeroCopySends=2", lines.get(2), all);
        assertFalse(run.stderr.contains("WARNING"), run.stderr);
    }

    @Test
    void shouldNameTheFlagWhenTheLoaderModuleLacksNativeAccess() throws Exception {
        String others = Stream.of(NativeLibrary.MODULES.split(","))
                .filter(m -> !m.equals("io.zmqzstd.nativelib")).collect(Collectors.joining(","));
        Run run = probe("--enable-native-access=" + others);
        String all = run.stdout + run.stderr;
        assertEquals(2, run.exit, all);
        assertTrue(run.stdout.contains("native access to libzmq is disabled")
                && run.stdout.contains("run java with --enable-native-access=" + NativeLibrary.MODULES), all);
    }
}
