package io.zmqzstd.transport;

import io.zmqzstd.nativelib.NativeLibrary;
import io.zmqzstd.transport.internal.LibZmq;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.CharBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import javax.security.auth.Destroyable;

/**
 * CURVE key pairs and Z85 text encoding. Keys are 32 bytes; their Z85 form is 40 characters.
 *
 * <p>Server: {@code socket.curveServer(true); socket.curveSecretKey(server.secretKey());}.
 * Client: {@code curveServerKey(server.publicKey())}, plus its own {@code curvePublicKey} and
 * {@code curveSecretKey}. All before bind/connect.
 *
 * <p>libzmq 4.3.4 takes any keys, and with some every handshake fails, which only a monitor tells
 * of ({@link MonitorEvent.Type#HANDSHAKE_FAILED_PROTOCOL} on the server,
 * {@link MonitorEvent.Type#HANDSHAKE_FAILED_NO_DETAIL} on the client). A bind or connect of a
 * CURVE socket therefore refuses, with {@link IllegalStateException} naming the option and before
 * libzmq is asked, a client without a server key or without its own public key, either side
 * without its secret key, and a public key that is not the secret key's (a public key given as
 * the secret one, say, or halves of two pairs). A server key that is not the server's, or a
 * server secret key from another pair, cannot be told from the socket's own options and still
 * fails only in the handshake.
 *
 * <p>CURVE needs a libzmq built with it ({@link #isAvailable()}; Debian's and Homebrew's are).
 * Without it, libzmq refuses {@link #keypair()} and {@link #publicKey} with ENOTSUP and every
 * CURVE socket option with a bare EINVAL; the {@link ZmqException} then says that this libzmq has
 * no CURVE.
 *
 * <p>Secret keys: every copy of one that this library makes for a call (the socket's option
 * buffer, the native buffers handed to libzmq, the byte arrays of its Z85 text) is zeroed as soon
 * as the call is done with it. The {@link String}s of the API cannot be wiped: a secret key given
 * or returned as one stays on the heap until the garbage collector reuses its memory. The binary
 * calls make none, and take and give the key in {@value #KEY_BYTES}-byte arrays the caller owns
 * and zeroes: {@link #keypair(byte[], byte[])}, {@link #publicKeyBytes(byte[])},
 * {@link #z85DecodeKey(CharSequence)} (from characters), {@link #z85EncodeChars(byte[])} (into
 * characters),
 * {@link ZmqSocket#curveSecretKeyBytes(byte[])}, {@link ZmqSocket#curveSecretKeyBytes()} and
 * {@link KeyPair#secretKeyBytes()}; a {@link KeyPair} holds its secret key as characters that
 * {@link KeyPair#destroy()} zeroes.
 */
public final class Curve {

    /** Length of a binary CURVE key. */
    public static final int KEY_BYTES = 32;
    /** Length of a Z85-encoded CURVE key (without the trailing NUL libzmq writes). */
    public static final int Z85_KEY_CHARS = 40;

    private Curve() {
    }

    /**
     * A CURVE key pair in Z85 text, whose secret key can be wiped: it is held as characters, not
     * as a {@link String}, and {@link #destroy()} zeroes them. {@link #toString()} hides it.
     *
     * <p>Safe for use by several threads. After {@link #destroy()} the public key still answers
     * (it is no secret); {@link #secretKey()} and {@link #secretKeyBytes()} throw
     * {@link IllegalStateException}, and the pair equals only itself.
     *
     * <p>This was a record of two Strings until 2026-11-28; its constructor, accessors, equality
     * and text are unchanged, but it is no longer a {@link Record} to deconstruct in a pattern.
     */
    public static final class KeyPair implements Destroyable {
        private final String publicKey;
        /** The secret key's Z85 characters, zeroed by {@link #destroy()}; null when made with none. */
        private final char[] secretKey;
        private boolean destroyed;

        /**
         * A key pair of the two keys given, unchecked (as the record was); the secret key's
         * String stays the caller's, who keeps it short-lived. {@link Curve#keypair()} makes a
         * pair with no String of its secret key.
         *
         * @param publicKey the public key, {@value Curve#Z85_KEY_CHARS} Z85 characters
         * @param secretKey the secret key, {@value Curve#Z85_KEY_CHARS} Z85 characters
         */
        public KeyPair(String publicKey, String secretKey) {
            this(publicKey, secretKey == null ? null : secretKey.toCharArray());
        }

        /** Takes {@code secretKey} over: the pair zeroes it when destroyed. */
        private KeyPair(String publicKey, char[] secretKey) {
            this.publicKey = publicKey;
            this.secretKey = secretKey;
        }

        /**
         * The public key, also after {@link #destroy()}.
         *
         * @return the public key, {@value Curve#Z85_KEY_CHARS} Z85 characters
         */
        public String publicKey() {
            return publicKey;
        }

        /**
         * The secret key as a new String on each call, which cannot be wiped: {@link #secretKeyBytes()}
         * gives it in an array the caller can zero.
         *
         * @return the secret key, {@value Curve#Z85_KEY_CHARS} Z85 characters (null when the pair
         *     was made with none)
         * @throws IllegalStateException after {@link #destroy()}
         */
        public synchronized String secretKey() {
            checkNotDestroyed();
            return secretKey == null ? null : new String(secretKey);
        }

        /**
         * The secret key in binary, decoded from its Z85 characters by way of buffers zeroed
         * after, for {@link ZmqSocket#curveSecretKeyBytes(byte[])}.
         *
         * @return a new {@value Curve#KEY_BYTES}-byte array, owned by the caller, who zeroes it
         *     once done
         * @throws IllegalStateException after {@link #destroy()}
         * @throws NullPointerException when the pair was made with no secret key
         * @throws IllegalArgumentException when the pair was made with a secret key that is not
         *     {@value Curve#Z85_KEY_CHARS} Z85 characters standing for {@value Curve#KEY_BYTES} bytes
         */
        public synchronized byte[] secretKeyBytes() {
            checkNotDestroyed();
            return decodeKey("this KeyPair's secret key", secretKey == null ? null : CharBuffer.wrap(secretKey));
        }

        /** Zeroes the secret key; later calls of {@link #secretKey()} and {@link #secretKeyBytes()} throw. A second call does nothing. */
        @Override
        public synchronized void destroy() {
            if (secretKey != null) {
                Arrays.fill(secretKey, '\0');
            }
            destroyed = true;
        }

        /** @return whether {@link #destroy()} was called */
        @Override
        public synchronized boolean isDestroyed() {
            return destroyed;
        }

        /** The secret key's characters themselves, for tests: what destroy left of them. */
        char[] secretChars() {
            return secretKey;
        }

        private void checkNotDestroyed() {
            if (destroyed) {
                throw new IllegalStateException("KeyPair is destroyed: its secret key was zeroed (publicKey=" + publicKey + ")");
            }
        }

        /** A copy of the secret key's characters (the caller zeroes it), or null when destroyed or made with none. */
        private synchronized char[] secretCopy() {
            return destroyed || secretKey == null ? null : secretKey.clone();
        }

        /**
         * Two pairs of equal keys are equal, as the record's were; a destroyed pair equals only
         * itself. Each pair's secret key is read under its own lock, one after the other, so two
         * threads comparing the same two pairs cannot deadlock.
         */
        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof KeyPair other) || !Objects.equals(publicKey, other.publicKey)) {
                return false;
            }
            char[] mine = secretCopy();
            char[] theirs = other.secretCopy();
            try { // a pair destroyed while this compared has no secret to compare: checked after
                return Arrays.equals(mine, theirs) && !isDestroyed() && !other.isDestroyed();
            } finally {
                wipe(mine);
                wipe(theirs);
            }
        }

        private static void wipe(char[] chars) {
            if (chars != null) {
                Arrays.fill(chars, '\0');
            }
        }

        /** Of the public key only: equal pairs have equal public keys, and destroy does not change it. */
        @Override
        public int hashCode() {
            return Objects.hashCode(publicKey);
        }

        @Override
        public String toString() {
            return "KeyPair[publicKey=" + publicKey + ", secretKey=<" + (isDestroyed() ? "destroyed" : "hidden") + ">]";
        }
    }

    /**
     * Whether the libzmq in use was built with CURVE ({@code zmq_has("curve")}).
     *
     * @return true when CURVE keys and the CURVE socket options work
     */
    public static boolean isAvailable() {
        Boolean known = curve;
        if (known == null) {
            // A call that cannot open libzmq (out of descriptors, say) throws and keeps nothing: the
            // next call asks again. Until 2026-11-28 the answer was a holder class's constant, whose
            // failed initialisation made every later call fail with NoClassDefFoundError.
            known = ZmqContext.has("curve");
            curve = known;
        }
        return known;
    }

    /** {@code zmq_has("curve")} once it answered (a library's build does not change while it is loaded); null before. */
    private static volatile Boolean curve;

    /** For a failed CURVE call's {@link ZmqException}: why, when libzmq has no CURVE; else null. */
    static String unavailableNote() {
        return unavailableNote(isAvailable());
    }

    /** {@link #unavailableNote()} for a libzmq that has CURVE or not. */
    static String unavailableNote(boolean available) {
        return available ? null : "this libzmq was built without CURVE, zmq_has(\"curve\") is 0: use one built with"
                + " libsodium, as Debian's libzmq5 and Homebrew's zeromq are, e.g. by -D"
                + NativeLibrary.ZMQ.pathProperty() + "=FILE";
    }

    /**
     * A fresh key pair from zmq_curve_keypair (needs libzmq built with CURVE, as Debian's is).
     *
     * @return a new public and secret key, both in Z85, owned by the caller, who may
     *     {@link KeyPair#destroy()} it once done: no String of its secret key is made
     * @throws ZmqException when libzmq cannot make one (ENOTSUP: built without CURVE, which the
     *     message says)
     */
    public static KeyPair keypair() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pub = a.allocate(Z85_KEY_CHARS + 1);
            MemorySegment sec = a.allocate(Z85_KEY_CHARS + 1);
            try {
                curveKeypair(a, pub, sec);
                char[] secret = new char[Z85_KEY_CHARS];
                for (int i = 0; i < secret.length; i++) {
                    secret[i] = (char) sec.get(ValueLayout.JAVA_BYTE, i); // Z85 is ASCII
                }
                return new KeyPair(pub.getString(0), secret);
            } finally {
                sec.fill((byte) 0);
            }
        }
    }

    /**
     * A fresh key pair in binary, written into arrays the caller owns (and zeroes, the secret one,
     * once done); nothing of it stays anywhere else: the native buffers it passed through are
     * zeroed before they are freed, and no String of it is made. Both arrays are checked before
     * either is written.
     *
     * @param publicKey receives the public key, {@value #KEY_BYTES} bytes
     * @param secretKey receives the secret key, {@value #KEY_BYTES} bytes, another array than
     *     {@code publicKey}
     * @throws NullPointerException naming the array that is null
     * @throws IllegalArgumentException naming the array that is not {@value #KEY_BYTES} bytes
     *     long, or when both are the same array
     * @throws ZmqException when libzmq cannot make one (ENOTSUP: built without CURVE, which the
     *     message says)
     */
    public static void keypair(byte[] publicKey, byte[] secretKey) {
        checkBinaryKey("publicKey", publicKey);
        checkBinaryKey("secretKey", secretKey);
        if (publicKey == secretKey) {
            throw new IllegalArgumentException("publicKey and secretKey are the same array: the secret key would overwrite"
                    + " the public one");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pubZ85 = a.allocate(Z85_KEY_CHARS + 1);
            MemorySegment secZ85 = a.allocate(Z85_KEY_CHARS + 1);
            try {
                curveKeypair(a, pubZ85, secZ85);
                decodeKeyInto(a, pubZ85, publicKey);
                decodeKeyInto(a, secZ85, secretKey);
            } finally {
                secZ85.fill((byte) 0);
            }
        }
    }

    /** The Z85 key in {@code z85} decoded into {@code key}, by way of a native buffer zeroed after. */
    private static void decodeKeyInto(Arena a, MemorySegment z85, byte[] key) {
        MemorySegment binary = a.allocate(KEY_BYTES);
        try {
            z85DecodeNative(a, binary, z85);
            MemorySegment.copy(binary, ValueLayout.JAVA_BYTE, 0, key, 0, KEY_BYTES);
        } finally {
            binary.fill((byte) 0);
        }
    }

    /** zmq_curve_keypair into {@code pubZ85} and {@code secZ85}, {@value #Z85_KEY_CHARS} characters and a NUL each. */
    private static void curveKeypair(Arena a, MemorySegment pubZ85, MemorySegment secZ85) {
        MemorySegment capture = a.allocate(LibZmq.CAPTURE_LAYOUT);
        try {
            int rc = (int) LibZmq.zmq_curve_keypair.invokeExact(capture, pubZ85, secZ85);
            if (rc != 0) {
                throw new ZmqException("zmq_curve_keypair", LibZmq.errno(capture), unavailableNote());
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * The argument check of the binary key calls.
     *
     * @param what names the key in the exception's message, e.g. the parameter or the socket option
     * @throws NullPointerException ({@code "secretKey is null"}) when {@code key} is null
     * @throws IllegalArgumentException ({@code "secretKey must be a 32-byte binary key: length=40"})
     *     when it is not {@value #KEY_BYTES} bytes long
     */
    static void checkBinaryKey(String what, byte[] key) {
        Objects.requireNonNull(key, () -> what + " is null");
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException(what + " must be a " + KEY_BYTES + "-byte binary key: length=" + key.length);
        }
    }

    /**
     * The public key that belongs to a secret key (zmq_curve_public): what a key pair's public
     * half must be. A pair whose halves do not match is accepted by every socket option, and
     * refused at the socket's bind or connect (see the class comment).
     *
     * @param secretKey a secret key, {@value #Z85_KEY_CHARS} Z85 characters
     * @return its public key, {@value #Z85_KEY_CHARS} Z85 characters
     * @throws IllegalArgumentException when {@code secretKey} is not {@value #Z85_KEY_CHARS} Z85
     *     characters (the message names its length, or the first character outside the alphabet),
     *     or a group of 5 of them stands for more than 32 bits
     * @throws ZmqException when libzmq cannot compute it (ENOTSUP: built without CURVE, which the
     *     message says)
     */
    public static String publicKey(String secretKey) {
        byte[] chars = z85Key("a CURVE secret key", secretKey);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sec = a.allocate(Z85_KEY_CHARS + 1); // zeroed: the NUL that ends the text
            try {
                MemorySegment.copy(chars, 0, sec, ValueLayout.JAVA_BYTE, 0, chars.length);
                return curvePublic(a, sec);
            } finally {
                sec.fill((byte) 0);
            }
        } finally {
            Arrays.fill(chars, (byte) 0);
        }
    }

    /**
     * The public key that belongs to a binary secret key: {@link #publicKey(String)} without a
     * String of the secret key. The caller's array is only read; the native copies of it are
     * zeroed before they are freed.
     *
     * @param secretKey a secret key, {@value #KEY_BYTES} bytes, owned by the caller
     * @return its public key, a new {@value #KEY_BYTES}-byte array
     * @throws NullPointerException ({@code "secretKey is null"}) when {@code secretKey} is null
     * @throws IllegalArgumentException when {@code secretKey} is not {@value #KEY_BYTES} bytes
     *     long (the message names its length)
     * @throws ZmqException when libzmq cannot compute it (ENOTSUP: built without CURVE, which the
     *     message says)
     */
    public static byte[] publicKeyBytes(byte[] secretKey) {
        checkBinaryKey("secretKey", secretKey);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sec = a.allocate(KEY_BYTES);
            try {
                MemorySegment.copy(secretKey, 0, sec, ValueLayout.JAVA_BYTE, 0, KEY_BYTES);
                return z85Decode(publicHalf(sec));
            } finally {
                sec.fill((byte) 0);
            }
        }
    }

    /**
     * zmq_curve_public: the public key, in Z85, of the secret key in {@code secZ85}
     * ({@value #Z85_KEY_CHARS} Z85 characters and a NUL), which the caller owns and zeroes.
     */
    private static String curvePublic(Arena a, MemorySegment secZ85) {
        MemorySegment pub = a.allocate(Z85_KEY_CHARS + 1);
        MemorySegment capture = a.allocate(LibZmq.CAPTURE_LAYOUT);
        try {
            int rc = (int) LibZmq.zmq_curve_public.invokeExact(capture, pub, secZ85);
            if (rc != 0) {
                throw new ZmqException("zmq_curve_public", LibZmq.errno(capture), unavailableNote());
            }
            return pub.getString(0);
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Z85-encodes {@code data}; its length must be a multiple of 4.
     *
     * @param data the bytes to encode, e.g. a {@value #KEY_BYTES}-byte binary key
     * @return the Z85 text, 5 characters for every 4 bytes
     * @throws IllegalArgumentException when the length is not a multiple of 4
     */
    public static String z85Encode(byte[] data) {
        char[] text = z85EncodeChars(data);
        try {
            return new String(text);
        } finally {
            Arrays.fill(text, '\0');
        }
    }

    /**
     * Z85-encodes {@code data} into characters, not a {@link String}: {@link #z85Encode} for a
     * secret key whose text is to be written out (a key file, say) and then wiped. The native
     * copies are zeroed before they are freed; {@code data} is only read.
     *
     * @param data the bytes to encode, e.g. a {@value #KEY_BYTES}-byte binary key; its length must
     *     be a multiple of 4
     * @return the Z85 text, 5 characters for every 4 bytes, in a new array owned by the caller,
     *     who zeroes it once done when it is a secret key's
     * @throws NullPointerException when {@code data} is null
     * @throws IllegalArgumentException when the length is not a multiple of 4
     */
    public static char[] z85EncodeChars(byte[] data) {
        Objects.requireNonNull(data, "z85 input is null");
        if (data.length % 4 != 0) {
            throw new IllegalArgumentException("z85 input length must be a multiple of 4: length=" + data.length);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = a.allocate(Math.max(1, data.length));
            MemorySegment dst = a.allocate(data.length * 5L / 4 + 1);
            try {
                MemorySegment.copy(data, 0, src, ValueLayout.JAVA_BYTE, 0, data.length);
                z85EncodeNative(a, dst, src.asSlice(0, data.length));
                char[] text = new char[data.length / 4 * 5];
                for (int i = 0; i < text.length; i++) {
                    text[i] = (char) dst.get(ValueLayout.JAVA_BYTE, i); // Z85 is ASCII
                }
                return text;
            } finally { // the data may be a secret key
                src.fill((byte) 0);
                dst.fill((byte) 0);
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Decodes Z85 text; its length must be a multiple of 5.
     *
     * @param text the Z85 text, e.g. a {@value #Z85_KEY_CHARS}-character key; {@code ""} decodes
     *     to an empty array
     * @return the decoded bytes, 4 for every 5 characters
     * @throws IllegalArgumentException when a character is outside the Z85 alphabet (the message
     *     names it and its index), the length is not a multiple of 5, or a group of 5 characters
     *     stands for more than 32 bits
     */
    public static byte[] z85Decode(String text) {
        byte[] chars = z85Chars("z85 text", text);
        if (chars.length % 5 != 0) {
            throw new IllegalArgumentException("z85 text length must be a multiple of 5: length=" + chars.length);
        }
        try {
            return decodeZ85(chars);
        } finally {
            Arrays.fill(chars, (byte) 0);
        }
    }

    /**
     * Decodes a Z85 key given as characters, not a {@link String}: a {@code char[]} (through
     * {@link CharBuffer#wrap(char[])}), a {@link CharBuffer} over a key file's text, a
     * {@link StringBuilder}. For a secret key, whose binary form then goes to
     * {@link ZmqSocket#curveSecretKeyBytes(byte[])} or {@link #publicKeyBytes(byte[])}. The
     * characters are only read; the copies made of them are zeroed.
     *
     * <p>A refused key's message names what is wrong, the length, or the index of the first
     * character outside the alphabet (and that character) or of the first group above 32 bits,
     * and never holds the key.
     *
     * @param z85Key the key, {@value #Z85_KEY_CHARS} Z85 characters
     * @return the key in binary, a new {@value #KEY_BYTES}-byte array owned by the caller, who
     *     zeroes it once done when it is a secret key
     * @throws NullPointerException ({@code "Z85 key is null"}) when {@code z85Key} is null
     * @throws IllegalArgumentException when {@code z85Key} is not {@value #Z85_KEY_CHARS}
     *     characters long ({@code "Z85 key must be a 40-character Z85 key: length=39"}), holds a
     *     character outside the Z85 alphabet, or a group of 5 of them stands for more than 32 bits
     */
    public static byte[] z85DecodeKey(CharSequence z85Key) {
        return decodeKey("Z85 key", z85Key);
    }

    /** {@link #z85DecodeKey}, whose messages name the key as {@code what}. */
    private static byte[] decodeKey(String what, CharSequence z85Key) {
        byte[] chars = z85Key(what, z85Key);
        try {
            return decodeZ85(chars);
        } finally {
            Arrays.fill(chars, (byte) 0);
        }
    }

    /**
     * zmq_z85_decode of {@code chars}, Z85 characters already checked by {@link #z85Chars}, a
     * multiple of 5 of them. The native copies are zeroed (the text may be a secret key); the
     * caller owns {@code chars} and zeroes it.
     */
    private static byte[] decodeZ85(byte[] chars) {
        if (chars.length == 0) {
            return new byte[0]; // libzmq refuses text shorter than 5 characters, z85Encode makes "" of no bytes
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = a.allocate(chars.length + 1L); // zeroed: the NUL that ends the text
            MemorySegment dst = a.allocate(chars.length * 4L / 5);
            try { // the text may be a secret key: its copies are zeroed
                MemorySegment.copy(chars, 0, src, ValueLayout.JAVA_BYTE, 0, chars.length);
                z85DecodeNative(a, dst, src);
                return dst.toArray(ValueLayout.JAVA_BYTE);
            } finally {
                src.fill((byte) 0);
                dst.fill((byte) 0);
            }
        }
    }

    /**
     * zmq_z85_decode of the NUL-ended Z85 text in {@code src}, characters of the alphabet, a
     * multiple of 5 of them, into {@code dst}, 4 bytes for every 5 characters.
     *
     * @throws IllegalArgumentException when a group of 5 characters stands for more than 32 bits
     */
    private static void z85DecodeNative(Arena a, MemorySegment dst, MemorySegment src) {
        MemorySegment capture = a.allocate(LibZmq.CAPTURE_LAYOUT);
        try {
            MemorySegment r = (MemorySegment) LibZmq.zmq_z85_decode.invokeExact(capture, dst, src);
            if (r.equals(MemorySegment.NULL)) {
                // every character is in the alphabet: a group of 5 stands for more than 0xFFFFFFFF
                throw new IllegalArgumentException("not valid z85 text, a group of 5 characters exceeds 32 bits:"
                        + " length=" + (src.byteSize() - 1));
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * zmq_z85_encode of all of {@code src} (a multiple of 4 bytes) into {@code dst}, which holds
     * 5 characters for every 4 bytes and a NUL.
     */
    private static void z85EncodeNative(Arena a, MemorySegment dst, MemorySegment src) {
        MemorySegment capture = a.allocate(LibZmq.CAPTURE_LAYOUT);
        try {
            MemorySegment r = (MemorySegment) LibZmq.zmq_z85_encode.invokeExact(capture, dst, src, src.byteSize());
            if (r.equals(MemorySegment.NULL)) {
                throw new IllegalArgumentException("z85 encoding failed: length=" + src.byteSize());
            }
        } catch (Throwable t) {
            throw LibZmq.rethrow(t);
        }
    }

    /**
     * Refuses, at a bind or a connect, CURVE keys with which every handshake of that endpoint
     * fails, where libzmq takes them and the failure shows only on a monitor. Measured with
     * libzmq 4.3.4 over tcp, a client delivered nothing without a server key, without its own
     * public or secret key, or with a public key that is not its secret key's, and a server
     * delivered nothing without a secret key. A pair whose halves do not match is refused on a
     * server too: it uses only the secret half, which is then as likely the wrong one (a public
     * key given as the secret one). What cannot be told here (a server key that is not the
     * server's, a secret key that is another pair's whole) still fails only in the handshake.
     *
     * @param call the bind or connect, e.g. {@code connect(tcp://127.0.0.1:5555)}
     * @param server whether the socket is a CURVE server ({@code ZMQ_CURVE_SERVER})
     * @param publicKey {@code ZMQ_CURVE_PUBLICKEY}, {@value #KEY_BYTES} bytes, all zero when not set
     * @param secretKey {@code ZMQ_CURVE_SECRETKEY}, likewise, in native memory the caller owns and
     *     zeroes: its public half is derived there, in native buffers zeroed before they are freed,
     *     and no copy of it reaches the Java heap
     * @param serverKey {@code ZMQ_CURVE_SERVERKEY}, likewise
     * @throws IllegalStateException naming the option and what is wrong with it
     */
    static void checkSocketKeys(String call, boolean server, byte[] publicKey, MemorySegment secretKey,
            byte[] serverKey) {
        String role = server ? "CURVE server (curveServer(true))" : "CURVE client";
        List<String> missing = new ArrayList<>(3);
        if (!server && isUnset(serverKey)) {
            missing.add("ZMQ_CURVE_SERVERKEY (curveServerKey: the server's public key)");
        }
        if (!server && isUnset(publicKey)) {
            missing.add("ZMQ_CURVE_PUBLICKEY (curvePublicKey: its own public key)");
        }
        if (isUnset(secretKey)) {
            missing.add("ZMQ_CURVE_SECRETKEY (curveSecretKey: its own secret key)");
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException(call + ": this " + role + " has no " + String.join(", no ", missing)
                    + "; every handshake would fail, so set it before the bind or connect");
        }
        if (!isUnset(publicKey) && !publicHalf(secretKey).equals(z85Encode(publicKey))) {
            throw new IllegalStateException(call + ": this " + role + "'s ZMQ_CURVE_PUBLICKEY is not the public half of its"
                    + " ZMQ_CURVE_SECRETKEY (a public key given as the secret one, or halves of two key pairs); every"
                    + " handshake would fail: Curve.publicKey(secretKey) gives the public half");
        }
    }

    /** The public key, in Z85, of the binary secret key {@code secretKey}, by way of native buffers zeroed after. */
    private static String publicHalf(MemorySegment secretKey) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment secZ85 = a.allocate(Z85_KEY_CHARS + 1);
            try {
                z85EncodeNative(a, secZ85, secretKey);
                return curvePublic(a, secZ85);
            } finally {
                secZ85.fill((byte) 0);
            }
        }
    }

    /** libzmq's value of a key option never set: {@value #KEY_BYTES} zero bytes. */
    private static boolean isUnset(byte[] key) {
        return isUnset(MemorySegment.ofArray(key));
    }

    /** {@link #isUnset(byte[])} of a key in native memory. */
    private static boolean isUnset(MemorySegment key) {
        for (long i = 0; i < key.byteSize(); i++) {
            if (key.get(ValueLayout.JAVA_BYTE, i) != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The bytes libzmq is to read for a Z85 key: {@value #Z85_KEY_CHARS} characters of the
     * alphabet (see {@link #z85Chars}), each group of 5 standing for at most 32 bits. libzmq
     * decodes any multiple of 5 characters into its 32-byte buffer, and refuses a group above 32
     * bits only with a bare EINVAL. The caller owns the array and zeroes it once done when the key
     * may be a secret one.
     *
     * @param what names the key in the exception's message, e.g. the socket option
     * @throws IllegalArgumentException naming the length, the first character outside the
     *     alphabet and its index, or the first group above 32 bits and its index
     */
    static byte[] z85Key(String what, CharSequence z85) {
        Objects.requireNonNull(z85, () -> what + " is null");
        if (z85.length() != Z85_KEY_CHARS) {
            throw new IllegalArgumentException(what + " must be a " + Z85_KEY_CHARS + "-character Z85 key: length="
                    + z85.length());
        }
        byte[] chars = z85Chars(what, z85);
        for (int group = 0; group < chars.length; group += 5) {
            long value = 0;
            for (int i = group; i < group + 5; i++) {
                value = value * 85 + Z85_ALPHABET.indexOf(chars[i]);
            }
            if (value > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException(what + ": not a Z85 key, the group of 5 characters at index " + group
                        + " stands for more than 32 bits");
            }
        }
        return chars;
    }

    /** The Z85 alphabet (ZeroMQ RFC 32), in the order of the digits' values. */
    private static final String Z85_ALPHABET =
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

    /**
     * The bytes libzmq is to read for Z85 {@code text}, each character checked against the Z85
     * alphabet first. Converted unchecked (US-ASCII), a character outside ASCII became {@code '?'},
     * itself a Z85 digit, so a mistyped key decoded to another key; and a NUL ended the text for
     * libzmq, which reads a C string, so it decoded fewer bytes than Java reported (or, as a CURVE
     * key option, only part of the key).
     *
     * @param what names the text in the exception's message, e.g. the socket option
     * @throws IllegalArgumentException naming the first character outside the alphabet and its index
     */
    static byte[] z85Chars(String what, CharSequence text) {
        Objects.requireNonNull(text, () -> what + " is null");
        byte[] chars = new byte[text.length()];
        for (int i = 0; i < chars.length; i++) {
            char c = text.charAt(i);
            if (c >= 128 || Z85_ALPHABET.indexOf(c) < 0) {
                int cp = Character.codePointAt(text, i);
                String shown = Character.isISOControl(cp) || Character.isWhitespace(cp)
                        ? "" : "'" + Character.toString(cp) + "' ";
                throw new IllegalArgumentException(what + ": not a Z85 character at index " + i + ": " + shown
                        + String.format("(U+%04X)", cp));
            }
            chars[i] = (byte) c;
        }
        return chars;
    }
}
