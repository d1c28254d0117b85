package io.zmqzstd.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLibraryTest {

    @Test
    void shouldOpenSystemZstdAndCallIt() throws Throwable {
        MethodHandle version = NativeLibrary.ZSTD.downcall("ZSTD_versionNumber",
                FunctionDescriptor.of(ValueLayout.JAVA_INT));
        int v = (int) version.invokeExact();
        assertTrue(v >= 10400, "libzstd version " + v);
    }

    @Test
    void shouldOpenSystemZmqAndReadItsVersion() throws Throwable {
        MethodHandle version = NativeLibrary.ZMQ.downcall("zmq_version", FunctionDescriptor.ofVoid(
                ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment major = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment minor = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment patch = arena.allocate(ValueLayout.JAVA_INT);
            version.invokeExact(major, minor, patch);
            assertEquals(4, major.get(ValueLayout.JAVA_INT, 0));
        }
    }

    @Test
    void shouldAskForAllUnnamedOnTheClassPath() {
        // On the module path it names the modules instead (ModulePathTest, reliability module).
        assertEquals("--enable-native-access=ALL-UNNAMED", NativeLibrary.nativeAccessFlag());
    }

    @Test
    void shouldReturnTheSameLookupEveryTime() {
        assertSame(NativeLibrary.ZSTD.lookup(), NativeLibrary.ZSTD.lookup());
    }

    @Test
    void shouldNameThePropertyWhenOverridePointsNowhere() throws Exception {
        NativeLibrary missing = privateInstance("zmqzstd.test.missing.path");
        System.setProperty("zmqzstd.test.missing.path", "/nonexistent/libnothing.so.1");
        try {
            var first = assertThrows(NativeLibraryUnavailableException.class, missing::lookup);
            var second = assertThrows(NativeLibraryUnavailableException.class, missing::lookup);
            assertTrue(first.getMessage().contains("/nonexistent/libnothing.so.1"), first.getMessage());
            assertTrue(first.getMessage().contains("-Dzmqzstd.test.missing.path"), first.getMessage());
            assertEquals(first.getMessage(), second.getMessage());
            assertTrue(!missing.isAvailable());
        } finally {
            System.clearProperty("zmqzstd.test.missing.path");
        }
    }

    @Test
    void shouldNameThePackageWhenLibraryIsNotInstalled() throws Exception {
        NativeLibrary missing = privateInstance("zmqzstd.test.unset.path");
        var e = assertThrows(NativeLibraryUnavailableException.class, missing::lookup);
        assertTrue(e.getMessage().contains("apt-get install libnothing0"), e.getMessage());
        assertTrue(e.getMessage().contains("libnothing.so.0"), e.getMessage());
    }

    @Test
    void shouldNameMissingSymbol() {
        var e = assertThrows(NativeLibraryUnavailableException.class,
                () -> NativeLibrary.ZSTD.symbol("ZSTD_noSuchFunction"));
        assertTrue(e.getMessage().contains("ZSTD_noSuchFunction"), e.getMessage());
        assertNotNull(NativeLibrary.ZSTD.symbol("ZSTD_compress2"));
    }

    @Test
    void shouldGiveThrowingHandlesOfTheLinkersTypeWhenLibraryIsMissing() throws Throwable {
        NativeLibrary missing = privateInstance("zmqzstd.test.handles.path");
        Linker linker = Linker.nativeLinker();
        MemorySegment anyFunction = linker.defaultLookup().find("strlen").orElseThrow();
        Linker.Option errno = Linker.Option.captureCallState("errno");
        FunctionDescriptor longs = FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT);
        FunctionDescriptor pointers = FunctionDescriptor.ofVoid(ADDRESS, ADDRESS);
        FunctionDescriptor struct = FunctionDescriptor.of(MemoryLayout.structLayout(JAVA_LONG, JAVA_LONG), JAVA_INT);
        Object[][] cases = {
            {longs, new Linker.Option[0]},
            {longs, new Linker.Option[] {errno}},
            {longs, new Linker.Option[] {Linker.Option.critical(false)}},
            {pointers, new Linker.Option[] {Linker.Option.critical(true)}},
            {struct, new Linker.Option[0]},
            {struct, new Linker.Option[] {errno}},
        };
        for (Object[] c : cases) {
            FunctionDescriptor d = (FunctionDescriptor) c[0];
            Linker.Option[] options = (Linker.Option[]) c[1];
            assertEquals(linker.downcallHandle(anyFunction, d, options).type(),
                    missing.downcall("anything", d, options).type(), d + " " + List.of(options));
        }

        MethodHandle captured = missing.downcall("zmq_anything", longs, errno);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
            var first = assertThrows(NativeLibraryUnavailableException.class,
                    () -> { long ignored = (long) captured.invokeExact(state, 1L, 2); });
            var second = assertThrows(NativeLibraryUnavailableException.class,
                    () -> { long ignored = (long) captured.invokeExact(state, 1L, 2); });
            assertNotSame(first, second, "a fresh exception per call, with its own stack trace");
            assertEquals(first.getMessage(), second.getMessage());
            assertTrue(first.getMessage().contains("apt-get install libnothing0"), first.getMessage());
            assertTrue(first.getMessage().contains("-Dzmqzstd.test.handles.path"), first.getMessage());
        }
        MethodHandle noResult = missing.downcall("zmq_other", pointers);
        assertThrows(NativeLibraryUnavailableException.class,
                () -> { noResult.invokeExact(MemorySegment.NULL, MemorySegment.NULL); });
    }

    /**
     * A symbol the opened library lacks: it met the minimum version when it was opened, so the
     * message names the version and file found; it said "it is too old for zmq-zstd" and neither.
     */
    @Test
    void shouldGiveThrowingHandleForSymbolTheLibraryLacks() throws Throwable {
        MethodHandle h = NativeLibrary.ZSTD.downcall("ZSTD_noSuchFunction", FunctionDescriptor.of(JAVA_INT));
        var e = assertThrows(NativeLibraryUnavailableException.class, () -> { int ignored = (int) h.invokeExact(); });
        int installed = (int) NativeLibrary.ZSTD.downcall("ZSTD_versionNumber", FunctionDescriptor.of(JAVA_INT)).invokeExact();
        assertEquals("libzstd " + NativeLibrary.versionText(installed) + " (" + loadedLibzstd() + ") has no symbol"
                + " ZSTD_noSuchFunction, which zmq-zstd calls: install a current one (apt-get install libzstd1 (Debian/Ubuntu),"
                + " dnf install libzstd (Fedora/RHEL), brew install zstd (macOS)) or set -Dzmqzstd.libzstd.path=/path/to/the/library",
                e.getMessage());
    }

    @Test
    void shouldTellTooOldFromNewEnough() {
        assertEquals("is version 1.3.8; zmq-zstd needs 1.4.0 or newer", NativeLibrary.tooOldText(1_03_08, 1_04_00));
        assertNull(NativeLibrary.tooOldText(1_04_00, 1_04_00));
        assertNull(NativeLibrary.tooOldText(1_05_07, 1_04_00));
        assertEquals("1.5.4", NativeLibrary.versionText(1_05_04));
        assertEquals("10.0.12", NativeLibrary.versionText(10_00_12));
    }

    /** The real libzstd, refused because it is older than asked for: through the property and by soname. */
    @Test
    void shouldRefuseALibraryOlderThanTheMinimumOnEveryCall() throws Throwable {
        int installed = (int) NativeLibrary.ZSTD.downcall("ZSTD_versionNumber", FunctionDescriptor.of(JAVA_INT)).invokeExact();
        String version = NativeLibrary.versionText(installed);
        String path = loadedLibzstd();
        NativeLibrary bySoname = zstdRequiring(99_99_99, "zmqzstd.test.old.unset");
        var e = assertThrows(NativeLibraryUnavailableException.class, bySoname::lookup);
        // the file too, since LD_LIBRARY_PATH or the loader's cache chose it (it was named by soname alone)
        assertEquals("libzstd libzstd.so.1 (" + path + ") is version " + version + "; zmq-zstd needs 99.99.99 or newer: install a current one"
                + " (apt-get install libzstd1), or set -Dzmqzstd.test.old.unset=/path/to/a/newer/library", e.getMessage());
        MethodHandle handle = bySoname.downcall("ZSTD_versionNumber", FunctionDescriptor.of(JAVA_INT));
        var onCall = assertThrows(NativeLibraryUnavailableException.class, () -> { int ignored = (int) handle.invokeExact(); });
        assertEquals(e.getMessage(), onCall.getMessage());

        NativeLibrary byPath = zstdRequiring(99_99_99, "zmqzstd.test.old.path");
        System.setProperty("zmqzstd.test.old.path", path);
        try {
            var p = assertThrows(NativeLibraryUnavailableException.class, byPath::lookup);
            // both ways out: fix the property, or drop it and install the system's package
            assertEquals("libzstd at " + path + " (set by -Dzmqzstd.test.old.path) is version " + version
                    + "; zmq-zstd needs 99.99.99 or newer: point it at a newer one, or unset it to use the system's"
                    + " libzstd (install it with apt-get install libzstd1)", p.getMessage());
            assertTrue(!byPath.isAvailable());
        } finally {
            System.clearProperty("zmqzstd.test.old.path");
        }

        NativeLibrary newEnough = zstdRequiring(installed, "zmqzstd.test.current.unset");
        assertTrue(newEnough.isAvailable(), "the installed " + version + " meets a minimum of itself");
        assertTrue(NativeLibrary.ZSTD.isAvailable() && installed >= NativeLibrary.MINIMUM_ZSTD_VERSION);
    }

    /**
     * A path property pointing at another library (here libzmq for libzstd) is said to be not the
     * library at all; the message used to call it too old and ask for "a newer one", and then
     * offered "unset it to use the system's libzstd" without the package that provides it.
     */
    @Test
    void shouldSayTheFileIsNotTheLibraryWhenItLacksTheVersionFunction() {
        String zmq = NativeLibrary.ZMQ.file().orElseThrow().toString();
        NativeLibrary byPath = zstdRequiring(NativeLibrary.MINIMUM_ZSTD_VERSION, "zmqzstd.test.wrong.path");
        System.setProperty("zmqzstd.test.wrong.path", zmq);
        try {
            var e = assertThrows(NativeLibraryUnavailableException.class, byPath::lookup);
            assertEquals("libzstd at " + zmq + " (set by -Dzmqzstd.test.wrong.path) has no ZSTD_versionNumber, so it is"
                    + " not libzstd; zmq-zstd needs libzstd 1.4.0 or newer: point it at libzstd instead, or unset it to"
                    + " use the system's libzstd (install it with apt-get install libzstd1)", e.getMessage());
        } finally {
            System.clearProperty("zmqzstd.test.wrong.path");
        }
    }

    /**
     * A path property pointing at a file the loader cannot open (a directory, an empty or text
     * file) says what to do about it, as the other failures do; the message ended with the
     * loader's "Cannot open library: …" and named neither a remedy nor the package.
     */
    @Test
    void shouldSayWhatToDoWhenThePathPropertysFileIsNoLibrary(@TempDir Path dir) throws Exception {
        Path text = Files.writeString(dir.resolve("libzstd.so.1"), "not a library");
        Path empty = Files.createFile(dir.resolve("empty.so"));
        // Found before the loader is asked (LibraryLoadingTest: the JVM's stack guard warning)
        Map<Path, String> why = Map.of(text, "(not a shared library: it does not start with the ELF magic 7F 45 4C 46)",
                empty, "(not a shared library: the file is empty)", dir, "(a directory, not a shared library)");
        for (Path bad : new Path[] {text, empty, dir}) {
            NativeLibrary byPath = zstdRequiring(NativeLibrary.MINIMUM_ZSTD_VERSION, "zmqzstd.test.bad.path");
            System.setProperty("zmqzstd.test.bad.path", bad.toString());
            try {
                var e = assertThrows(NativeLibraryUnavailableException.class, byPath::lookup);
                assertTrue(e.getMessage().startsWith("libzstd at " + bad + " (set by -Dzmqzstd.test.bad.path) could not be"
                        + " opened ("), e.getMessage());
                assertTrue(e.getMessage().endsWith("): point it at libzstd 1.4.0 or newer, or unset it to use the system's"
                        + " libzstd (install it with apt-get install libzstd1)"), e.getMessage());
                assertTrue(e.getMessage().contains(" could not be opened " + why.get(bad) + ": "), e.getMessage());
            } finally {
                System.clearProperty("zmqzstd.test.bad.path");
            }
        }
    }

    /**
     * Files that start with the ELF magic and are still no shared library: cut short, corrupt
     * after the magic, or another kind of ELF file. They passed the magic check and went to the
     * loader, which made the JVM print its stack guard warning (LibraryLoadingTest) and said only
     * "Cannot open library: …". The real libraries pass.
     */
    @Test
    void shouldRefuseAnElfFileThatIsCutShortCorruptOrNoSharedObject(@TempDir Path dir) throws Exception {
        Path zstd = NativeLibrary.ZSTD.file().orElseThrow();
        byte[] real = Files.readAllBytes(zstd);
        byte[] relocatable = java.util.Arrays.copyOf(real, real.length);
        relocatable[16] = 1; // e_type ET_REL, little-endian
        Map<String, String> why = Map.of(
                "magic.so", "(not a shared library: the file ends inside its ELF header, after 4 bytes)",
                "header.so", "(not a shared library: the file ends inside its ELF header, after 40 bytes)",
                "garbage.so", "(not a shared library: its ELF header is corrupt (class=103, data=97)",
                "cut.so", "(not a shared library: the file is cut short or corrupt (its program headers end at byte ",
                "object.so", "(not a shared library: an ELF relocatable object (.o))");
        Files.write(dir.resolve("magic.so"), java.util.Arrays.copyOf(real, 4));
        Files.write(dir.resolve("header.so"), java.util.Arrays.copyOf(real, 40));
        Files.writeString(dir.resolve("garbage.so"), "\u007fELFgarbage after the magic");
        Files.write(dir.resolve("cut.so"), java.util.Arrays.copyOf(real, 100));
        Files.write(dir.resolve("object.so"), relocatable);
        for (var e : why.entrySet()) {
            Path bad = dir.resolve(e.getKey());
            NativeLibrary byPath = zstdRequiring(NativeLibrary.MINIMUM_ZSTD_VERSION, "zmqzstd.test.elf.path");
            System.setProperty("zmqzstd.test.elf.path", bad.toString());
            try {
                var thrown = assertThrows(NativeLibraryUnavailableException.class, byPath::lookup);
                assertTrue(thrown.getMessage().startsWith("libzstd at " + bad + " (set by -Dzmqzstd.test.elf.path) could"
                        + " not be opened " + e.getValue()), thrown.getMessage());
            } finally {
                System.clearProperty("zmqzstd.test.elf.path");
            }
        }
        assertNull(NativeLibrary.notALibrary(zstd));
        assertNull(NativeLibrary.notALibrary(NativeLibrary.ZMQ.file().orElseThrow()));
    }

    /**
     * The real libzstd with its ELF header's machine changed to another instruction set's, or its
     * byte order flipped: glibc refuses such a file by path with "cannot open shared object file:
     * No such file or directory", of a file that is there, which the message passed on. Now the
     * header says for which machine it was built.
     */
    @Test
    void shouldSayALibraryIsBuiltForAnotherMachine(@TempDir Path dir) throws Exception {
        String arch = System.getProperty("os.arch");
        assumeTrue(arch.equals("amd64") || arch.equals("aarch64"), "a known 64-bit little-endian host: " + arch);
        byte[] real = Files.readAllBytes(NativeLibrary.ZSTD.file().orElseThrow());
        byte[] foreign = java.util.Arrays.copyOf(real, real.length);
        int other = arch.equals("amd64") ? 183 : 62;
        foreign[18] = (byte) other; // e_machine, little-endian
        foreign[19] = 0;
        Path bad = Files.write(dir.resolve("libzstd.so.1"), foreign);
        NativeLibrary byPath = zstdRequiring(NativeLibrary.MINIMUM_ZSTD_VERSION, "zmqzstd.test.arch.path");
        System.setProperty("zmqzstd.test.arch.path", bad.toString());
        try {
            var e = assertThrows(NativeLibraryUnavailableException.class, byPath::lookup);
            assertTrue(e.getMessage().startsWith("libzstd at " + bad + " (set by -Dzmqzstd.test.arch.path) could not be"
                    + " opened (a shared library for another machine: it is built for "
                    + (other == 183 ? "AArch64" : "x86-64") + " (e_machine " + other + "), this JVM runs on " + arch
                    + " (64-bit)): point it at libzstd 1.4.0 or newer"), e.getMessage());
            assertTrue(!e.getMessage().contains("No such file"), e.getMessage());
        } finally {
            System.clearProperty("zmqzstd.test.arch.path");
        }
        assertEquals("a shared library for another machine: it is built for 32-bit x86-64, this JVM runs on amd64"
                + " (64-bit)", NativeLibrary.foreignMachine(62, 1, 1, "amd64"));
        assertEquals("a shared library for another machine: it is built for big-endian PowerPC 64, this JVM runs on"
                + " ppc64le (64-bit)", NativeLibrary.foreignMachine(21, 2, 2, "ppc64le"));
        assertNull(NativeLibrary.foreignMachine(62, 2, 1, "amd64"));
        assertNull(NativeLibrary.foreignMachine(183, 2, 1, "aarch64"));
        assertNull(NativeLibrary.foreignMachine(62, 2, 1, "sparcv9"), "an unknown host: the loader decides");
    }

    /**
     * A path that is there but leads to nothing readable: a symbolic link loop and a link to a file
     * that does not exist. Both were "libzstd not found at …", of a path that is there; now the
     * message says it is a link, to what, and what is wrong with it.
     */
    @Test
    void shouldSayAPathPropertysSymbolicLinkLeadsNowhere(@TempDir Path dir) throws Exception {
        Path loop = dir.resolve("loop.so");
        Files.createSymbolicLink(loop, dir.resolve("back.so"));
        Files.createSymbolicLink(dir.resolve("back.so"), loop);
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling.so"), dir.resolve("gone.so.1"));
        Map<Path, String> why = Map.of(
                // the JDK's words: "Too many levels of symbolic links or unable to access attributes of symbolic link"
                loop, "(a symbolic link to " + dir.resolve("back.so") + ", which leads nowhere: Too many levels of symbolic links",
                dangling, "(a symbolic link to " + dir.resolve("gone.so.1") + ", which leads nowhere: no such file)");
        for (var w : why.entrySet()) {
            NativeLibrary byPath = zstdRequiring(NativeLibrary.MINIMUM_ZSTD_VERSION, "zmqzstd.test.link.path");
            System.setProperty("zmqzstd.test.link.path", w.getKey().toString());
            try {
                var e = assertThrows(NativeLibraryUnavailableException.class, byPath::lookup);
                assertTrue(e.getMessage().startsWith("libzstd at " + w.getKey() + " (set by -Dzmqzstd.test.link.path)"
                        + " could not be opened " + w.getValue()), e.getMessage());
                assertTrue(e.getMessage().endsWith("): point it at libzstd 1.4.0 or newer, or unset it to use the system's"
                        + " libzstd (install it with apt-get install libzstd1)"), e.getMessage());
            } finally {
                System.clearProperty("zmqzstd.test.link.path");
            }
        }
        assertNull(NativeLibrary.unreadable(dir.resolve("absent.so")), "nothing there: not found, as before");
    }

    /** The real libzmq, read through zmq_version: refused against a minimum above it, accepted at its own. */
    @Test
    void shouldRefuseALibzmqOlderThanTheMinimum() throws Throwable {
        int installed = NativeLibrary.versionTriple(NativeLibrary.ZMQ.symbol("zmq_version"));
        assertTrue(installed >= NativeLibrary.MINIMUM_ZMQ_VERSION && installed < 5_00_00, "libzmq " + installed);
        String version = NativeLibrary.versionText(installed);
        NativeLibrary tooNew = zmqRequiring(4_99_00, "zmqzstd.test.zmq.unset");
        var e = assertThrows(NativeLibraryUnavailableException.class, tooNew::lookup);
        assertEquals("libzmq libzmq.so.5 (" + NativeLibrary.ZMQ.file().orElseThrow() + ") is version " + version
                + "; zmq-zstd needs 4.99.0 or newer: install a current one"
                + " (apt-get install libzmq5), or set -Dzmqzstd.test.zmq.unset=/path/to/a/newer/library", e.getMessage());
        MethodHandle handle = tooNew.downcall("zmq_version", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS));
        var onCall = assertThrows(NativeLibraryUnavailableException.class,
                () -> { handle.invokeExact(MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL); });
        assertEquals(e.getMessage(), onCall.getMessage());
        assertTrue(zmqRequiring(installed, "zmqzstd.test.zmq.current").isAvailable(), "libzmq " + version + " meets itself");
        assertTrue(NativeLibrary.ZMQ.isAvailable());
    }

    @Test
    void shouldNotLetACorruptVersionPassForANewerOne() {
        assertEquals(4_03_05, NativeLibrary.versionOf(4, 3, 5));
        assertEquals(0, NativeLibrary.versionOf(4, 100, 0), "minor 100 would read as 5.0.0");
        assertEquals(0, NativeLibrary.versionOf(4, 2, 100));
        assertEquals(0, NativeLibrary.versionOf(-1, 3, 0));
        assertEquals(0, NativeLibrary.versionOf(Integer.MAX_VALUE, 0, 0), "would overflow to a negative number");
        assertEquals("is version 0.0.0; zmq-zstd needs 4.3.0 or newer", NativeLibrary.tooOldText(0, 4_03_00));
    }

    /** The file this process loaded as libzstd.so.1 (Linux). */
    private static String loadedLibzstd() {
        assumeTrue(Files.isReadable(Path.of("/proc/self/maps")), "no /proc/self/maps: not Linux");
        return NativeLibrary.ZSTD.file().orElseThrow(() -> new AssertionError("libzstd loaded but not found in /proc/self/maps"))
                .toString();
    }

    /** Each library's file is the mapping that holds its code: the real file behind the soname. */
    @Test
    void shouldNameTheFileEachLibraryWasMappedFrom() throws Exception {
        Path zstd = Path.of(loadedLibzstd());
        Path zmq = NativeLibrary.ZMQ.file().orElseThrow();
        assertTrue(zstd.getFileName().toString().startsWith("libzstd.so"), zstd.toString());
        assertTrue(zmq.getFileName().toString().startsWith("libzmq.so"), zmq.toString());
        assertTrue(Files.isRegularFile(zstd) && Files.isRegularFile(zmq), zstd + " " + zmq);
        assertEquals(zstd, NativeLibrary.ZSTD.file().orElseThrow(), "the same file on every call");
        assertTrue(zstdRequiring(99_99_99, "zmqzstd.test.file.unset").file().isEmpty(), "a refused library has no file");
        assertTrue(privateInstance("zmqzstd.test.file.nothing").file().isEmpty(), "a missing library has no file");
    }

    /**
     * A copy of libzstd opened through the path property is a second mapping of its own (another
     * inode), and the file found is the copy, not the system library whose name it shares.
     */
    @Test
    void shouldNameTheCopyAPathPropertyChose(@TempDir Path dir) throws Exception {
        Path system = Path.of(loadedLibzstd());
        Path copy = Files.copy(system, dir.resolve("libzstd-copy.so.1"));
        NativeLibrary byPath = zstdRequiring(NativeLibrary.MINIMUM_ZSTD_VERSION, "zmqzstd.test.file.path");
        System.setProperty("zmqzstd.test.file.path", copy.toString());
        try {
            assertEquals(copy, byPath.file().orElseThrow());
            assertEquals(system, NativeLibrary.ZSTD.file().orElseThrow(), "the system library is still its own file");
        } finally {
            System.clearProperty("zmqzstd.test.file.path");
        }
    }

    /**
     * A path property's value with whitespace around it, as a shell script or a properties file
     * leaves it ({@code -Dzmqzstd.libzstd.path= /usr/lib/…/libzstd.so.1}, a trailing newline),
     * names the file without it. It was taken whole: {@code " /usr/lib/…"} is a relative path
     * that does not exist, and the message showed the stray whitespace only as a blank.
     */
    @Test
    void shouldIgnoreWhitespaceAroundThePathProperty() {
        Path real = Path.of(loadedLibzstd());
        int n = 0;
        for (String value : List.of(" " + real, real + "\n", "\t" + real + " \r\n")) {
            String property = "zmqzstd.test.padded.path" + n++;
            NativeLibrary byPath = zstdRequiring(NativeLibrary.MINIMUM_ZSTD_VERSION, property);
            System.setProperty(property, value);
            try {
                assertEquals(Optional.of(real), byPath.file(), "value=\"" + value + "\": " + failure(byPath));
            } finally {
                System.clearProperty(property);
            }
        }
        NativeLibrary missing = privateInstance("zmqzstd.test.padded.missing");
        System.setProperty("zmqzstd.test.padded.missing", " /nonexistent/libnothing.so.1\n");
        try {
            assertTrue(failure(missing).startsWith("libnothing not found at /nonexistent/libnothing.so.1 (set by "
                    + "-Dzmqzstd.test.padded.missing): "), failure(missing));
        } finally {
            System.clearProperty("zmqzstd.test.padded.missing");
        }
    }

    /**
     * A relative path property is taken from the working directory, spaces in it and all; a
     * missing one is named as the absolute path looked at, not as the bare value, which reads
     * like a soname the loader searched for (it said "libzstd not found at libzstd.so.1").
     */
    @Test
    void shouldTakeARelativePathFromTheWorkingDirectoryAndNameItWhole(@TempDir Path dir) throws Exception {
        Path copy = Files.copy(Path.of(loadedLibzstd()), Files.createDirectory(dir.resolve("my libs")).resolve("libzstd.so.1"));
        Path workingDirectory = Path.of("").toAbsolutePath();
        NativeLibrary relative = zstdRequiring(NativeLibrary.MINIMUM_ZSTD_VERSION, "zmqzstd.test.relative.path");
        NativeLibrary missing = zstdRequiring(NativeLibrary.MINIMUM_ZSTD_VERSION, "zmqzstd.test.relative.missing");
        System.setProperty("zmqzstd.test.relative.path", workingDirectory.relativize(copy).toString());
        System.setProperty("zmqzstd.test.relative.missing", "libzstd.so.1");
        try {
            assertEquals(Optional.of(copy), relative.file(), failure(relative));
            assertEquals("libzstd not found at " + workingDirectory.resolve("libzstd.so.1") + " (set by"
                    + " -Dzmqzstd.test.relative.missing): point it at libzstd 1.4.0 or newer, or unset it to use the system's"
                    + " libzstd (install it with apt-get install libzstd1)", failure(missing));
        } finally {
            System.clearProperty("zmqzstd.test.relative.path");
            System.clearProperty("zmqzstd.test.relative.missing");
        }
    }

    /**
     * A path property no file system path can be (a NUL character, possible through
     * System.setProperty) is refused with the library's message, on every call; Path.of's
     * InvalidPathException escaped lookup() instead, and again on each call.
     */
    @Test
    void shouldRefuseAPathPropertyThatIsNoPath() {
        NativeLibrary invalid = zstdRequiring(NativeLibrary.MINIMUM_ZSTD_VERSION, "zmqzstd.test.invalid.path");
        System.setProperty("zmqzstd.test.invalid.path", "/tmp/lib\0zstd.so.1");
        try {
            String expected = "libzstd path set by -Dzmqzstd.test.invalid.path is not a valid path (Nul character not allowed):"
                    + " point it at libzstd 1.4.0 or newer, or unset it to use the system's libzstd (install it with"
                    + " apt-get install libzstd1)";
            assertEquals(expected, failure(invalid));
            assertEquals(expected, failure(invalid));
            assertTrue(!invalid.isAvailable());
        } finally {
            System.clearProperty("zmqzstd.test.invalid.path");
        }
    }

    /**
     * A library found under none of its names says which version zmq-zstd needs, next to the
     * package: a distribution's package may be older (Debian 10's libzstd1 is 1.3.8). It named the
     * package and the property only.
     */
    @Test
    void shouldNameTheMinimumVersionWhenTheLibraryIsNotFound() {
        NativeLibrary absent = new NativeLibrary("libzstd", "zmqzstd.test.absent.path", new String[] {"libnosuchzstd.so.1"},
                new String[] {"libnosuchzstd.1.dylib"}, "apt-get install libzstd1", "ZSTD_versionNumber",
                NativeLibrary::versionNumber, NativeLibrary.MINIMUM_ZSTD_VERSION);
        String tried = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("mac")
                ? "libnosuchzstd.1.dylib" : "libnosuchzstd.so.1";
        assertEquals("libzstd not found (tried " + tried + "); zmq-zstd needs libzstd 1.4.0 or newer: install it with"
                + " apt-get install libzstd1, or set -Dzmqzstd.test.absent.path=/path/to/the/library", failure(absent));
    }

    /** An empty or blank path property is as if it were not set: the system's library is looked for. */
    @Test
    void shouldTakeABlankPathPropertyAsUnset() {
        int n = 0;
        for (String value : List.of("", " ", "\n", " \t\r\n")) {
            String property = "zmqzstd.test.blank.path" + n++;
            NativeLibrary zstd = zstdRequiring(NativeLibrary.MINIMUM_ZSTD_VERSION, property);
            NativeLibrary nothing = privateInstance(property);
            System.setProperty(property, value);
            try {
                assertTrue(zstd.isAvailable(), "value=\"" + value + "\": " + failure(zstd));
                assertTrue(failure(nothing).startsWith("libnothing not found (tried libnothing.so.0): "), failure(nothing));
            } finally {
                System.clearProperty(property);
            }
        }
    }

    /** The message {@code library.lookup()} throws, or "available". */
    private static String failure(NativeLibrary library) {
        try {
            library.lookup();
            return "available";
        } catch (NativeLibraryUnavailableException e) {
            return e.getMessage();
        }
    }

    @Test
    void shouldReadOneLineOfTheMemoryMap() {
        String line = "7f1c2a400000-7f1c2a4a5000 r-xp 00010000 fe:01 1234  /usr/lib/x86_64-linux-gnu/libzstd.so.1.5.4";
        assertEquals(Optional.of(Path.of("/usr/lib/x86_64-linux-gnu/libzstd.so.1.5.4")),
                NativeLibrary.mappedFile(line, 0x7f1c2a400000L));
        assertEquals(Optional.of(Path.of("/usr/lib/x86_64-linux-gnu/libzstd.so.1.5.4")),
                NativeLibrary.mappedFile(line, 0x7f1c2a4a4fffL));
        assertEquals(Optional.empty(), NativeLibrary.mappedFile(line, 0x7f1c2a4a5000L), "the end is exclusive");
        assertEquals(Optional.empty(), NativeLibrary.mappedFile(line, 0x7f1c2a3fffffL));
        assertEquals(Optional.of(Path.of("/tmp/my libs/libzstd.so.1")), NativeLibrary.mappedFile(
                "ffffffffff600000-ffffffffff601000 r-xp 00000000 00:00 0  /tmp/my libs/libzstd.so.1 (deleted)",
                0xffffffffff600010L), "addresses above 2^63, spaces in the path, a file deleted since");
        assertEquals(Optional.empty(), NativeLibrary.mappedFile("7f00-7f10 rw-p 00000000 00:00 0 ", 0x7f01L), "anonymous");
        assertEquals(Optional.empty(), NativeLibrary.mappedFile("7f00-7f10 r-xp 0 0:0 0 [vdso]", 0x7f01L));
        assertEquals(Optional.empty(), NativeLibrary.mappedFile("zz-7f10 r-xp 0 0:0 0 /x", 0x7f01L), "malformed");
        assertEquals(Optional.empty(), NativeLibrary.mappedFile("", 0));
    }

    private static NativeLibrary zstdRequiring(int minimum, String property) {
        return new NativeLibrary("libzstd", property, new String[] {"libzstd.so.1"},
                new String[] {"libzstd.1.dylib"}, "apt-get install libzstd1", "ZSTD_versionNumber",
                NativeLibrary::versionNumber, minimum);
    }

    private static NativeLibrary zmqRequiring(int minimum, String property) {
        return new NativeLibrary("libzmq", property, new String[] {"libzmq.so.5"},
                new String[] {"libzmq.5.dylib"}, "apt-get install libzmq5", "zmq_version",
                NativeLibrary::versionTriple, minimum);
    }

    private static NativeLibrary privateInstance(String property) {
        return new NativeLibrary("libnothing", property, new String[] {"libnothing.so.0"},
                new String[] {"libnothing.0.dylib"}, "apt-get install libnothing0", null, null, 0);
    }
}
