package io.zmqzstd.cli;

import io.zmqzstd.transport.Curve;
import io.zmqzstd.transport.ZmqSocket;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CURVE encryption and authentication options, shared by send and recv (a picocli mixin).
 *
 * <p>Either side may be the CURVE server (usually the one that binds): it holds a secret key.
 * The other side is a client that must know the server's public key; a client with a wrong
 * server key never completes the handshake, so nothing is sent or received (with --timeout the
 * command exits 3). The client's own key pair is made fresh for each run unless given.
 *
 * <p>Key files: the text {@link #formatKeyPair} writes ({@code public=...} and {@code secret=...}
 * lines, what {@code zmq-zstd keygen} makes), a czmq/zcert certificate ({@code public-key = "..."}),
 * or a file holding just one 40-character Z85 key.
 */
final class CurveOptions {

    private static final Pattern ENTRY = Pattern.compile(
            "(public|secret)(?:[-_]key)?\\s*[=:]\\s*\"?([^\"\\s]*)\"?", Pattern.CASE_INSENSITIVE);

    /**
     * The largest key file read: a zcert certificate with its comments and metadata is well under
     * 1 KiB, so a larger file is a wrong one.
     */
    static final int MAX_KEY_FILE_BYTES = 64 * 1024;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--curve-server",
            description = "Act as CURVE server (needs --curve-secret-key-file or --curve-keypair-file).")
    boolean server;

    @Option(names = "--curve-server-key", paramLabel = "KEY|@FILE",
            description = "Act as CURVE client of the server with this public key (Z85, 40 chars), or the key read from FILE"
                    + " (a valid key that begins with '@' is the key unless a file of that name exists).")
    String serverKey;

    @Option(names = "--curve-secret-key-file", paramLabel = "FILE",
            description = "This side's secret key (server).")
    Path secretKeyFile;

    @Option(names = "--curve-keypair-file", paramLabel = "FILE",
            description = "This side's key pair, as written by 'keygen --out' (server: its secret key is used; "
                    + "client: optional, a fresh pair otherwise).")
    Path keyPairFile;

    /** A key pair read from a file; either half may be null when the file lacks it. */
    record Keys(String publicKey, String secretKey) {
    }

    /**
     * Sets the CURVE options on {@code socket} (before bind/connect); does nothing when no CURVE
     * option was given.
     *
     * @throws ParameterException on contradictory options or unreadable/malformed keys (exit 2)
     */
    void apply(ZmqSocket socket) {
        if (server && serverKey != null) {
            throw usage("--curve-server and --curve-server-key exclude each other: one side is the server, the other the client");
        }
        if (server) {
            socket.curveServer(true);
            socket.curveSecretKey(ownSecretKey());
        } else if (serverKey != null) {
            String key = isKeyFileReference(serverKey) ? publicKeyFrom(Path.of(serverKey.substring(1))) : serverKey.trim();
            checkKey(key, "--curve-server-key");
            Curve.KeyPair own = ownClientKeys();
            socket.curveServerKey(key);
            socket.curvePublicKey(own.publicKey());
            socket.curveSecretKey(own.secretKey());
        } else if (secretKeyFile != null || keyPairFile != null) {
            throw usage("a CURVE key file needs --curve-server (this side is the server) or --curve-server-key (this side is a client)");
        }
    }

    /** True when this side is the CURVE server or a client. */
    boolean enabled() {
        return server || serverKey != null;
    }

    private String ownSecretKey() {
        if (secretKeyFile != null && keyPairFile != null) {
            throw usage("give either --curve-secret-key-file or --curve-keypair-file, not both");
        }
        Path file = secretKeyFile != null ? secretKeyFile : keyPairFile;
        if (file == null) {
            throw usage("--curve-server needs the server's secret key: --curve-secret-key-file FILE or --curve-keypair-file FILE");
        }
        Keys keys = read(file);
        String secret = keys.secretKey();
        if (secret == null) {
            throw usage("no secret key in file=" + file + " (expected a 'secret=' line or a bare Z85 key)");
        }
        checkKey(secret, "secret key in " + file);
        if (keys.publicKey() != null && !keys.publicKey().equals(secret)) {
            // a pair (a bare key fills both halves): clients take the public half from this file or its .pub
            checkKey(keys.publicKey(), "public key in " + file);
            requireMatchingPair(keys, secretKeyFile != null ? "--curve-secret-key-file" : "--curve-keypair-file", file);
        }
        return secret;
    }

    private Curve.KeyPair ownClientKeys() {
        if (secretKeyFile != null) {
            throw usage("a CURVE client needs its public key too: use --curve-keypair-file instead of --curve-secret-key-file");
        }
        if (keyPairFile == null) {
            return Curve.keypair();
        }
        Keys keys = read(keyPairFile);
        if (keys.publicKey() == null || keys.secretKey() == null) {
            throw usage("a key pair file needs 'public=' and 'secret=' lines: file=" + keyPairFile);
        }
        checkKey(keys.publicKey(), "public key in " + keyPairFile);
        checkKey(keys.secretKey(), "secret key in " + keyPairFile);
        requireMatchingPair(keys, "--curve-keypair-file", keyPairFile);
        return new Curve.KeyPair(keys.publicKey(), keys.secretKey());
    }

    /**
     * Refuses a key pair whose public half is not the secret half's (zmq_curve_public): libzmq
     * takes such a pair and the CURVE handshake then fails, with nothing to tell either side why.
     */
    private void requireMatchingPair(Keys keys, String option, Path file) {
        if (keys.publicKey().equals(keys.secretKey())) {
            throw usage(option + " needs a key pair, but file=" + file + " holds a single key (expected 'public=' and 'secret=' lines)");
        }
        String derived = Curve.publicKey(keys.secretKey());
        if (!derived.equals(keys.publicKey())) {
            throw usage(option + ": the public and secret keys in file=" + file + " do not match: public=" + keys.publicKey()
                    + ", but the secret key's public key is " + derived + " (the CURVE handshake would fail)");
        }
    }

    private String publicKeyFrom(Path file) {
        String key = read(file).publicKey();
        if (key == null) {
            throw usage("no public key in file=" + file + " (expected a 'public=' line or a bare Z85 key)");
        }
        return key;
    }

    /**
     * Reads a key file. A bare key (one 40-character line) fills both halves: the caller knows
     * which half it asked for.
     */
    private Keys read(Path file) {
        String text;
        try (InputStream in = Files.newInputStream(file)) {
            // not Files.readAllLines: a wrong file (/dev/zero, a log) would be read whole, into OutOfMemoryError
            byte[] bytes = in.readNBytes(MAX_KEY_FILE_BYTES + 1);
            if (bytes.length > MAX_KEY_FILE_BYTES) {
                throw cannotReadKeyFile(file, "larger than a key file may be: limit=" + MAX_KEY_FILE_BYTES
                        + " bytes (is it the right file?)");
            }
            for (int i = 0; i < bytes.length; i++) {
                if (bytes[i] < 0) {
                    // Z85 keys and the key=value lines around them are ASCII: a binary file is the wrong file
                    throw cannotReadKeyFile(file, String.format(Locale.ROOT,
                            "not a text key file: a byte that is not ASCII at offset=%d (0x%02X)", i, bytes[i] & 0xFF));
                }
            }
            text = new String(bytes, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw cannotReadKeyFile(file, Main.describe(e));
        }
        return parse(text.lines().toList());
    }

    private ParameterException cannotReadKeyFile(Path file, String error) {
        return usage("cannot read key file: file=" + file + ", error=" + error);
    }

    static Keys parse(List<String> lines) {
        String pub = null;
        String sec = null;
        String bare = null;
        for (String raw : lines) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = ENTRY.matcher(line);
            if (m.matches()) {
                if (m.group(1).equalsIgnoreCase("public")) {
                    pub = m.group(2);
                } else {
                    sec = m.group(2);
                }
            } else if (line.length() == Curve.Z85_KEY_CHARS && !line.contains(" ")) {
                bare = line;
            }
        }
        if (pub == null && sec == null && bare != null) {
            return new Keys(bare, bare);
        }
        return new Keys(pub, sec);
    }

    /** The key pair file format: what keygen writes and {@link #parse} reads. */
    static String formatKeyPair(Curve.KeyPair keys) {
        return "public=" + keys.publicKey() + "\nsecret=" + keys.secretKey() + "\n";
    }

    /**
     * Whether a {@code --curve-server-key} value names a file ({@code @FILE}) rather than being the
     * key. '@' is one of Z85's characters, so one key in 85 begins with it: a value that is a whole
     * valid key is the key, unless a file of that name (without the '@') exists.
     */
    static boolean isKeyFileReference(String value) {
        if (!value.startsWith("@")) {
            return false;
        }
        if (!isKey(value)) {
            return true;
        }
        try {
            return Files.exists(Path.of(value.substring(1)));
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /** 40 Z85 characters that decode to a 32-byte key. */
    static boolean isKey(String key) {
        if (key.length() != Curve.Z85_KEY_CHARS) {
            return false;
        }
        try {
            return Curve.z85Decode(key).length == Curve.KEY_BYTES;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private void checkKey(String key, String what) {
        if (key.length() != Curve.Z85_KEY_CHARS) {
            throw usage("invalid CURVE key (" + what + "): expected " + Curve.Z85_KEY_CHARS
                    + " Z85 characters, length=" + key.length());
        }
        try {
            Curve.z85Decode(key);
        } catch (IllegalArgumentException e) {
            // the right length, so the alphabet or a group's value is wrong: say which (one character, no key)
            throw usage("invalid CURVE key (" + what + "): " + e.getMessage().replaceFirst("^z85 text: ", ""));
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
