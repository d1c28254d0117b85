package io.zmqzstd.benchmark;

/**
 * What an end-to-end receiver checks of each message it takes: always its length and sequence stamp
 * ({@link Stamp}); while {@link #everyByte(boolean) everyByte} is on, also every byte after the stamp
 * against the source payload's ({@link Stamp#foldAfterStamp}), so that a contestant that delivers wrong
 * bytes under a right stamp fails its trial's checked batch instead of scoring. The benchmarks turn it on
 * for the set-up's checked batch only: reading every byte of every measured message would add a pass over
 * it that no contestant's user makes. One per receiving thread; allocation-free.
 */
public final class PayloadCheck {

    private final int size;
    private final long expectedFold;
    private boolean everyByte;

    /** Checks messages that are {@code source} (the sender's payload before stamping) but for their stamp. */
    public PayloadCheck(byte[] source) {
        this.size = source.length;
        this.expectedFold = Stamp.foldAfterStamp(source, size);
    }

    /** Turns the check of every byte on or off; from the receiving thread, between receives. */
    public void everyByte(boolean on) {
        everyByte = on;
    }

    /** Checks {@code message[0, length)} as message {@code expectedSequence}. */
    public void check(byte[] message, int length, long expectedSequence) {
        Stamp.check(message, length, expectedSequence, size);
        if (everyByte && Stamp.foldAfterStamp(message, length) != expectedFold) {
            throw differs(expectedSequence);
        }
    }

    /** Checks the {@code length} bytes at native {@code address} as message {@code expectedSequence}. */
    public void checkAt(long address, long length, long expectedSequence) {
        Stamp.checkAt(address, length, expectedSequence, size);
        if (everyByte && Stamp.foldAfterStampAt(address, length) != expectedFold) {
            throw differs(expectedSequence);
        }
    }

    /**
     * Checks {@code message[0, length)} as a message whose sequence is not known in advance (a request on one
     * of several workers, a reply that may overtake another): its length, and every byte while on; returns
     * the sequence its stamp carries, for the caller to check.
     */
    public long checkAnySequence(byte[] message, int length) {
        long sequence = length >= Stamp.BYTES ? Stamp.read(message) : -1;
        check(message, length, sequence);
        return sequence;
    }

    /** {@link #checkAnySequence(byte[], int)} of the {@code length} bytes at native {@code address}. */
    public long checkAnySequenceAt(long address, long length) {
        long sequence = length >= Stamp.BYTES ? Stamp.readAt(address) : -1;
        checkAt(address, length, sequence);
        return sequence;
    }

    private IllegalStateException differs(long sequence) {
        return new IllegalStateException("payload bytes differ from the source's: sequence=" + sequence + ", size=" + size);
    }
}
