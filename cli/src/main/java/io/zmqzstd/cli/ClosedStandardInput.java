package io.zmqzstd.cli;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Standard input closed when the command started ({@code zmq-zstd send <&-}, a daemon started with
 * descriptor 0 closed). The JVM then opens its own files from the lowest free descriptor, so 0 is
 * its module image ({@code lib/modules}) or the tool's jar, and reading standard input read that:
 * {@code send} sent the 145 MB module image as 944 555 messages and exited 0, and {@code train}
 * wrote a dictionary trained on it. Linux only ({@code /proc/self/fd}); elsewhere nothing is
 * checked. The same look at descriptor 0 tells {@code train} whether its {@code --out} is the
 * file standard input reads ({@link #readsFile}).
 */
final class ClosedStandardInput {

    private static final Path FDS = Path.of("/proc/self/fd");

    private ClosedStandardInput() {
    }

    /**
     * Fails with the one line that says so when {@code in} is this process's descriptor 0 and that
     * is a file the JVM opened for itself. A user who redirects that same file to standard input
     * ({@code send --whole < zmq-zstd.jar}) is told apart by the JVM's own descriptor for it: the
     * file is then open twice.
     */
    static void check(InputStream in) {
        String jvmFile = in instanceof FileInputStream f && isStandardInput(f) ? jvmFileAtZero() : null;
        if (jvmFile != null) {
            throw new CliException(ExitCodes.FAILURE, "cannot read standard input: error=it was closed when the command"
                    + " started (descriptor 0 is the JVM's own " + jvmFile + "); give the input with < FILE or a pipe,"
                    + " or < /dev/null for none");
        }
    }

    /**
     * Whether {@code in} is this process's descriptor 0 and that is the file {@code file} names
     * ({@code train --out samples.txt < samples.txt}). Linux only; elsewhere, and for a pipe, false.
     */
    static boolean readsFile(InputStream in, Path file) {
        if (!(in instanceof FileInputStream f && isStandardInput(f))) {
            return false;
        }
        Object key = fileKey(FDS.resolve("0"));
        return key != null && key.equals(fileKey(file));
    }

    private static boolean isStandardInput(FileInputStream f) {
        try {
            return f.getFD() == FileDescriptor.in;
        } catch (IOException e) {
            return false;
        }
    }

    /** The file at descriptor 0 when it is one the JVM opened for itself, else null. */
    private static String jvmFileAtZero() {
        try {
            Path zero = FDS.resolve("0");
            Object key = fileKey(zero);
            if (key == null || !jvmFiles().contains(key)) {
                return null;
            }
            try (DirectoryStream<Path> open = Files.newDirectoryStream(FDS)) {
                for (Path fd : open) {
                    if (!fd.getFileName().toString().equals("0") && key.equals(fileKey(fd))) {
                        return null; // the JVM holds it at a descriptor of its own: 0 is the user's redirect
                    }
                }
            }
            return Files.readSymbolicLink(zero).toString();
        } catch (IOException | RuntimeException e) {
            return null; // no /proc, or nothing we can tell: read what is there
        }
    }

    /** The files the JVM keeps open from its start: its module image and the jar it runs. */
    private static List<Object> jvmFiles() {
        List<Object> keys = new ArrayList<>();
        keys.add(fileKey(Path.of(System.getProperty("java.home"), "lib", "modules")));
        try {
            keys.add(fileKey(Path.of(ClosedStandardInput.class.getProtectionDomain().getCodeSource().getLocation().toURI())));
        } catch (java.net.URISyntaxException | RuntimeException e) {
            // no code source: the module image alone
        }
        keys.removeIf(java.util.Objects::isNull);
        return keys;
    }

    /** The (device, inode) of the file {@code path} leads to, or null. */
    private static Object fileKey(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
