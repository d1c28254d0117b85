package io.zmqzstd.cli;

import io.zmqzstd.transport.Curve;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

/** {@code keygen}: a CURVE key pair in Z85 text, for the --curve-* options of send and recv and the proxy's per side. */
@Command(name = "keygen", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Make a CURVE key pair (Z85 text). Without --out, print it: 'public=...' and 'secret=...' lines.",
                "With --out FILE, write the pair to FILE (readable by you only) and the public key to FILE.pub,"
                        + " and print the public key. The server uses FILE (--curve-keypair-file); clients need only"
                        + " the public key (--curve-server-key KEY or @FILE.pub)."},
        exitCodeListHeading = "%nExit codes:%n", exitCodeList = {ExitCodes.HELP_OK,
                "1:Runtime failure: cannot write FILE (or it exists and --force is not given).", ExitCodes.HELP_USAGE})
final class KeygenCommand implements Callable<Integer> {

    /** What keygen adds to {@code --out FILE} for the public key's file. */
    private static final String PUBLIC_SUFFIX = ".pub";

    @Spec
    CommandSpec spec;

    @Option(names = "--out", paramLabel = "FILE", converter = Values.OutputFile.class, description = "Write the key pair to FILE"
            + " and the public key to FILE.pub (FILE holds the secret key: a name ending in .pub is refused).")
    Path out;

    @Option(names = "--force", description = "With --out: overwrite existing files (regular files only: never a directory,"
            + " a symbolic link, a device, a FIFO or a socket).")
    boolean force;

    @Override
    public Integer call() {
        if (force && out == null) {
            // printed keys overwrite nothing: the user may have meant --out and would otherwise not hear of it
            throw new ParameterException(spec.commandLine(), "--force needs --out FILE: without --out the keys are printed,"
                    + " and there is no file to overwrite");
        }
        if (out != null) {
            refusePublicKeyName(out);
        }
        // no String of the secret key: the pair holds it as characters, formatted into an array zeroed once written
        Curve.KeyPair keys = Curve.keypair();
        try {
            return out == null ? print(keys) : writeFiles(keys);
        } finally {
            keys.destroy();
        }
    }

    private Integer print(Curve.KeyPair keys) {
        char[] text = CurveOptions.formatKeyPair(keys);
        try {
            System.out.print(text); // print(char[]) encodes the characters as they are: no String is made
        } finally {
            Arrays.fill(text, '\0');
        }
        checkStandardOutput();
        return ExitCodes.OK;
    }

    private Integer writeFiles(Curve.KeyPair keys) {
        Path pub = publicKeyFile(out);
        for (Path file : new Path[] {out, pub}) {
            if (Files.isSymbolicLink(file)) {
                // --force deleted the link and wrote a new file in its place, the link's target untouched; writing through
                // it instead would put the secret key wherever the link points, keeping that file's owner and permissions
                throw cannotWrite(file, linkProblem(file), null);
            }
            String problem = Main.outputProblem(file);
            if (problem != null) {
                throw cannotWrite(file, problem, null);
            }
            if (!force && Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                // both checked before either is written: a new secret key beside an old FILE.pub is a pair that does not match
                throw fileExists(file, null);
            }
            if (isSpecialFile(file)) {
                // --force deletes what is there: run as root, "--out /dev/null --force" deleted the device node
                throw cannotWrite(file, "is a special file (a device, FIFO or socket), which --force does not replace", null);
            }
        }
        write(out, CurveOptions.formatKeyPair(keys), true);
        try {
            write(pub, ("public=" + keys.publicKey() + "\n").toCharArray(), false);
        } catch (CliException e) {
            // a secret key without its public half is not the pair asked for, and a second run refused it as "file exists"
            throw removed(out, e);
        }
        System.out.println(keys.publicKey());
        checkStandardOutput();
        return ExitCodes.OK;
    }

    /**
     * Refuses an {@code --out} named as a public key file: {@code --out server.key.pub} wrote the pair,
     * secret key included, into {@code server.key.pub}, the file a user hands to clients, and the public
     * key into {@code server.key.pub.pub}.
     */
    private void refusePublicKeyName(Path file) {
        String name = file.getFileName().toString();
        if (!name.toLowerCase(Locale.ROOT).endsWith(PUBLIC_SUFFIX)) {
            return;
        }
        String base = name.substring(0, name.length() - PUBLIC_SUFFIX.length());
        String instead = base.isEmpty() ? "a name without it, e.g. --out server.key, which writes server.key and server.key.pub"
                : "--out " + file.resolveSibling(base) + ", which writes " + file.resolveSibling(base) + " and "
                        + publicKeyFile(file.resolveSibling(base));
        throw new ParameterException(spec.commandLine(), "Invalid value for option '--out': '" + file + "' ends with '"
                + name.substring(base.length()) + "', the name of a public key file, but FILE gets the key pair, its secret"
                + " key included (the public key goes to FILE.pub, here " + publicKeyFile(file).getFileName() + "): give "
                + instead);
    }

    /** Where {@code --out FILE} puts the public key: {@code FILE.pub}, beside FILE. */
    static Path publicKeyFile(Path out) {
        return out.resolveSibling(out.getFileName() + PUBLIC_SUFFIX);
    }

    /** PrintStream swallows write errors: a key pair printed into a full disk or a closed pipe is lost, not written. */
    static void checkStandardOutput() {
        System.out.flush();
        if (System.out.checkError()) {
            throw new CliException(ExitCodes.FAILURE, "cannot write standard output (full disk or closed pipe?)");
        }
    }

    /** Why keygen writes no key file at the symbolic link {@code file}, with what to give instead. */
    private String linkProblem(Path file) {
        String target;
        try {
            target = " to " + Files.readSymbolicLink(file);
        } catch (IOException unreadable) {
            target = "";
        }
        return "is a symbolic link" + target + ", which keygen neither writes through nor replaces"
                + (file.equals(out) ? ": give --out the target's path" : ": give --out a FILE whose FILE.pub is not a link");
    }

    /** Whether {@code file} itself (a link not followed) is neither a regular file, a directory nor a symbolic link. */
    private static boolean isSpecialFile(Path file) {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther();
        } catch (IOException nothingThere) {
            return false; // created below, or the write says why not
        }
    }

    /** Writes {@code text}, ASCII, into the new {@code file}; zeroes {@code text} and the bytes made of it. */
    private void write(Path file, char[] text, boolean secret) {
        byte[] bytes = new byte[text.length];
        for (int i = 0; i < text.length; i++) {
            bytes[i] = (byte) text[i]; // Z85 and the key file's words are ASCII
        }
        Arrays.fill(text, '\0');
        try (SeekableByteChannel channel = create(file, secret)) {
            // written through the descriptor create opened, not reopened by name: a link put in its place meanwhile is not followed
            ByteBuffer rest = ByteBuffer.wrap(bytes);
            while (rest.hasRemaining()) {
                channel.write(rest);
            }
        } catch (IOException e) {
            // created and cut short (a full disk, a file size limit): no key, and a second run refused it as "file exists"
            throw removed(file, cannotWrite(file, Main.describe(e), e));
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }

    /**
     * Creates the empty {@code file}, owner-only when it is to hold the secret key, and opens it for
     * writing; the caller closes the channel. CREATE_NEW (O_EXCL) follows no link.
     */
    private SeekableByteChannel create(Path file, boolean secret) {
        try {
            if (force) {
                Files.deleteIfExists(file);
            }
            Set<OpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            // Created with owner-only permissions from the start: the secret is never readable by others.
            if (secret && file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                return Files.newByteChannel(file, options,
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            return Files.newByteChannel(file, options);
        } catch (FileAlreadyExistsException e) {
            throw fileExists(file, e);
        } catch (IOException e) {
            throw cannotWrite(file, Main.describe(e), e);
        }
    }

    /** Removes {@code file}, which this run wrote and which is not what was asked for; returns {@code failure} to throw. */
    private static CliException removed(Path file, CliException failure) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException leftBehind) {
            failure.addSuppressed(leftBehind);
        }
        return failure;
    }

    private static CliException fileExists(Path file, IOException cause) {
        return new CliException(ExitCodes.FAILURE, "file exists: file=" + file + " (use --force to overwrite)", cause);
    }

    private static CliException cannotWrite(Path file, String error, IOException cause) {
        return new CliException(ExitCodes.FAILURE, "cannot write key file: file=" + file + ", error=" + error, cause);
    }
}
