package io.zmqzstd.cli;

import io.zmqzstd.transport.Curve;
import io.zmqzstd.transport.ZmqSocket;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CURVE encryption and authentication options, shared by send and recv (a picocli mixin), and the
 * key file format. What the options do (reading and checking the keys, setting them on the socket,
 * the usage errors) is {@link CurveSide}'s, which the proxy's two sides ({@link ProxyCurveOptions})
 * use too.
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

    /** The names of the options below, as messages name them (a key file's problems by the file alone, as always). */
    private static final CurveSide.Names NAMES = CurveSide.Names.withPrefix("--", false);

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
        new CurveSide(spec.commandLine(), NAMES, server, serverKey, secretKeyFile, keyPairFile).apply(socket);
    }

    /** True when this side is the CURVE server or a client. */
    boolean enabled() {
        return server || serverKey != null;
    }

    /** The peers a socket type takes, as a dropped handshake's warning names them, with CURVE's cause when it is on. */
    String peers(String typePeers) {
        return CurveSide.peers(typePeers, enabled());
    }

    /**
     * Parses the lines of a key file (read by {@link CurveSide}, at most {@link #MAX_KEY_FILE_BYTES}).
     * A bare key (one 40-character line) fills both halves: the caller knows which half it asked for.
     */
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
}
