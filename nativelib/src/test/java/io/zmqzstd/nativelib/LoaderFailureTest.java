package io.zmqzstd.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Telling a missing library from one the loader could not open, by the loader's own words. */
class LoaderFailureTest {

    private static final String ENOENT = "No such file or directory";
    private static final List<String> PASSING = List.of("Too many open files", "Too many open files in system",
            "Cannot allocate memory");

    private static LoaderFailure linux(String library, String text) {
        return LoaderFailure.classify(library, text, true, ENOENT, PASSING);
    }

    @Test
    void shouldCallOnlyTheLibraryItselfMissingAbsent() {
        assertEquals(new LoaderFailure("libzstd.so.1: cannot open shared object file: " + ENOENT, true, false),
                linux("libzstd.so.1", "libzstd.so.1: cannot open shared object file: " + ENOENT));
        // a dependency the library needs is missing: installing the library's package is not the fix
        assertEquals(new LoaderFailure("libsodium.so.23: cannot open shared object file: " + ENOENT, false, false),
                linux("libzmq.so.5", "libsodium.so.23: cannot open shared object file: " + ENOENT));
    }

    @Test
    void shouldTellACauseThatMayPassFromOneThatStays() {
        assertEquals(new LoaderFailure("libzstd.so.1: cannot open shared object file: Too many open files", false, true),
                linux("libzstd.so.1", "libzstd.so.1: cannot open shared object file: Too many open files"));
        assertEquals(new LoaderFailure("libzstd.so.1: cannot open shared object file: Too many open files in system",
                false, true), linux("libzstd.so.1", "libzstd.so.1: cannot open shared object file: Too many open files in system"));
        assertEquals(new LoaderFailure("/x/libzstd.so.1: wrong ELF class: ELFCLASS32", false, false),
                linux("/x/libzstd.so.1", "/x/libzstd.so.1: wrong ELF class: ELFCLASS32"));
        assertEquals(new LoaderFailure("/x/libzstd.so.1: cannot open shared object file: Permission denied", false, false),
                linux("/x/libzstd.so.1", "/x/libzstd.so.1: cannot open shared object file: Permission denied"));
    }

    @Test
    void shouldReadDyldsListOfPathsTriedOnMacOs() {
        String tried = "dlopen(libzstd.1.dylib, 0x0001): tried: 'libzstd.1.dylib' (no such file), '/usr/lib/libzstd.1.dylib' (no such file)";
        assertTrue(LoaderFailure.classify("libzstd.1.dylib", tried, false, ENOENT, PASSING).absent());
    }

    @Test
    void shouldAskTheRealLoader() {
        LoaderFailure missing = LoaderFailure.of("libnothing.so.0");
        assertNotNull(missing, "dlopen and dlerror not found in the default lookup");
        assertTrue(missing.absent() && !missing.mayPass() && missing.text().startsWith("libnothing.so.0: "), missing.toString());
        // one that opens now is not called missing: a later attempt opens it
        assertEquals(new LoaderFailure("it opened when the loader was asked again", false, true),
                LoaderFailure.of("libzstd.so.1"));
    }
}
