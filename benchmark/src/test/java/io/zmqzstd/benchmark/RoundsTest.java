package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.benchmark.transport.ReceiveMode;
import io.zmqzstd.benchmark.transport.TransportRig;
import io.zmqzstd.benchmark.transport.TransportStrategy;
import org.junit.jupiter.api.Test;

class RoundsTest {

    @Test
    void shouldGiveTheExactTwoSidedSignTest() {
        // 10 of 10: 2 * (1/1024); 8 of 10: 2 * (1 + 10 + 45) / 1024; an even split: 1
        assertEquals(2.0 / 1024, Rounds.signTestP(10, 10), 1e-12);
        assertEquals(2.0 / 1024, Rounds.signTestP(0, 10), 1e-12);
        assertEquals(112.0 / 1024, Rounds.signTestP(8, 10), 1e-12);
        assertEquals(1.0, Rounds.signTestP(5, 10), 1e-12);
        assertEquals(1.0, Rounds.signTestP(20, 41), 1e-12);
    }

    @Test
    void shouldTakeTheMeanOfTheMiddleTwoAsTheMedianOfAnEvenCount() {
        // nearest rank gave 3 here, the upper middle value; interleaved.sh's default of 20 rounds is even
        assertEquals(2.5, Rounds.quantile(new double[] {4, 1, 3, 2}, 0.5), 1e-12);
        double[] twenty = new double[20];
        for (int i = 0; i < twenty.length; i++) {
            twenty[i] = 1 + i / 100.0; // 1.00 to 1.19: the middle two are 1.09 and 1.10
        }
        assertEquals(1.095, Rounds.quantile(twenty, 0.5), 1e-12);
        assertEquals(1.0475, Rounds.quantile(twenty, 0.25), 1e-12);
        assertEquals(1.1425, Rounds.quantile(twenty, 0.75), 1e-12);
        assertTrue(Rounds.describe(twenty).startsWith("1.095 (quartiles "), Rounds.describe(twenty));
    }

    @Test
    void shouldTakeOrderStatisticsWhereTheyFallWithoutSortingTheInput() {
        double[] values = {5, 1, 4, 2, 3};
        assertEquals(3, Rounds.quantile(values, 0.5));
        assertEquals(1, Rounds.quantile(values, 0));
        assertEquals(5, Rounds.quantile(values, 1));
        assertEquals(2, Rounds.quantile(values, 0.25));
        assertEquals(5, values[0], "input reordered");
        assertEquals(3, Rounds.above(new double[] {1.1, 0.9, 1.0, 2, 1.0001}));
    }

    @Test
    void shouldAlternateTheOrderOfTurnsAndKeepOnlyRoundsAfterTheWarmUp() throws Exception {
        StringBuilder order = new StringBuilder();
        int[] calls = new int[1];
        double[][] rates = Rounds.alternating(3, 1, 2, way -> {
            order.append(way);
            return 100 * way + calls[0]++; // which way, and the how-manieth call overall
        });
        // warm-up round -1 runs backwards, round 0 forwards, round 1 backwards again
        assertEquals("210012210", order.toString());
        assertEquals(3, rates.length);
        assertArrayEquals(new double[] {3, 8}, rates[0]);
        assertArrayEquals(new double[] {104, 107}, rates[1]);
        assertArrayEquals(new double[] {205, 206}, rates[2]);
    }

    @Test
    void shouldDeliverAndCheckEveryMessageOfEveryRunOfTwoRigsTakingTurns() {
        // TransportOverhead's set-up: two rigs alive at once, each run continuing its own sequence;
        // a lost, repeated or corrupted message fails the receiver's check
        try (TransportRig copy = new TransportRig(TransportStrategy.BYTE_ARRAY, "inproc", 512, 8192);
             TransportRig pooled = new TransportRig(TransportStrategy.ZERO_COPY_POOLED, "tcp", 65536, 0)) {
            for (int run = 1; run <= 3; run++) {
                assertEquals(run * 1000L, copy.run(ReceiveMode.blocking, 1000));
                assertEquals(run * 200L, pooled.run(ReceiveMode.blocking, 200));
            }
        }
    }

    /**
     * {@code CodecOverhead} prints every way's ratio in every round ({@code WAY per_round ...}), the
     * lines {@code scripts/interleaved.py} takes a JVM's median from; before 2026-11-28 it printed
     * only its own median, which for an even count of rounds was the upper middle one.
     */
    @Test
    void shouldPrintTheRatioOfEveryRoundOfEveryCodecWay() throws Throwable {
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        java.io.PrintStream out = System.out;
        System.setOut(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            CodecOverhead.main(new String[] {"decompress", "256", "4", "20"});
        } finally {
            System.setOut(out);
        }
        String text = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        for (String way : new String[] {"bare-decompressDCtx", "aircompressor", "bare-decompressDCtx-critical",
            "header-walk+bare"}) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^" + java.util.regex.Pattern.quote(way)
                    + " per_round((?: [0-9]+\\.[0-9]{3}){4})$").matcher(text);
            assertTrue(m.find(), () -> way + " has no per_round line of 4 ratios in:\n" + text);
        }
    }
}
