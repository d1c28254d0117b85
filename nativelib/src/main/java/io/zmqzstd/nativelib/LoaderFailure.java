package io.zmqzstd.nativelib;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Locale;

/**
 * Why the dynamic loader could not open a library, in its own words ({@code dlerror}). The JDK's
 * {@code SymbolLookup.libraryLookup} says only "Cannot open library: NAME" whatever happened: a
 * missing file, a process out of descriptors, a 32-bit file, a missing dependency. Only the first
 * is fixed by installing the package, so {@link NativeLibrary} asks the loader again, on its error
 * path only, and tells them apart here.
 *
 * @param text the loader's message, e.g. "libzstd.so.1: cannot open shared object file: Too many
 *     open files"
 * @param absent whether the library itself is not there (not a dependency of it)
 * @param mayPass whether the cause may pass without anyone acting (out of descriptors or memory,
 *     or the library opened when asked again), so that a later attempt should open it again
 */
record LoaderFailure(String text, boolean absent, boolean mayPass) {

    // errno values, the same on Linux and macOS
    private static final int ENOENT = 2;
    private static final int ENOMEM = 12;
    private static final int ENFILE = 23;
    private static final int EMFILE = 24;
    /** dlopen's RTLD_LAZY, 1 on Linux and macOS: the library is closed again at once if it opens. */
    private static final int RTLD_LAZY = 1;

    /**
     * Asks the loader to open {@code library} (a soname or a path) and, as it fails, why.
     *
     * @return the loader's reason; one that may pass when it opens this time; null when the loader
     *     cannot be asked or gives no words
     */
    static LoaderFailure of(String library) {
        if (Dl.OPEN == null) {
            return null;
        }
        String text;
        try (Arena arena = Arena.ofConfined()) {
            // dlerror's text is per thread: nothing else calls the loader between the two calls
            MemorySegment handle = (MemorySegment) Dl.OPEN.invokeExact(arena.allocateFrom(library), RTLD_LAZY);
            if (!handle.equals(MemorySegment.NULL)) {
                int ignored = (int) Dl.CLOSE.invokeExact(handle);
                return new LoaderFailure("it opened when the loader was asked again", false, true);
            }
            text = string((MemorySegment) Dl.ERROR.invokeExact());
            if (text == null || text.isBlank()) {
                return null;
            }
            return classify(library, text, isLinux(), strerror(ENOENT),
                    List.of(strerror(EMFILE), strerror(ENFILE), strerror(ENOMEM)));
        } catch (Throwable t) {
            return null; // the caller gives its message without the loader's words
        }
    }

    /**
     * Sorts the loader's {@code text}. On Linux the library is absent when the text is glibc's
     * "NAME: cannot open shared object file: No such file or directory" for the library itself; the
     * same words for another name are a missing dependency. On macOS dyld lists each path tried,
     * "(no such file)" after every one.
     *
     * @param noSuchFile the system's words for ENOENT, in the process's locale
     * @param passing the system's words for the causes that may pass (EMFILE, ENFILE, ENOMEM)
     */
    static LoaderFailure classify(String library, String text, boolean linux, String noSuchFile, List<String> passing) {
        boolean absent = linux ? text.startsWith(library + ":") && text.endsWith(noSuchFile)
                : text.toLowerCase(Locale.ROOT).contains("(no such file");
        boolean mayPass = !absent && passing.stream().anyMatch(p -> p != null && !p.isEmpty() && text.endsWith(p));
        return new LoaderFailure(text, absent, mayPass);
    }

    private static String strerror(int errno) throws Throwable {
        return string((MemorySegment) Dl.STRERROR.invokeExact(errno));
    }

    private static String string(MemorySegment cString) {
        return cString.equals(MemorySegment.NULL) ? null : cString.reinterpret(Long.MAX_VALUE).getString(0);
    }

    private static boolean isLinux() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    }

    /** The C library's loader functions, made on first failure; all null when any is missing. */
    private static final class Dl {

        /** {@code void *dlopen(const char *filename, int flags)} */
        static final MethodHandle OPEN;
        /** {@code char *dlerror(void)} */
        static final MethodHandle ERROR;
        /** {@code int dlclose(void *handle)} */
        static final MethodHandle CLOSE;
        /** {@code char *strerror(int errnum)} */
        static final MethodHandle STRERROR;

        static {
            MethodHandle open = null;
            MethodHandle error = null;
            MethodHandle close = null;
            MethodHandle strerror = null;
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                open = linker.downcallHandle(libc.find("dlopen").orElseThrow(), FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
                error = linker.downcallHandle(libc.find("dlerror").orElseThrow(), FunctionDescriptor.of(ADDRESS));
                close = linker.downcallHandle(libc.find("dlclose").orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS));
                strerror = linker.downcallHandle(libc.find("strerror").orElseThrow(), FunctionDescriptor.of(ADDRESS, JAVA_INT));
            } catch (RuntimeException e) {
                open = null;
            }
            OPEN = open;
            ERROR = error;
            CLOSE = close;
            STRERROR = strerror;
        }

        private Dl() {
        }
    }
}
