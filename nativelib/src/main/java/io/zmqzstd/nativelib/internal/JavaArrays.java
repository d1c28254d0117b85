package io.zmqzstd.nativelib.internal;

/**
 * The limit of a Java array, which native data (a zstd frame, a libzmq message, a received part)
 * may pass: the modules' {@code byte[]} conveniences refuse, naming the size, what the JVM would
 * refuse with "Requested array size exceeds VM limit". Not API.
 */
public final class JavaArrays {

    /** The longest {@code byte[]} the JVM allocates: a few elements under {@code Integer.MAX_VALUE}. */
    public static final int MAX_LENGTH = Integer.MAX_VALUE - 8;

    private JavaArrays() {
    }
}
