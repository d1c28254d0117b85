package io.zmqzstd.transport.internal;

import java.io.IOError;
import java.nio.file.Path;

/**
 * The file an {@code ipc://} endpoint names, as libzmq takes it. Not API: shared by the
 * transport's ipc bind checks and the command-line tool's check of endpoints given twice.
 */
public final class IpcPaths {

    private static final String IPC = "ipc://";

    private IpcPaths() {
    }

    /**
     * The file an ipc endpoint names, absolute and normalised (libzmq takes a relative one from the
     * working directory), so that two spellings of one file compare equal.
     *
     * @param endpoint any endpoint
     * @return null for another transport, {@code ipc://*} (a fresh path), an abstract
     *     {@code ipc://@NAME}, or a name that is no path here (a NUL character, which libzmq
     *     refuses, or no working directory to tell)
     */
    public static Path file(String endpoint) {
        if (!endpoint.startsWith(IPC)) {
            return null;
        }
        String name = endpoint.substring(IPC.length());
        if (name.isEmpty() || name.equals("*") || name.startsWith("@")) {
            return null;
        }
        try {
            return Path.of(name).toAbsolutePath().normalize();
        } catch (RuntimeException | IOError e) {
            return null; // InvalidPathException, or no working directory
        }
    }
}
