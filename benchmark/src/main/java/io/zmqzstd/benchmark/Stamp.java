package io.zmqzstd.benchmark;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The check every benchmark message carries: its sequence number in its first 8 bytes (little-endian).
 * The receiver verifies length and sequence of every message, so a lost, duplicated, reordered or
 * truncated message fails the run instead of inflating the score. Allocation-free.
 */
public final class Stamp {

    /** Smallest message that can carry a stamp. */
    public static final int BYTES = Long.BYTES;

    private static final VarHandle LONG_IN_BYTES =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_IN_SEGMENT =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** All of native memory, to read a frame by its address without a per-message segment. */
    private static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private Stamp() {
    }

    public static void write(byte[] message, long sequence) {
        LONG_IN_BYTES.set(message, 0, sequence);
    }

    public static void write(MemorySegment message, long sequence) {
        message.set(LONG_IN_SEGMENT, 0, sequence);
    }

    public static void writeAt(long address, long sequence) {
        EVERYTHING.set(LONG_IN_SEGMENT, address, sequence);
    }

    /** The sequence number in the stamp of {@code message} (its first {@link #BYTES} bytes). */
    public static long read(byte[] message) {
        return (long) LONG_IN_BYTES.get(message, 0);
    }

    /** The sequence number in the stamp at native {@code address} (the message's first byte). */
    public static long readAt(long address) {
        return EVERYTHING.get(LONG_IN_SEGMENT, address);
    }

    public static void check(byte[] message, int length, long expectedSequence, int expectedLength) {
        check(length, length >= BYTES ? (long) LONG_IN_BYTES.get(message, 0) : -1, expectedSequence, expectedLength);
    }

    public static void checkAt(long address, long length, long expectedSequence, int expectedLength) {
        check(length, length >= BYTES ? EVERYTHING.get(LONG_IN_SEGMENT, address) : -1, expectedSequence,
                expectedLength);
    }

    /**
     * Every byte of {@code message[BYTES, length)} folded into one value (its 8-byte words XORed, the
     * bytes of a last partial word XORed in at their place in a word), so any one changed bit changes
     * it: what a receiver that reads its whole payload computes, to compare with the same fold of the
     * source. Four words a pass into four accumulators: with one, the JIT compiled this loop to
     * 5.6-13.5 us per 64 KiB where four take 2.6-3.5 ({@code ReadBenchmark}), and the reader's speed,
     * not the transport's, set the reading receivers' figures. Allocation-free.
     */
    public static long foldAfterStamp(byte[] message, int length) {
        long a = 0;
        long b = 0;
        long c = 0;
        long d = 0;
        int at = BYTES;
        for (; at + 4 * Long.BYTES <= length; at += 4 * Long.BYTES) {
            a ^= (long) LONG_IN_BYTES.get(message, at);
            b ^= (long) LONG_IN_BYTES.get(message, at + Long.BYTES);
            c ^= (long) LONG_IN_BYTES.get(message, at + 2 * Long.BYTES);
            d ^= (long) LONG_IN_BYTES.get(message, at + 3 * Long.BYTES);
        }
        long fold = a ^ b ^ c ^ d;
        for (; at + Long.BYTES <= length; at += Long.BYTES) {
            fold ^= (long) LONG_IN_BYTES.get(message, at);
        }
        for (; at < length; at++) {
            fold ^= (long) (message[at] & 0xFF) << (8 * ((at - BYTES) % Long.BYTES));
        }
        return fold;
    }

    /** {@link #foldAfterStamp(byte[], int)} of the {@code length} bytes at native {@code address}. */
    public static long foldAfterStampAt(long address, long length) {
        long a = 0;
        long b = 0;
        long c = 0;
        long d = 0;
        long at = BYTES;
        for (; at + 4 * Long.BYTES <= length; at += 4 * Long.BYTES) {
            a ^= EVERYTHING.get(LONG_IN_SEGMENT, address + at);
            b ^= EVERYTHING.get(LONG_IN_SEGMENT, address + at + Long.BYTES);
            c ^= EVERYTHING.get(LONG_IN_SEGMENT, address + at + 2 * Long.BYTES);
            d ^= EVERYTHING.get(LONG_IN_SEGMENT, address + at + 3 * Long.BYTES);
        }
        long fold = a ^ b ^ c ^ d;
        for (; at + Long.BYTES <= length; at += Long.BYTES) {
            fold ^= EVERYTHING.get(LONG_IN_SEGMENT, address + at);
        }
        for (; at < length; at++) {
            fold ^= (long) (EVERYTHING.get(ValueLayout.JAVA_BYTE, address + at) & 0xFF) << (8 * ((at - BYTES) % Long.BYTES));
        }
        return fold;
    }

    /** Copies the {@code length} bytes at native {@code address} into {@code destination[0, length)}. */
    public static void copyAt(long address, byte[] destination, int length) {
        MemorySegment.copy(EVERYTHING, ValueLayout.JAVA_BYTE, address, destination, 0, length);
    }

    private static void check(long length, long sequence, long expectedSequence, int expectedLength) {
        if (length != expectedLength || sequence != expectedSequence) {
            throw new IllegalStateException("unexpected message: length=" + length + ", expectedLength="
                    + expectedLength + ", sequence=" + sequence + ", expectedSequence=" + expectedSequence);
        }
    }
}
