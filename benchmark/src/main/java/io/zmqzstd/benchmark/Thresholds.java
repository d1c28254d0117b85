package io.zmqzstd.benchmark;

import io.zmqzstd.transport.NativeBufferPool;

/**
 * The zero-copy threshold knob of the benchmarks: a value to set on the pool (and the sender), or
 * {@link #LIBRARY_DEFAULT} to leave the library's defaults in force, which differ by transport (8 KiB;
 * 512 B on sockets whose every endpoint is inproc).
 */
public final class Thresholds {

    /** Sets nothing: the pool's defaults, each socket its own by its endpoints. */
    public static final long LIBRARY_DEFAULT = -1;

    private Thresholds() {
    }

    /** {@code pool} with {@code bytes} as its threshold for every socket, or unchanged for {@link #LIBRARY_DEFAULT}. */
    public static NativeBufferPool.Builder apply(NativeBufferPool.Builder pool, long bytes) {
        return bytes == LIBRARY_DEFAULT ? pool : pool.zeroCopyThresholdBytes(bytes);
    }
}
