package io.zmqzstd.cli;

import io.zmqzstd.transport.Curve;
import io.zmqzstd.transport.ZmqSocket;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.CharBuffer;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * One socket's CURVE role, from the values of four options: server ({@code --curve-server} with a
 * secret key file), client ({@code --curve-server-key}, with an optional key pair file of its own)
 * or none. send and recv have one such side ({@link CurveOptions}), the proxy two
 * ({@link ProxyCurveOptions}); this class reads and checks the keys for all of them and sets them
 * on the socket, and its usage errors (exit 2) name the options as the user typed them
 * ({@link Names}).
 *
 * <p>Key files are read here (at most {@link CurveOptions#MAX_KEY_FILE_BYTES}, ASCII after an optional
 * UTF-8 byte-order mark) and parsed by
 * {@link CurveOptions#parse}, in any of the formats listed there. A secret key is never a String
 * here: read into bytes and characters, decoded into binary, set by
 * {@link ZmqSocket#curveSecretKeyBytes(byte[])}, each array zeroed once done with.
 */
final class CurveSide {

    /**
     * The names of one side's four options, for messages.
     *
     * @param fileOptionInMessages whether a message about a key file's content or reading starts
     *                             with the option that named the file: the proxy's, where two
     *                             options of each kind exist; send's and recv's lines name the file
     *                             only, as they always have
     */
    record Names(String server, String serverKey, String secretKeyFile, String keyPairFile, boolean fileOptionInMessages) {

        /** The names {@code PREFIXcurve-server} and so on, e.g. {@code --frontend-curve-server} for prefix {@code --frontend-}. */
        static Names withPrefix(String prefix, boolean fileOptionInMessages) {
            return new Names(prefix + "curve-server", prefix + "curve-server-key", prefix + "curve-secret-key-file",
                    prefix + "curve-keypair-file", fileOptionInMessages);
        }
    }

    /** The UTF-8 byte-order mark (U+FEFF), which a key file may start with: skipped. */
    private static final byte[] UTF8_BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

    /** UTF-16's byte-order marks, little- and big-endian: a key file that starts with one is UTF-16 text, refused as such. */
    private static final byte[] UTF16_LE_BOM = {(byte) 0xFF, (byte) 0xFE};
    private static final byte[] UTF16_BE_BOM = {(byte) 0xFE, (byte) 0xFF};

    private final CommandLine commandLine;
    private final Names names;
    private final boolean server;
    private final String serverKey;
    private final Path secretKeyFile;
    private final Path keyPairFile;

    /**
     * @param commandLine   the command whose usage errors these are
     * @param server        the server option was given
     * @param serverKey     the server key option's value ({@code KEY} or {@code @FILE}), or null
     * @param secretKeyFile the secret key file option's value, or null
     * @param keyPairFile   the key pair file option's value, or null
     */
    CurveSide(CommandLine commandLine, Names names, boolean server, String serverKey, Path secretKeyFile, Path keyPairFile) {
        this.commandLine = commandLine;
        this.names = names;
        this.server = server;
        this.serverKey = serverKey;
        this.secretKeyFile = secretKeyFile;
        this.keyPairFile = keyPairFile;
    }

    /** True when this side is the CURVE server or a client. */
    boolean enabled() {
        return server || serverKey != null;
    }

    /**
     * The peers a socket type takes ({@code typePeers}), as the warning of a connection dropped
     * during its handshake names them; with CURVE on ({@code curve}), a key that does not fit
     * drops it the same way (the client sees no reason).
     */
    static String peers(String typePeers, boolean curve) {
        return curve ? typePeers + "; or, with CURVE, a peer whose key does not fit" : typePeers;
    }

    /**
     * Sets the CURVE options on {@code socket} (before bind/connect); does nothing when no CURVE
     * option was given. The same as {@code resolve().accept(socket)}.
     *
     * @throws ParameterException on contradictory options or unreadable/malformed keys (exit 2)
     */
    void apply(ZmqSocket socket) {
        resolve().accept(socket);
    }

    /**
     * Reads and checks the keys now, before any socket exists, and returns what sets them on a
     * socket (before it binds or connects); it sets nothing when no CURVE option was given.
     *
     * @throws ParameterException on contradictory options or unreadable/malformed keys (exit 2)
     */
    Consumer<ZmqSocket> resolve() {
        if (server && serverKey != null) {
            throw usage(names.server() + " and " + names.serverKey()
                    + " exclude each other: one side is the server, the other the client");
        }
        if (server) {
            byte[] secret = ownSecretKey();
            return socket -> { // each side's socket is set once
                try {
                    socket.curveServer(true);
                    socket.curveSecretKeyBytes(secret);
                } finally {
                    Arrays.fill(secret, (byte) 0);
                }
            };
        }
        if (serverKey != null) {
            boolean fromFile = CurveOptions.isKeyFileReference(serverKey);
            if (fromFile && serverKey.length() == 1) {
                // Path.of("") is the working directory: "cannot read key file: file=, error=Is a directory"
                throw usage("Invalid value for option '" + names.serverKey() + "': empty path after '@': give @FILE,"
                        + " e.g. @server.key.pub, or the key");
            }
            String directory = fromFile ? Values.directoryName(serverKey.substring(1), true) : null;
            if (directory != null) {
                // Path.of drops the '/': @server.key.pub/ read server.key.pub, which open(2) refuses
                throw usage("Invalid value for option '" + names.serverKey() + "': " + directory);
            }
            Path keyFile = fromFile ? Path.of(serverKey.substring(1)) : null;
            String key = fromFile ? publicKeyFrom(keyFile) : serverKey.trim();
            if (!fromFile && !CurveOptions.isKey(key) && isFile(serverKey)) {
                // a key file named without its '@' was only "expected 40 Z85 characters, length=15"
                throw usage("invalid CURVE key (" + names.serverKey() + "): " + serverKey + " is a file, not a key;"
                        + " give @" + serverKey + " to read the server's public key from it");
            }
            // a key from a file is named by the file, as a secret key is: "(--curve-server-key)" did not say which file
            checkKey(key, fromFile ? names.serverKey() : null, fromFile ? "public key in " + keyFile : names.serverKey());
            OwnKeys own = ownClientKeys();
            return socket -> { // each side's socket is set once
                try {
                    socket.curveServerKey(key);
                    socket.curvePublicKey(own.publicKey());
                    socket.curveSecretKeyBytes(own.secretKey());
                } finally {
                    Arrays.fill(own.secretKey(), (byte) 0);
                }
            };
        }
        if (secretKeyFile != null || keyPairFile != null) {
            throw usage("a CURVE key file needs " + names.server() + " (this side is the server) or " + names.serverKey()
                    + " (this side is a client)");
        }
        return socket -> { };
    }

    /** The server's secret key in binary, in a new array the caller zeroes. */
    private byte[] ownSecretKey() {
        if (secretKeyFile != null && keyPairFile != null) {
            throw usage("give either " + names.secretKeyFile() + " or " + names.keyPairFile() + ", not both");
        }
        Path file = secretKeyFile != null ? secretKeyFile : keyPairFile;
        if (file == null) {
            throw usage(names.server() + " needs the server's secret key: " + names.secretKeyFile() + " FILE or "
                    + names.keyPairFile() + " FILE");
        }
        String option = secretKeyFile != null ? names.secretKeyFile() : names.keyPairFile();
        try (CurveOptions.Keys keys = read(file, option)) {
            if (keys.secretKey() == null) {
                throw fileUsage(option, "no secret key in file=" + file + " (expected a 'secret=' line or a bare Z85 key"
                        + keys.unread() + ")");
            }
            byte[] secret = checkKey(CharBuffer.wrap(keys.secretKey()), option, "secret key in " + file);
            try {
                if (keys.publicKey() != null && !keys.singleKey()) {
                    // a pair (a bare key fills both halves): clients take the public half from this file or its .pub
                    requireMatchingPair(keys, secret, option, file);
                }
                return secret;
            } catch (RuntimeException e) {
                Arrays.fill(secret, (byte) 0);
                throw e;
            }
        }
    }

    /** A client's own key pair: the public key in Z85, the secret key in binary (the caller zeroes it). */
    private record OwnKeys(String publicKey, byte[] secretKey) {
    }

    private OwnKeys ownClientKeys() {
        if (secretKeyFile != null) {
            throw usage("a CURVE client needs its public key too: use " + names.keyPairFile() + " instead of "
                    + names.secretKeyFile());
        }
        if (keyPairFile == null) {
            byte[] publicKey = new byte[Curve.KEY_BYTES];
            byte[] secretKey = new byte[Curve.KEY_BYTES];
            Curve.keypair(publicKey, secretKey);
            return new OwnKeys(Curve.z85Encode(publicKey), secretKey);
        }
        String option = names.keyPairFile();
        try (CurveOptions.Keys keys = read(keyPairFile, option)) {
            if (keys.publicKey() == null || keys.secretKey() == null) {
                throw fileUsage(option, "a key pair file needs 'public=' and 'secret=' lines: file=" + keyPairFile
                        + keys.unread());
            }
            Arrays.fill(checkKey(CharBuffer.wrap(keys.publicKey()), option, "public key in " + keyPairFile), (byte) 0);
            byte[] secret = checkKey(CharBuffer.wrap(keys.secretKey()), option, "secret key in " + keyPairFile);
            try {
                requireMatchingPair(keys, secret, option, keyPairFile);
                return new OwnKeys(new String(keys.publicKey()), secret);
            } catch (RuntimeException e) {
                Arrays.fill(secret, (byte) 0);
                throw e;
            }
        }
    }

    /**
     * Refuses a key pair whose public half is not the secret half's (zmq_curve_public): libzmq
     * takes such a pair and the CURVE handshake then fails, with nothing to tell either side why.
     * {@code secret} is the secret half already decoded, which the caller owns.
     */
    private void requireMatchingPair(CurveOptions.Keys keys, byte[] secret, String option, Path file) {
        if (keys.singleKey()) {
            throw usage(option + " needs a key pair, but file=" + file + " holds a single key (expected 'public=' and 'secret=' lines)");
        }
        byte[] given = checkKey(CharBuffer.wrap(keys.publicKey()), option, "public key in " + file);
        byte[] derived = Curve.publicKeyBytes(secret);
        if (!Arrays.equals(derived, given)) { // public keys both: Strings of them are no secret
            throw usage(option + ": the public and secret keys in file=" + file + " do not match: public="
                    + new String(keys.publicKey()) + ", but the secret key's public key is " + Curve.z85Encode(derived)
                    + " (the CURVE handshake would fail)");
        }
    }

    private static boolean isFile(String name) {
        try {
            return Files.isRegularFile(Path.of(name));
        } catch (InvalidPathException e) {
            return false;
        }
    }

    private String publicKeyFrom(Path file) {
        try (CurveOptions.Keys keys = read(file, names.serverKey())) {
            if (keys.secretKey() != null && !keys.singleKey()) {
                // keygen's FILE (or a zcert's FILE_secret): its public half would do, but the user is about to copy the
                // server's secret key to a client; a bare key (both halves) cannot be told from a public one
                throw usage("Invalid value for option '" + names.serverKey() + "': file=" + file + " holds a secret key,"
                        + " which a client must not have: give the server's public key file, @"
                        + publicKeyFile(file) + ", and keep " + file + " on the server");
            }
            if (keys.publicKey() == null) {
                throw fileUsage(names.serverKey(), "no public key in file=" + file + " (expected a 'public=' line or a bare Z85 key"
                        + keys.unread() + ")");
            }
            return new String(keys.publicKey()); // a public key, no secret
        }
    }

    /**
     * The file that holds the public half of the secret key file {@code file}: czmq's {@code zcert_save}
     * writes a certificate's secret key to {@code NAME_secret} beside its public {@code NAME}; keygen writes
     * {@code FILE} and {@code FILE.pub}.
     */
    private static Path publicKeyFile(Path file) {
        String name = file.getFileName().toString();
        String suffix = "_secret";
        return name.endsWith(suffix) && name.length() > suffix.length()
                ? file.resolveSibling(name.substring(0, name.length() - suffix.length()))
                : KeygenCommand.publicKeyFile(file);
    }

    /**
     * Reads the key file {@code option} names, by way of a byte and a char array zeroed after,
     * never a String (the file may hold a secret key). A bare key (one 40-character line) fills
     * both halves: the caller knows which half it asked for, and closes the keys once done.
     */
    private CurveOptions.Keys read(Path file, String option) {
        byte[] bytes = null;
        try (InputStream in = Files.newInputStream(file)) {
            // not Files.readAllLines: a wrong file (/dev/zero, a log) would be read whole, into OutOfMemoryError
            bytes = in.readNBytes(CurveOptions.MAX_KEY_FILE_BYTES + 1);
            if (bytes.length > CurveOptions.MAX_KEY_FILE_BYTES) {
                throw cannotReadKeyFile(file, option, "larger than a key file may be: limit=" + CurveOptions.MAX_KEY_FILE_BYTES
                        + " bytes (is it the right file?)");
            }
            if (startsWith(bytes, UTF16_LE_BOM) || startsWith(bytes, UTF16_BE_BOM)) {
                // Windows editors' "Unicode": every other byte is 0, which read as ASCII would be no key at all
                throw cannotReadKeyFile(file, option, String.format(Locale.ROOT, "not a text key file in ASCII or UTF-8: it"
                        + " starts with a UTF-16 byte-order mark (0x%02X 0x%02X), so it is UTF-16 text; save it as ASCII or"
                        + " UTF-8", bytes[0] & 0xFF, bytes[1] & 0xFF));
            }
            // a UTF-8 byte-order mark, which Windows editors put first, is no part of the text: skipped, as UTF-8 readers do
            int start = startsWith(bytes, UTF8_BOM) ? UTF8_BOM.length : 0;
            for (int i = start; i < bytes.length; i++) {
                if (bytes[i] < 0) {
                    // Z85 keys and the key=value lines around them are ASCII: a binary file is the wrong file
                    throw cannotReadKeyFile(file, option, String.format(Locale.ROOT,
                            "not a text key file: a byte that is not ASCII at offset=%d (0x%02X)", i, bytes[i] & 0xFF));
                }
            }
            char[] text = new char[bytes.length - start];
            for (int i = 0; i < text.length; i++) {
                text[i] = (char) bytes[start + i]; // ASCII, checked above
            }
            try {
                return CurveOptions.parse(CharBuffer.wrap(text));
            } finally {
                Arrays.fill(text, '\0');
            }
        } catch (IOException e) {
            throw cannotReadKeyFile(file, option, Main.describe(e));
        } finally {
            if (bytes != null) {
                Arrays.fill(bytes, (byte) 0);
            }
        }
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    private ParameterException cannotReadKeyFile(Path file, String option, String error) {
        return fileUsage(option, "cannot read key file: file=" + file + ", error=" + error);
    }

    /**
     * The binary form (a new array the caller zeroes) of a key from the file {@code option} named
     * ({@code what}: which half, in which file), or, with a null {@code option}, one given on the
     * command line ({@code what}: the option).
     */
    private byte[] checkKey(CharSequence key, String option, String what) {
        if (key.length() != Curve.Z85_KEY_CHARS) {
            throw fileUsage(option, "invalid CURVE key (" + what + "): expected " + Curve.Z85_KEY_CHARS
                    + " Z85 characters, length=" + key.length());
        }
        try {
            return Curve.z85DecodeKey(key);
        } catch (IllegalArgumentException e) {
            // the right length, so the alphabet or a group's value is wrong: say which (one character, no key)
            throw fileUsage(option, "invalid CURVE key (" + what + "): " + e.getMessage().replaceFirst("^Z85 key: ", ""));
        }
    }

    /** A problem with the file {@code option} names (null: none), prefixed with the option where {@link Names} asks for it. */
    private ParameterException fileUsage(String option, String message) {
        return usage(option != null && names.fileOptionInMessages() ? option + ": " + message : message);
    }

    private ParameterException usage(String message) {
        return new ParameterException(commandLine, message);
    }
}
