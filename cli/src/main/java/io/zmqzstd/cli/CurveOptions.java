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
import java.util.Arrays;
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

    /**
     * How many characters shorter or longer than a key a line that is not read as one may be for the
     * line that says a key is missing to name it: a bare key mistyped, not a certificate's
     * {@code metadata} or {@code curve} line.
     */
    private static final int NEAR_KEY_CHARS = 10;

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

    /**
     * A key pair read from a file, as characters, never a String: {@link #close()} zeroes them.
     * Either half is null when the file lacks it; a bare key (one 40-character line) is both
     * halves, the same array.
     */
    static final class Keys implements AutoCloseable {
        private final char[] publicKey;
        private final char[] secretKey;
        private final String unread;

        private Keys(char[] publicKey, char[] secretKey, String unread) {
            this.publicKey = publicKey;
            this.secretKey = secretKey;
            this.unread = unread;
        }

        /**
         * What in the file was not read as a key, for the line that says a key is missing: the first
         * line of about a key's length that is neither a key entry nor a bare key (by its number and
         * length, never its text, which may be a secret key a character short), else the first
         * comment of about a key's length without a space (a key cut at its start to a '#'), or that
         * the file is empty; "" when none.
         */
        String unread() {
            return unread;
        }

        /** The public half, owned by this object (zeroed by {@link #close()}), or null. */
        char[] publicKey() {
            return publicKey;
        }

        /** The secret half, owned by this object (zeroed by {@link #close()}), or null. */
        char[] secretKey() {
            return secretKey;
        }

        /** Whether both halves are there and the same key: a bare key, or a file that gives one key twice. */
        boolean singleKey() {
            return publicKey != null && Arrays.equals(publicKey, secretKey);
        }

        @Override
        public void close() {
            wipe(publicKey);
            wipe(secretKey);
        }
    }

    private static void wipe(char[] chars) {
        if (chars != null) {
            Arrays.fill(chars, '\0');
        }
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
     * Parses a key file's text (read by {@link CurveSide}, at most {@link #MAX_KEY_FILE_BYTES}),
     * line by line as {@link String#lines()} splits it, without making a String of a key: the keys
     * are copied out of {@code text} into the arrays of the {@link Keys} returned, which the
     * caller closes. A bare key (one 40-character line) fills both halves: the caller knows which
     * half it asked for.
     */
    static Keys parse(CharSequence text) {
        char[] pub = null;
        char[] sec = null;
        char[] bare = null;
        String unread = text.isEmpty() ? "; the file is empty" : "";
        String commentUnread = "";
        Matcher m = ENTRY.matcher(text);
        int next = 0;
        int line = 0;
        while (next < text.length()) {
            line++;
            int end = next;
            while (end < text.length() && text.charAt(end) != '\n' && text.charAt(end) != '\r') {
                end++;
            }
            int start = next;
            next = end + (end + 1 < text.length() && text.charAt(end) == '\r' && text.charAt(end + 1) == '\n' ? 2 : 1);
            while (start < end && Character.isWhitespace(text.charAt(start))) { // String.strip's whitespace
                start++;
            }
            while (end > start && Character.isWhitespace(text.charAt(end - 1))) {
                end--;
            }
            if (start == end) {
                continue;
            }
            if (text.charAt(start) == '#') {
                // '#' is a Z85 character, but no key begins with it (a group of 5 led by '#', 84, stands for more than 32
                // bits), so a comment it stays; a key cut or changed at its start into such a line (its second character
                // '#') was skipped as a comment, and the line that said the key was missing named nothing
                if (commentUnread.isEmpty() && nearKey(text, start, end)) {
                    commentUnread = "; line " + line + " (" + (end - start) + " characters) begins with '#' and is read as a"
                            + " comment: no Z85 key begins with '#', so if it is a key, its start was cut or changed";
                }
                continue;
            }
            if (m.region(start, end).matches()) { // group() would be a String: the key is copied by index
                char[] value = copy(text, m.start(2), m.end(2));
                if (Character.toLowerCase(text.charAt(m.start(1))) == 'p') {
                    wipe(pub);
                    pub = value;
                } else {
                    wipe(sec);
                    sec = value;
                }
            } else if (end - start == Curve.Z85_KEY_CHARS && !contains(text, start, end, ' ')) {
                wipe(bare);
                bare = copy(text, start, end);
            } else if (unread.isEmpty() && Math.abs(end - start - Curve.Z85_KEY_CHARS) <= NEAR_KEY_CHARS) {
                // a bare key a character short or long, or cut by a space, was "no public key", as if none were there
                unread = "; line " + line + " (" + (end - start) + " characters" + (contains(text, start, end, ' ') ? " with a space" : "")
                        + ") is neither a key entry nor a bare Z85 key of " + Curve.Z85_KEY_CHARS + " characters";
            }
        }
        if (pub == null && sec == null && bare != null) {
            return new Keys(bare, bare, "");
        }
        wipe(bare);
        return new Keys(pub, sec, unread.isEmpty() ? commentUnread : unread);
    }

    /**
     * Whether the comment {@code text[start, end)} could be a bare key that begins with '#': about a
     * key's length, no space in it (a written comment has spaces; a key has none).
     */
    private static boolean nearKey(CharSequence text, int start, int end) {
        return Math.abs(end - start - Curve.Z85_KEY_CHARS) <= NEAR_KEY_CHARS && !contains(text, start, end, ' ');
    }

    private static char[] copy(CharSequence text, int start, int end) {
        char[] chars = new char[end - start];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = text.charAt(start + i);
        }
        return chars;
    }

    private static boolean contains(CharSequence text, int start, int end, char c) {
        for (int i = start; i < end; i++) {
            if (text.charAt(i) == c) {
                return true;
            }
        }
        return false;
    }

    /**
     * The key pair file format, what keygen writes and {@link #parse} reads, as characters the
     * caller zeroes: the secret key goes from the pair into them by way of arrays zeroed after, no
     * String of it is made.
     */
    static char[] formatKeyPair(Curve.KeyPair keys) {
        byte[] secret = keys.secretKeyBytes();
        char[] secretText = Curve.z85EncodeChars(secret);
        Arrays.fill(secret, (byte) 0);
        String publicLine = "public=" + keys.publicKey() + "\nsecret=";
        char[] text = new char[publicLine.length() + secretText.length + 1];
        publicLine.getChars(0, publicLine.length(), text, 0);
        System.arraycopy(secretText, 0, text, publicLine.length(), secretText.length);
        text[text.length - 1] = '\n';
        wipe(secretText);
        return text;
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
        try {
            return Curve.z85DecodeKey(key).length == Curve.KEY_BYTES;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
