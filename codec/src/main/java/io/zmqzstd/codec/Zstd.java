package io.zmqzstd.codec;

import io.zmqzstd.codec.internal.LibZstd;
import java.lang.foreign.MemorySegment;

/** Facts about the libzstd this process loaded. */
public final class Zstd {

    private Zstd() {
    }

    /**
     * The loaded libzstd's version, e.g. {@code "1.5.4"}.
     *
     * @return the version as {@code ZSTD_versionString} gives it
     * @throws io.zmqzstd.nativelib.NativeLibraryUnavailableException when libzstd cannot be opened
     */
    public static String versionString() {
        try {
            MemorySegment s = (MemorySegment) LibZstd.VERSION_STRING.invokeExact();
            return s.reinterpret(64).getString(0);
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
    }

    /**
     * The loaded libzstd's version as {@code major*10000 + minor*100 + patch}, e.g. 10504.
     *
     * @return the version number ({@code ZSTD_versionNumber})
     * @throws io.zmqzstd.nativelib.NativeLibraryUnavailableException when libzstd cannot be opened
     */
    public static int versionNumber() {
        try {
            return (int) LibZstd.VERSION_NUMBER.invokeExact();
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
    }
}
