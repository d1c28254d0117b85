package io.zmqzstd.reliability;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;

/**
 * The quote and snapshot layouts of {@link MarketDataJourneyTest}, and the allocation meter it reads
 * the way transport/README.md, "Allocation-free paths", says (ThreadMXBean on the thread itself).
 *
 * <pre>
 * quote (QUOTE_BYTES):     0 globalSeq | 8 instrumentSeq | 16 instrument (int) | 24 bid | 32 ask | 40 text filler
 * snapshot (SNAPSHOT_BYTES): 0 globalSeq of the last quote taken | per instrument i at 8 + 24 i: instrumentSeq, bid, ask
 * </pre>
 */
final class MarketDataJourneySupport {

    static final String[] INSTRUMENTS = {
        "FX.EURUSD", "FX.GBPUSD", "FX.USDJPY", "FX.AUDUSD", "EQ.AAPL", "EQ.MSFT", "EQ.NVDA", "EQ.SAP"};
    static final byte[] FX_PREFIX = "FX.".getBytes(StandardCharsets.US_ASCII);
    static final int QUOTE_BYTES = 200;
    static final int SNAPSHOT_BYTES = 8 + 24 * INSTRUMENTS.length;
    private static final byte[] FILLER =
        "venue=XLON;cond=regular;src=feed-a;tier=1;flags=none;ccy=USD;lot=100000;"
            .repeat(4).getBytes(StandardCharsets.US_ASCII);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private MarketDataJourneySupport() {
    }

    static boolean isFx(int instrument) {
        return instrument < 4;
    }

    static long bid(long globalSeq) {
        return 100_000 + (globalSeq * 7919) % 1000;
    }

    static long ask(long globalSeq) {
        return bid(globalSeq) + 1 + globalSeq % 5;
    }

    /** Fills the text once; {@link #writeQuote} then only rewrites the numbers. */
    static void prepareQuote(MemorySegment quote) {
        MemorySegment.copy(FILLER, 0, quote, ValueLayout.JAVA_BYTE, 40, QUOTE_BYTES - 40);
    }

    static void writeQuote(MemorySegment quote, long globalSeq, long instrumentSeq, int instrument) {
        quote.set(LONG, 0, globalSeq);
        quote.set(LONG, 8, instrumentSeq);
        quote.set(INT, 16, instrument);
        quote.set(LONG, 24, bid(globalSeq));
        quote.set(LONG, 32, ask(globalSeq));
    }

    static long globalSeq(MemorySegment s, long off) {
        return s.get(LONG, off);
    }

    static long instrumentSeq(MemorySegment s, long off) {
        return s.get(LONG, off + 8);
    }

    static int instrument(MemorySegment s, long off) {
        return s.get(INT, off + 16);
    }

    /** True when the numbers are the ones {@link #writeQuote} wrote for that sequence and the text is whole. */
    static boolean intact(MemorySegment s, long off, long size) {
        long g = globalSeq(s, off);
        return size == QUOTE_BYTES
            && s.get(LONG, off + 24) == bid(g)
            && s.get(LONG, off + 32) == ask(g)
            && s.get(ValueLayout.JAVA_BYTE, off + QUOTE_BYTES - 1) == FILLER[QUOTE_BYTES - 41];
    }

    static void recordInSnapshot(MemorySegment snapshot, long globalSeq, long instrumentSeq, int instrument) {
        snapshot.set(LONG, 0, globalSeq);
        long at = 8 + 24L * instrument;
        snapshot.set(LONG, at, instrumentSeq);
        snapshot.set(LONG, at + 8, bid(globalSeq));
        snapshot.set(LONG, at + 16, ask(globalSeq));
    }

    /** instrumentSeq, bid, ask per instrument, in a long[3 * instruments]. */
    static long[] snapshotState(MemorySegment s, long off) {
        long[] state = new long[3 * INSTRUMENTS.length];
        for (int i = 0; i < state.length; i++) {
            state[i] = s.get(LONG, off + 8 + 8L * i);
        }
        return state;
    }

    static void apply(long[] state, long globalSeq, long instrumentSeq, int instrument) {
        state[3 * instrument] = instrumentSeq;
        state[3 * instrument + 1] = bid(globalSeq);
        state[3 * instrument + 2] = ask(globalSeq);
    }

    /** Heap bytes the calling thread has allocated so far. */
    static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    /** Rounds of a fixed number of events on one thread; keeps the lowest bytes per event of a whole round. */
    static final class AllocationRounds {
        private final int eventsPerRound;
        private final int skipRounds;
        private int rounds;
        private long eventsInRound;
        private long startBytes;
        private volatile double best = Double.MAX_VALUE;
        private volatile int measured;

        AllocationRounds(int eventsPerRound, int skipRounds) {
            this.eventsPerRound = eventsPerRound;
            this.skipRounds = skipRounds;
        }

        /** Called on the measured thread once per event. */
        void event() {
            if (++eventsInRound == eventsPerRound) {
                long now = allocatedBytes();
                if (rounds++ >= skipRounds) {
                    double perEvent = (double) (now - startBytes) / eventsPerRound;
                    if (perEvent < best) {
                        best = perEvent;
                    }
                    measured++;
                }
                startBytes = allocatedBytes();
                eventsInRound = 0;
            }
        }

        double best() {
            return best;
        }

        int measured() {
            return measured;
        }
    }
}
