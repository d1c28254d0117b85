package io.zmqzstd.transport.internal;

import java.io.IOError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;

/**
 * The file an {@code ipc://} endpoint names, as libzmq takes it. Not API: shared by the
 * transport's ipc bind checks and the command-line tool's check of endpoints given twice, and
 * {@link SocketFile}, which tells one socket file from another made later at the same path.
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

    /**
     * One socket file: its device and inode ({@link BasicFileAttributes#fileKey()}) and when it was
     * made (its modification time, which a connect leaves alone), as an inode number freed may be
     * given to the next file made.
     *
     * @param fileKey  the file's device and inode
     * @param modified its modification time
     */
    public record SocketFile(Object fileKey, FileTime modified) {

        /**
         * The socket file at {@code path}, a symbolic link not followed.
         *
         * @param path as libzmq takes it (relative to the working directory, not normalised)
         * @return null when there is none, something else is there, or it cannot be told which
         */
        public static SocketFile at(Path path) {
            try {
                BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                return attributes.isOther() && attributes.fileKey() != null
                        ? new SocketFile(attributes.fileKey(), attributes.lastModifiedTime()) : null;
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
    }
}
