package io.zmqzstd.nativelib.internal;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.security.SecureRandom;

/**
 * Writing a file whole or not at all: the codec's {@code ZstdDictionary.save} and the command-line
 * tool's {@code train --out} write dictionaries through it, which a reader cannot tell whole from
 * cut (a failed write in place, on a full disk or past a file size limit, left the start of one,
 * and the one before was gone). Not API.
 */
public final class WholeFiles {

    /** The most symbolic links followed to a target that does not exist yet: Linux's own limit (ELOOP past it). */
    private static final int MAX_LINKS = 40;

    /** Names of the files written beside a target: unique across threads and processes writing at once. */
    private static final SecureRandom TEMP_NAMES = new SecureRandom();

    private WholeFiles() {
    }

    /**
     * Writes {@code bytes} to {@code file} whole or not at all: into a new file beside its
     * {@link #destination}, which then takes its place (renamed, atomically where the file system
     * can; the permissions, owner and group of a file it replaces are kept where this process may
     * set them). Written through in place instead: a device or FIFO ({@code /dev/null}); any path
     * under {@code /dev} or {@code /proc} ({@code /dev/stdout} redirected to a file,
     * {@code /proc/self/fd/N}: the name of a file a descriptor holds open, which a rename would
     * leave on the old file, never written); and a target whose directory takes no new file.
     *
     * @throws IOException when the file cannot be written; a kernel file system's directory that
     *     refuses a new file (as ENOENT) is named as such, not as "no such file"
     */
    public static void write(Path file, byte[] bytes) throws IOException {
        Path given = file.toAbsolutePath().normalize();
        if (given.startsWith("/dev") || given.startsWith("/proc")) {
            Files.write(file, bytes);
            return;
        }
        Path target = destination(file);
        boolean replaces = Files.exists(target);
        if (replaces && !Files.isRegularFile(target)) {
            Files.write(target, bytes); // a device, FIFO or pipe: nothing to rename over
            return;
        }
        Path temp = target.toAbsolutePath().resolveSibling(
                "." + target.getFileName() + "." + Long.toUnsignedString(TEMP_NAMES.nextLong(), 36) + ".tmp");
        try {
            try {
                Files.write(temp, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            } catch (AccessDeniedException directoryTakesNoNewFile) {
                Files.write(target, bytes); // in place: the file may be writable where its directory is not
                return;
            } catch (NoSuchFileException e) {
                if (!Files.isDirectory(temp.getParent())) {
                    throw e;
                }
                // a kernel file system's directory (sysfs, as root) refuses a new file as ENOENT: "no such
                // file" would read as if the target, which is there, were not
                throw new FileSystemException(target.toString(), null, "its directory " + temp.getParent()
                        + " takes no new file (creating one there: no such file or directory)");
            }
            if (replaces) {
                keepAttributes(target, temp);
            }
            try {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                // the best such a file system offers: still never a cut file under the target's name
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * The file a write to {@code file} lands in: {@code file}'s real path when it is an existing
     * regular file; {@code file} itself when it is another existing kind (a device, FIFO or pipe, or
     * a link to one: {@code /dev/stderr} to a pipe has no real path); else, for a symbolic link whose
     * target is not there yet, that target, followed link by link (relative targets from the link's
     * directory), so that the rename lands there and the link stays a link; else {@code file}.
     *
     * @throws IOException when the links loop, or one cannot be read
     */
    public static Path destination(Path file) throws IOException {
        if (Files.exists(file)) {
            return Files.isRegularFile(file) ? file.toRealPath() : file;
        }
        Path p = file;
        for (int links = 0; Files.isSymbolicLink(p); links++) {
            if (links == MAX_LINKS) {
                throw new FileSystemException(file.toString(), null, "too many levels of symbolic links");
            }
            p = p.toAbsolutePath().resolveSibling(Files.readSymbolicLink(p));
        }
        return p;
    }

    /** Gives {@code copy} the permissions, owner and group of {@code original}, as far as this process may. */
    private static void keepAttributes(Path original, Path copy) {
        PosixFileAttributeView from = Files.getFileAttributeView(original, PosixFileAttributeView.class);
        PosixFileAttributeView to = Files.getFileAttributeView(copy, PosixFileAttributeView.class);
        if (from == null || to == null) {
            return;
        }
        try {
            PosixFileAttributes a = from.readAttributes();
            to.setPermissions(a.permissions());
            to.setGroup(a.group());
            to.setOwner(a.owner());
        } catch (IOException notAllowed) {
            // another user's file: the new one is this user's, with what could be set
        }
    }
}
