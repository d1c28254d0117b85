package io.zmqzstd.nativelib.internal;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * An I/O failure in a few words, for the "error=" of a message that names its file already: the
 * codec's dictionary files and the cli's. Not API.
 */
public final class IoErrors {

    private IoErrors() {
    }

    /**
     * What went wrong, without exception class names ("no such file", "permission denied", or the
     * system's reason, "Is a directory").
     *
     * @param e the failure, or null
     * @return a few words
     */
    public static String describe(Throwable e) {
        return switch (e) {
            case NoSuchFileException x -> "no such file";
            case AccessDeniedException x -> "permission denied";
            case FileAlreadyExistsException x -> "file exists";
            case NotDirectoryException x -> "not a directory";
            // its message is "PATH: REASON", and every caller names the file already
            case FileSystemException x when x.getReason() != null -> x.getReason();
            case null -> "unknown";
            default -> e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        };
    }
}
