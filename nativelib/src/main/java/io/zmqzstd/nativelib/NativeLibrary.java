package io.zmqzstd.nativelib;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.MutableCallSite;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One system library that zmq-zstd binds through FFM: where to find it, how to open it, and the
 * single sentence to print when it is missing.
 *
 * <p>The library is found by its soname ({@code libzstd.so.1}, {@code libzmq.so.5}; the
 * {@code .dylib} names on macOS) so that the system's dynamic loader and package manager decide
 * which build is used. A system property ({@code zmqzstd.libzstd.path}, {@code
 * zmqzstd.libzmq.path}) points at another file instead. Whitespace around its value is not part
 * of the path (a shell script's space after {@code =}, a properties file's trailing newline), and
 * an empty or blank value is as if the property were not set. A relative path is taken from the
 * working directory, and messages name the absolute path it gives.
 *
 * <p>Opening happens once per process, on first use. The outcome, success or failure, is kept:
 * every later call either returns the same lookup or throws a fresh {@link
 * NativeLibraryUnavailableException} with the same message, so a missing library is reported the
 * same way on every path instead of as a {@code NoClassDefFoundError} the second time.
 *
 * <p>Except when the loader failed for a cause that may pass: the process out of file descriptors
 * (EMFILE, ENFILE) or memory. That failure is not kept: each later call, and each call of a
 * {@link #downcall} handle made meanwhile, opens the library again, so the process recovers once
 * descriptors are free. When the loader fails for any reason other than a missing file (also
 * permission denied, a wrong ELF class, a missing dependency), the message gives the loader's own
 * words ({@code dlerror}) and names no package to install, which would not help.
 *
 * <p>Only versioned names are tried: the unversioned {@code libzstd.so} / {@code libzmq.so} come
 * from the development packages, are absent on a plain runtime install, and may point at another
 * ABI major version than the one these bindings were written for.
 *
 * <p>The library is opened in {@link Arena#global()}: bindings hold {@code static final} method
 * handles into it, and the process never unloads it.
 */
public final class NativeLibrary {

    /**
     * The oldest libzstd zmq-zstd accepts, as {@code ZSTD_versionNumber} gives it: 1.4.0, where the
     * advanced API it uses ({@code ZSTD_compress2}, {@code ZSTD_c_*} parameters) became stable.
     * 1.3.8 exports the same functions but mishandles dictionaries through them (frames fail with
     * "Dictionary mismatch"), so an older library is refused when it is opened.
     */
    public static final int MINIMUM_ZSTD_VERSION = 1_04_00;

    /**
     * The oldest libzmq zmq-zstd accepts, as MAJOR*10000 + MINOR*100 + PATCH from {@code
     * zmq_version}: 4.3.0, where {@code ZMQ_MSG_T_SIZE}, through which every context checks that
     * libzmq's {@code zmq_msg_t} is the 64 bytes this binding allocates, became stable (4.2 has it
     * only in builds with draft APIs). An older library is refused when it is opened.
     */
    public static final int MINIMUM_ZMQ_VERSION = 4_03_00;

    /** libzstd: Debian/Ubuntu package {@code libzstd1}, macOS {@code zstd}. */
    public static final NativeLibrary ZSTD = new NativeLibrary(
            "libzstd",
            "zmqzstd.libzstd.path",
            new String[] {"libzstd.so.1"},
            new String[] {"libzstd.1.dylib", "/opt/homebrew/lib/libzstd.1.dylib", "/usr/local/lib/libzstd.1.dylib"},
            "apt-get install libzstd1 (Debian/Ubuntu), dnf install libzstd (Fedora/RHEL), brew install zstd (macOS)",
            "ZSTD_versionNumber", NativeLibrary::versionNumber, MINIMUM_ZSTD_VERSION);

    /** libzmq: Debian/Ubuntu package {@code libzmq5}, macOS {@code zeromq}. */
    public static final NativeLibrary ZMQ = new NativeLibrary(
            "libzmq",
            "zmqzstd.libzmq.path",
            new String[] {"libzmq.so.5"},
            new String[] {"libzmq.5.dylib", "/opt/homebrew/lib/libzmq.5.dylib", "/usr/local/lib/libzmq.5.dylib"},
            "apt-get install libzmq5 (Debian/Ubuntu), dnf install zeromq (Fedora/RHEL), brew install zeromq (macOS)",
            "zmq_version", NativeLibrary::versionTriple, MINIMUM_ZMQ_VERSION);

    private final String name;
    private final String pathProperty;
    private final String[] linuxNames;
    private final String[] macNames;
    private final String installHint;
    /** The function that reports the library's version, or null: not checked. */
    private final String versionSymbol;
    private final VersionReader versionReader;
    private final int minimumVersion;

    // Written under this object's lock; lookup read without it once set (volatile publication).
    private volatile SymbolLookup lookup;
    private String failure;
    /** Whether failure may pass (the process was out of descriptors or memory): the next call opens again. */
    private boolean failureMayPass;

    /**
     * Calls a library's version function, found at an address, and gives its version as
     * MAJOR*10000 + MINOR*100 + PATCH.
     */
    @FunctionalInterface
    interface VersionReader {
        int read(MemorySegment function) throws Throwable;
    }

    /** Package-private for tests, which make libraries of their own. */
    NativeLibrary(String name, String pathProperty, String[] linuxNames, String[] macNames,
                  String installHint, String versionSymbol, VersionReader versionReader, int minimumVersion) {
        this.name = name;
        this.pathProperty = pathProperty;
        this.linuxNames = linuxNames;
        this.macNames = macNames;
        this.installHint = installHint;
        this.versionSymbol = versionSymbol;
        this.versionReader = versionReader;
        this.minimumVersion = minimumVersion;
    }

    /**
     * The library's short name, e.g. {@code libzmq}.
     *
     * @return the short name, as used in error messages
     */
    public String name() {
        return name;
    }

    /**
     * The system property that overrides where the library is loaded from: a path, whitespace
     * around it ignored; empty or blank is as unset.
     *
     * @return the property name, e.g. {@code zmqzstd.libzmq.path}
     */
    public String pathProperty() {
        return pathProperty;
    }

    /**
     * The opened library. Opens it on the first call.
     *
     * @return the lookup for the library's symbols, the same one on every call
     * @throws NativeLibraryUnavailableException when the library cannot be opened; the message
     *     names the file tried, the minimum version, the package to install and the property to
     *     set or unset; or, when the loader failed for another reason than a missing file, its
     *     own words for that reason (e.g. "Too many open files"), and no package to install
     */
    public SymbolLookup lookup() {
        SymbolLookup l = lookup;
        if (l != null) {
            return l;
        }
        String why;
        synchronized (this) {
            if (lookup == null && (failure == null || failureMayPass)) {
                open();
            }
            l = lookup;
            why = failure;
        }
        if (l == null) {
            throw new NativeLibraryUnavailableException(why);
        }
        return l;
    }

    /** Whether the library is not open and the next call tries again (out of descriptors or memory). */
    private synchronized boolean failureMayPass() {
        return lookup == null && failureMayPass;
    }

    /**
     * Whether the library can be opened on this machine; never throws.
     *
     * @return {@code true} if {@link #lookup()} succeeds, {@code false} if it throws
     */
    public boolean isAvailable() {
        try {
            lookup();
            return true;
        } catch (NativeLibraryUnavailableException e) {
            return false;
        }
    }

    /**
     * The address of {@code symbol} in this library.
     *
     * @param symbol the C name of the function or variable, e.g. {@code ZSTD_versionNumber}
     * @return the symbol's address
     * @throws NativeLibraryUnavailableException when the library is missing or lacks the symbol;
     *     the message names the version and file opened, which met the minimum version
     */
    public MemorySegment symbol(String symbol) {
        SymbolLookup opened = lookup();
        return opened.find(symbol).orElseThrow(() -> new NativeLibraryUnavailableException(
                name + versionAndFile(opened) + " has no symbol " + symbol + ", which zmq-zstd calls: "
                        + "install a current one (" + installHint + ") or set -D" + pathProperty
                        + "=/path/to/the/library"));
    }

    /**
     * " 1.5.4 (/usr/lib/…/libzstd.so.1.5.4)": the version and file of an opened library, for a
     * message, as far as its version function tells them. Error paths only.
     */
    private String versionAndFile(SymbolLookup opened) {
        MemorySegment function = versionSymbol == null ? null : opened.find(versionSymbol).orElse(null);
        if (function == null) {
            return "";
        }
        try {
            return " " + versionText(versionReader.read(function)) + fileOf(opened);
        } catch (Error e) {
            throw e;
        } catch (Throwable t) {
            return fileOf(opened);
        }
    }

    /** " (/usr/lib/…/libzstd.so.1.5.4)": the file an opened library was mapped from, or "" if unknown. */
    private String fileOf(SymbolLookup opened) {
        return (versionSymbol == null ? Optional.<MemorySegment>empty() : opened.find(versionSymbol))
                .flatMap(NativeLibrary::mappedFile).map(f -> " (" + f + ")").orElse("");
    }

    /**
     * The file the dynamic loader mapped for this library: the one whose code this process runs,
     * which is what decides its speed (BENCHMARKS.md, "Which libzstd"). Found on Linux from
     * {@code /proc/self/maps}, as the mapping that holds the library's version function, so it
     * names the real file behind a soname or symbolic link (e.g.
     * {@code /usr/lib/x86_64-linux-gnu/libzstd.so.1.5.4}) and the file a path property chose.
     * Opens the library if it is not open yet.
     *
     * @return the mapped file, or empty when the library cannot be opened, has no version function
     *     to locate it by, or the process's memory map cannot be read (not Linux)
     */
    public Optional<Path> file() {
        if (versionSymbol == null || !isAvailable()) {
            return Optional.empty();
        }
        return lookup().find(versionSymbol).flatMap(NativeLibrary::mappedFile);
    }

    /** The file whose mapping holds {@code function}, from {@code /proc/self/maps}; empty if none or not Linux. */
    private static Optional<Path> mappedFile(MemorySegment function) {
        Path maps = Path.of("/proc/self/maps");
        if (!Files.isReadable(maps)) {
            return Optional.empty();
        }
        try (Stream<String> lines = Files.lines(maps)) {
            return lines.map(line -> mappedFile(line, function.address())).flatMap(Optional::stream).findFirst();
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty();
        }
    }

    /**
     * The file of one {@code /proc/<pid>/maps} line ("start-end perms offset dev inode path") if
     * its range holds {@code address}; empty for another range, an anonymous mapping or a
     * malformed line.
     */
    static Optional<Path> mappedFile(String line, long address) {
        int dash = line.indexOf('-');
        int space = line.indexOf(' ');
        int slash = line.indexOf('/');
        if (dash <= 0 || space <= dash || slash <= space) {
            return Optional.empty();
        }
        try {
            long start = Long.parseUnsignedLong(line, 0, dash, 16);
            long end = Long.parseUnsignedLong(line, dash + 1, space, 16);
            if (Long.compareUnsigned(address, start) < 0 || Long.compareUnsigned(address, end) >= 0) {
                return Optional.empty();
            }
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        // the kernel appends " (deleted)" to a file replaced or removed since it was mapped
        String file = line.substring(slash).strip();
        return Optional.of(Path.of(file.endsWith(" (deleted)") ? file.substring(0, file.length() - 10) : file));
    }

    /**
     * A downcall handle for {@code symbol}. Bindings call this once per function and keep the
     * handle in a {@code static final} field.
     *
     * <p>When the library cannot be opened, or lacks {@code symbol}, the handle returned has the
     * type the linker would have given (options such as {@code captureCallState} included) and
     * throws a fresh {@link NativeLibraryUnavailableException} with the one clear message on every
     * invocation. Bindings are created in static initializers: throwing here would turn the
     * missing library into an {@code ExceptionInInitializerError} on the first use and a
     * {@code NoClassDefFoundError} on every later one, neither of which says what to install.
     *
     * <p>When the failure may pass (the process was out of file descriptors or memory), the handle
     * instead opens the library again on each call, throwing while that fails, and calls the
     * function once it succeeds; a handle made while the library was open is the linker's own.
     *
     * @param symbol the C name of the function
     * @param descriptor the function's C signature
     * @param options linker options, e.g. {@code captureCallState}; none is fine
     * @return a handle that calls the function, or one that throws as described above
     * @throws NativeLibraryUnavailableException when native access is disabled for this module
     *     (with {@code --illegal-native-access=deny}), so that not even the throwing handle can be
     *     made; the message names the flag to add
     * @throws IllegalArgumentException when the linker does not support {@code descriptor} or
     *     {@code options}
     */
    public MethodHandle downcall(String symbol, FunctionDescriptor descriptor, Linker.Option... options) {
        Linker linker = Linker.nativeLinker();
        MemorySegment address;
        try {
            address = symbol(symbol);
        } catch (NativeLibraryUnavailableException e) {
            // The address-free handle takes the target address first; everything after it is
            // exactly the parameter list of a handle bound to an address.
            MethodType type = linkerHandle(linker, null, descriptor, options).type().dropParameterTypes(0, 1);
            return failureMayPass() ? new Retry(this, new MutableCallSite(type), symbol, descriptor, options).handle()
                    : alwaysThrowing(type, e.getMessage());
        }
        return linkerHandle(linker, address, descriptor, options);
    }

    /**
     * The handle {@link #downcall} gives when the library could not be opened for a reason that
     * may pass (the process was out of descriptors): each call opens it again, throwing while that
     * fails; the first that succeeds points the call site at the linker's handle, which every later
     * call then takes. A binding's static final handle thus recovers with the process.
     */
    private record Retry(NativeLibrary library, MutableCallSite site, String symbol, FunctionDescriptor descriptor,
                         Linker.Option[] options) {

        MethodHandle handle() {
            MethodType type = site.type();
            site.setTarget(MethodHandles.foldArguments(MethodHandles.exactInvoker(type), RESOLVE.bindTo(this)));
            return site.dynamicInvoker();
        }

        /** The linker's handle, once the library opens; throws the library's failure until then. */
        MethodHandle resolve() {
            MethodHandle real = library.linkerHandle(Linker.nativeLinker(), library.symbol(symbol), descriptor, options);
            site.setTarget(real);
            return real;
        }
    }

    /**
     * The linker's handle, bound to {@code address} unless it is null. Without native access
     * (with {@code --illegal-native-access=deny}) no handle can be made at all, not even the one
     * that would throw: then this throws the one sentence that names the flag, which the binding's
     * static initializer carries as its cause.
     */
    private MethodHandle linkerHandle(Linker linker, MemorySegment address, FunctionDescriptor descriptor,
                                      Linker.Option... options) {
        try {
            return address == null ? linker.downcallHandle(descriptor, options)
                    : linker.downcallHandle(address, descriptor, options);
        } catch (IllegalCallerException e) {
            throw new NativeLibraryUnavailableException("native access to " + name + " is disabled: "
                    + e.getMessage() + nativeAccessHint(e));
        }
    }

    private static final MethodHandle NEW_UNAVAILABLE;
    private static final MethodHandle RESOLVE;

    static {
        try {
            NEW_UNAVAILABLE = MethodHandles.lookup().findConstructor(NativeLibraryUnavailableException.class,
                    MethodType.methodType(void.class, String.class));
            RESOLVE = MethodHandles.lookup().findVirtual(Retry.class, "resolve", MethodType.methodType(MethodHandle.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A handle of {@code type} that throws a new exception with {@code message} per call. */
    private static MethodHandle alwaysThrowing(MethodType type, String message) {
        MethodHandle thrower = MethodHandles.throwException(type.returnType(), NativeLibraryUnavailableException.class);
        MethodHandle throwNew = MethodHandles.collectArguments(thrower, 0, NEW_UNAVAILABLE.bindTo(message));
        return MethodHandles.dropArguments(throwNew, 0, type.parameterList());
    }

    private void open() {
        failure = null;
        failureMayPass = false;
        // Whitespace around the value comes from a shell script or a properties file, not from
        // the file's name; a value that is only whitespace is unset, as an empty one always was.
        String override = System.getProperty(pathProperty, "").strip();
        if (!override.isEmpty()) {
            Path path;
            try {
                // Named absolute in every message: a relative value is resolved against the working
                // directory, not searched for as a soname, and the message must say where it looked.
                path = Path.of(override).toAbsolutePath();
            } catch (InvalidPathException e) {
                failure = name + " path set by -D" + pathProperty + " is not a valid path (" + e.getReason() + ")"
                        + pointItAt(wanted());
                return;
            }
            if (!Files.isReadable(path)) {
                String unreadable = unreadable(path);
                failure = unreadable == null
                        ? name + " not found at " + path + " (set by -D" + pathProperty + ")" + pointItAt(wanted())
                        : notOpened(path, unreadable);
                return;
            }
            String notLibrary = notALibrary(path);
            if (notLibrary != null) {
                failure = notOpened(path, notLibrary);
                return;
            }
            try {
                SymbolLookup opened = SymbolLookup.libraryLookup(path, Arena.global());
                String old = tooOld(opened);
                if (old == null) {
                    lookup = opened;
                } else {
                    failure = atPath(path) + " " + old
                            + pointItAt(opened.find(versionSymbol).isPresent() ? "a newer one" : name + " instead");
                }
            } catch (IllegalArgumentException e) {
                LoaderFailure why = LoaderFailure.of(path.toString());
                if (why == null) {
                    // the JDK's words name only the file: a shared library it cannot load
                    failure = notOpened(path, e.getMessage());
                } else if (why.mayPass()) {
                    failure = atPath(path) + " could not be opened (" + why.text() + ")" + TRIES_AGAIN;
                    failureMayPass = true;
                } else {
                    failure = notOpened(path, why.text());
                }
            } catch (IllegalCallerException e) {
                failure = atPath(path) + " could not be opened: "
                        + e.getMessage() + nativeAccessHint(e);
            }
            return;
        }
        String[] candidates = isMac() ? macNames : linuxNames;
        String tooOld = null;
        String[] notOpened = null;
        for (String candidate : candidates) {
            try {
                SymbolLookup opened = SymbolLookup.libraryLookup(candidate, Arena.global());
                String old = tooOld(opened);
                if (old == null) {
                    lookup = opened;
                    return;
                }
                // the loader's search (LD_LIBRARY_PATH, its cache) chose the file: name it
                tooOld = name + " " + candidate + fileOf(opened) + " " + old;
            } catch (IllegalCallerException e) {
                failure = "native access to " + name + " is disabled: " + e.getMessage()
                        + nativeAccessHint(e);
                return;
            } catch (IllegalArgumentException e) {
                // The JDK says only "Cannot open library"; the loader knows whether the file is
                // absent (try the next name) or could not be opened, which no package install fixes.
                LoaderFailure why = LoaderFailure.of(candidate);
                if (why != null && !why.absent() && notOpened == null) {
                    notOpened = new String[] {candidate, why.text()};
                    failureMayPass = why.mayPass();
                }
            }
        }
        if (notOpened != null && tooOld == null) {
            failure = name + " " + notOpened[0] + " could not be opened (" + notOpened[1] + ")"
                    + (failureMayPass ? TRIES_AGAIN : ": set -D" + pathProperty + "=/path/to/the/library, or fix that");
            return;
        }
        failureMayPass = false;
        failure = tooOld != null
                ? tooOld + ": install a current one (" + installHint + "), or set -D" + pathProperty
                        + "=/path/to/a/newer/library"
                : name + " not found (tried " + String.join(", ", candidates) + ")"
                        + (versionSymbol == null ? "" : "; zmq-zstd needs " + wanted())
                        + ": install it with " + installHint + ", or set -D" + pathProperty + "=/path/to/the/library";
    }

    /**
     * The end of the message when the loader failed for a cause that may pass (the process was out
     * of descriptors or memory): nothing to install or set, and the failure is not kept.
     */
    private static final String TRIES_AGAIN = "; nothing to install: this may pass, so the next call tries again";

    /** The failure for a path property's file that is no library this process can open, and why. */
    private String notOpened(Path path, String why) {
        return atPath(path) + " could not be opened (" + why + ")" + pointItAt(wanted());
    }

    /** "libzstd at /x/libzstd.so.1 (set by -Dzmqzstd.libzstd.path)": the start of a path property failure. */
    private String atPath(Path path) {
        return name + " at " + path + " (set by -D" + pathProperty + ")";
    }

    /**
     * The two ways out of every path property failure, for the end of its message: fix the
     * property, or drop it and install the system's library, e.g. ": point it at a newer one, or
     * unset it to use the system's libzstd (install it with apt-get install libzstd1 …)".
     */
    private String pointItAt(String what) {
        return ": point it at " + what + ", or unset it to use the system's " + name + " (install it with "
                + installHint + ")";
    }

    /** What zmq-zstd needs, e.g. "libzstd 1.4.0 or newer"; the name alone when the version is not checked. */
    private String wanted() {
        return versionSymbol == null ? name : name + " " + versionText(minimumVersion) + " or newer";
    }

    /**
     * Why {@code path}, which cannot be read, is there all the same; null when nothing is there. A
     * symbolic link that leads nowhere (a loop, or a target that does not exist) and a file this
     * process may not read were called "not found".
     */
    static String unreadable(Path path) {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        if (Files.isSymbolicLink(path)) {
            try {
                path.toRealPath();
            } catch (FileSystemException e) {
                String target;
                try {
                    target = Files.readSymbolicLink(path).toString();
                } catch (IOException | UnsupportedOperationException e2) {
                    target = "?";
                }
                return "a symbolic link to " + target + ", which leads nowhere: " + (e.getReason() != null
                        ? e.getReason() : e instanceof NoSuchFileException ? "no such file" : e.toString());
            } catch (IOException e) {
                return "a symbolic link that cannot be followed: " + e;
            }
        }
        return "the file cannot be read by this process: permission denied";
    }

    /** The first bytes of every ELF file, the format of Linux shared libraries. */
    private static final byte[] ELF_MAGIC = {0x7F, 'E', 'L', 'F'};

    /*
     * The ELF header fields read below, as elf.h lays them out (offsets in bytes; 32-bit / 64-bit
     * files where they differ):
     *
     *   0  magic 7F 'E' 'L' 'F'      4  class: 1 = 32-bit, 2 = 64-bit     5  data: 1 = LSB, 2 = MSB
     *  16  e_type (2): 3 = ET_DYN, a shared object        18  e_machine (2): the instruction set
     *  28 / 32  e_phoff (4 / 8): where the program headers start
     *  42 / 54  e_phentsize (2)     44 / 56  e_phnum (2)
     *  header size 52 / 64
     */
    private static final int EI_CLASS = 4;
    private static final int EI_DATA = 5;
    private static final int E_TYPE = 16;
    private static final int ET_DYN = 3;
    private static final int E_MACHINE = 18;
    /** e_phnum's escape value: the real count is in the first section header, not read here. */
    private static final int PN_XNUM = 0xFFFF;

    /**
     * Why {@code path} is no shared library, found without handing it to the loader; null when it
     * may be one. On Linux the JVM reads the ELF header and program headers of a file it is asked
     * to load before it calls dlopen, and for anything whose headers it cannot read (a text file,
     * an empty one, a directory, a file cut short or corrupt after the ELF magic) printed "You have
     * loaded library … which might have disabled stack guard … fix the library with 'execstack
     * -c'" on standard output, a false and alarming story, before this class gave its own message,
     * and the loader's own message said only "Cannot open library". A FIFO or device would block or
     * be read by dlopen. A shared library for another machine is named as such: glibc says of it
     * "No such file or directory".
     */
    static String notALibrary(Path path) {
        if (Files.isDirectory(path)) {
            return "a directory, not a shared library";
        }
        if (!Files.isRegularFile(path)) {
            return "not a regular file, so not a shared library";
        }
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return null;
        }
        byte[] head = new byte[64];
        int n;
        long fileBytes;
        try (InputStream in = Files.newInputStream(path)) {
            n = in.readNBytes(head, 0, head.length);
            fileBytes = Files.size(path);
        } catch (IOException e) {
            return null; // the loader says what it says
        }
        if (n < ELF_MAGIC.length || !Arrays.equals(head, 0, ELF_MAGIC.length, ELF_MAGIC, 0, ELF_MAGIC.length)) {
            return "not a shared library: " + (n == 0 ? "the file is empty" : "it does not start with the ELF magic 7F 45 4C 46");
        }
        return elfHeaderProblem(head, n, fileBytes);
    }

    /**
     * Why an ELF file whose first {@code n} bytes are {@code head} is no shared library, from its
     * header alone; null when it may be one (the loader decides the rest).
     */
    static String elfHeaderProblem(byte[] head, int n, long fileBytes) {
        int elfClass = n > EI_CLASS ? head[EI_CLASS] : 0;
        int data = n > EI_DATA ? head[EI_DATA] : 0;
        int headerBytes = elfClass == 2 ? 64 : elfClass == 1 ? 52 : 0;
        if (n > EI_DATA && (headerBytes == 0 || (data != 1 && data != 2))) {
            return "not a shared library: its ELF header is corrupt (class=" + elfClass + ", data=" + data + ")";
        }
        if (n < headerBytes || headerBytes == 0) {
            return "not a shared library: the file ends inside its ELF header, after " + n + " bytes";
        }
        ByteBuffer h = ByteBuffer.wrap(head, 0, headerBytes)
                .order(data == 1 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        int type = Short.toUnsignedInt(h.getShort(E_TYPE));
        if (type != ET_DYN) {
            return "not a shared library: an ELF " + switch (type) {
                case 1 -> "relocatable object (.o)";
                case 2 -> "executable";
                case 4 -> "core dump";
                default -> "file of type " + type;
            };
        }
        String foreign = foreignMachine(Short.toUnsignedInt(h.getShort(E_MACHINE)), elfClass, data,
                System.getProperty("os.arch", ""));
        if (foreign != null) {
            return foreign;
        }
        boolean wide = elfClass == 2;
        long phoff = wide ? h.getLong(32) : Integer.toUnsignedLong(h.getInt(28));
        int phentsize = Short.toUnsignedInt(h.getShort(wide ? 54 : 42));
        int phnum = Short.toUnsignedInt(h.getShort(wide ? 56 : 44));
        if (phnum == PN_XNUM) {
            return null;
        }
        long end = phoff + (long) phentsize * phnum;
        if (phnum == 0 || phoff < 0 || end < phoff || end > fileBytes) {
            return "not a shared library: the file is cut short or corrupt (its program headers end at byte "
                    + Long.toUnsignedString(end) + ", the file has " + fileBytes + ")";
        }
        return null;
    }

    /**
     * The ELF machine, class and byte order of the JVM's architecture ({@code os.arch}), for the
     * ones Java runs on under Linux: e_machine from elf.h, class 1 = 32-bit, 2 = 64-bit, data
     * 1 = little-endian, 2 = big-endian.
     */
    private static final Map<String, int[]> HOST_ELF = Map.of(
            "amd64", new int[] {62, 2, 1}, "x86_64", new int[] {62, 2, 1},
            "aarch64", new int[] {183, 2, 1}, "x86", new int[] {3, 1, 1}, "i386", new int[] {3, 1, 1},
            "arm", new int[] {40, 1, 1}, "ppc64le", new int[] {21, 2, 1}, "ppc64", new int[] {21, 2, 2},
            "s390x", new int[] {22, 2, 2}, "riscv64", new int[] {243, 2, 1});

    /** Names of the e_machine values above, for the message. */
    private static final Map<Integer, String> MACHINE_NAMES = Map.of(
            62, "x86-64", 183, "AArch64", 3, "x86 (32-bit)", 40, "ARM (32-bit)", 21, "PowerPC 64",
            22, "s390x", 243, "RISC-V", 8, "MIPS", 2, "SPARC", 20, "PowerPC (32-bit)");

    /**
     * Why a shared library with ELF {@code machine}, {@code elfClass} and {@code data} cannot be
     * loaded by a JVM on {@code osArch}; null when it fits, or when {@code osArch} is not one this
     * class knows (the loader decides). glibc refuses a library for another instruction set with
     * "cannot open shared object file: No such file or directory", of a file that is there.
     */
    static String foreignMachine(int machine, int elfClass, int data, String osArch) {
        int[] host = HOST_ELF.get(osArch);
        if (host == null || (machine == host[0] && elfClass == host[1] && data == host[2])) {
            return null;
        }
        String bits = elfClass == 2 ? "64-bit" : "32-bit";
        String order = data == 1 ? "little-endian" : "big-endian";
        String built = MACHINE_NAMES.getOrDefault(machine, "ELF machine " + machine);
        String what = machine != host[0] ? built + " (e_machine " + machine + ")"
                : elfClass != host[1] ? bits + " " + built : order + " " + built;
        return "a shared library for another machine: it is built for " + what + ", this JVM runs on "
                + osArch + " (" + (host[1] == 2 ? "64-bit" : "32-bit") + ")";
    }

    /**
     * Null when {@code opened} is new enough (or this library's version is not checked); else
     * the words that say why not, e.g. "is version 1.3.8; zmq-zstd needs 1.4.0 or newer".
     */
    private String tooOld(SymbolLookup opened) {
        if (versionSymbol == null) {
            return null;
        }
        MemorySegment f = opened.find(versionSymbol).orElse(null);
        if (f == null) {
            // both libraries had their version function long before the minimum: a file without it is another library
            return "has no " + versionSymbol + ", so it is not " + name + "; zmq-zstd needs " + wanted();
        }
        int found;
        try {
            found = versionReader.read(f);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return tooOldText(found, minimumVersion);
    }

    /** {@code unsigned f(void)} that returns MAJOR*10000 + MINOR*100 + PATCH, as ZSTD_versionNumber. */
    static int versionNumber(MemorySegment function) throws Throwable {
        return (int) Linker.nativeLinker().downcallHandle(function, FunctionDescriptor.of(JAVA_INT)).invokeExact();
    }

    /** {@code void f(int *major, int *minor, int *patch)}, as zmq_version. */
    static int versionTriple(MemorySegment function) throws Throwable {
        MethodHandle h = Linker.nativeLinker().downcallHandle(function,
                FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_INT, 3);
            h.invokeExact(v, v.asSlice(4), v.asSlice(8));
            return versionOf(v.getAtIndex(JAVA_INT, 0), v.getAtIndex(JAVA_INT, 1), v.getAtIndex(JAVA_INT, 2));
        }
    }

    /**
     * MAJOR*10000 + MINOR*100 + PATCH, each part held to 0..99 so that a corrupt report cannot
     * pass for a newer version by overflowing into the next part.
     */
    static int versionOf(int major, int minor, int patch) {
        if (major < 0 || major > 99 || minor < 0 || minor > 99 || patch < 0 || patch > 99) {
            return 0;
        }
        return major * 10000 + minor * 100 + patch;
    }

    /**
     * Null when {@code found} is at least {@code minimum}; else "is version F; zmq-zstd needs M or
     * newer". Both as MAJOR*10000 + MINOR*100 + PATCH.
     */
    static String tooOldText(int found, int minimum) {
        return Integer.compareUnsigned(found, minimum) >= 0 ? null
                : "is version " + versionText(found) + "; zmq-zstd needs " + versionText(minimum) + " or newer";
    }

    /** MAJOR*10000 + MINOR*100 + PATCH as "MAJOR.MINOR.PATCH". */
    static String versionText(int version) {
        return version / 10000 + "." + version / 100 % 100 + "." + version % 100;
    }

    private static String nativeAccessHint(RuntimeException e) {
        return e instanceof IllegalCallerException ? "; run java with " + nativeAccessFlag() : "";
    }

    /**
     * The modules of zmq-zstd that call restricted FFM methods when its jars are on the module
     * path, each jar an automatic module of this name: {@code --enable-native-access} must name
     * them all (the JDK warns, or with {@code --illegal-native-access=deny} refuses, per module).
     */
    public static final String MODULES = "io.zmqzstd.nativelib,io.zmqzstd.codec,io.zmqzstd.transport,io.zmqzstd.pipeline";

    /**
     * The flag that grants zmq-zstd native access as it is loaded: {@code ALL-UNNAMED} on the class
     * path, its {@link #MODULES} on the module path.
     *
     * @return the whole option, e.g. {@code --enable-native-access=ALL-UNNAMED}
     */
    public static String nativeAccessFlag() {
        return "--enable-native-access=" + (NativeLibrary.class.getModule().isNamed() ? MODULES : "ALL-UNNAMED");
    }

    private static boolean isMac() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("mac");
    }
}
