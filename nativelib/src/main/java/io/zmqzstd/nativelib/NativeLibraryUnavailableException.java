package io.zmqzstd.nativelib;

/**
 * A native library zmq-zstd needs could not be opened. The message is one sentence that names
 * what was tried and, when the library was missing, unusable or too old, the version zmq-zstd
 * needs, the package to install and the system property that points at another file; when the
 * loader could not open a library that is there, the loader's reason (e.g. "Too many open files").
 */
public final class NativeLibraryUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the one sentence to show the user
     */
    public NativeLibraryUnavailableException(String message) {
        super(message);
    }
}
