package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import io.zmqzstd.benchmark.pipeline.PipelineContestants.Parallel;
import io.zmqzstd.benchmark.pipeline.PipelineContestants.Producer;
import io.zmqzstd.benchmark.transport.TransportStrategy;
import org.junit.jupiter.api.Test;

/** The ways {@code TransportOverhead} and {@code PipelineOverhead} take, parsed without setting anything up. */
class OverheadWaysTest {

    @Test
    void shouldReadEverySuffixOfATransportWay() {
        assertEquals(new TransportOverhead.Way(TransportStrategy.BYTE_ARRAY, Thresholds.LIBRARY_DEFAULT,
                TransportStrategy.READ_STAMP, 1), TransportOverhead.Way.of("byteArray"));
        assertEquals(new TransportOverhead.Way(TransportStrategy.ZERO_COPY_POOLED, 0, TransportStrategy.READ_ALL, 2),
                TransportOverhead.Way.of("zeroCopyPooled@0#2+all"));
        assertEquals(new TransportOverhead.Way(TransportStrategy.MESSAGE, Thresholds.LIBRARY_DEFAULT,
                TransportStrategy.READ_COPY, 1), TransportOverhead.Way.of("message+copy"));
    }

    @Test
    void shouldRefuseATransportWayNamingNoStrategy() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TransportOverhead.Way.of("zeroCopyPool+all"));
        assertTrue(e.getMessage().contains("zeroCopyPool+all"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TransportOverhead.Way.of("byteArray+stamp"));
    }

    /** A count or threshold that is no number names the way and what a way may be, as an unknown name does. */
    @Test
    void shouldSayWhatAWayMayBeWhenItsNumberIsNone() {
        for (String way : new String[] {"byteArray#two", "zeroCopyPooled@8k+all"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TransportOverhead.Way.of(way));
            assertEquals("unknown transport way: " + way + " (" + TransportOverhead.Way.FORM + ")", e.getMessage());
        }
        for (String way : new String[] {"zmqzstd#8k", "zmqzstd@three"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PipelineOverhead.Way.of(way));
            assertEquals("unknown pipeline way: " + way + " (" + PipelineOverhead.Way.FORM + ")", e.getMessage());
        }
    }

    /** jeromqZstdjniParallel needs threads, which a way gives only to zmqzstd: it failed at set-up, now at parsing. */
    @Test
    void shouldRefuseAPipelineWayThatCouldNotBeSetUp() {
        assertThrows(IllegalArgumentException.class, () -> PipelineOverhead.Way.of("jeromqZstdjniParallel"));
        assertThrows(IllegalArgumentException.class, () -> PipelineOverhead.Way.of("jeromqZstdjniParallel@3"));
        assertEquals(PipelineContestants.JEROMQ_ZSTDJNI_REUSED, PipelineOverhead.Way.of("jeromqZstdjniReused").contestant());
    }

    @Test
    void shouldReadEverySuffixOfAPipelineWay() {
        assertEquals(new PipelineOverhead.Way(PipelineContestants.JEROMQ_ZSTDJNI, Thresholds.LIBRARY_DEFAULT,
                Parallel.NONE, null), PipelineOverhead.Way.of("jeromqZstdjni"));
        assertEquals(new PipelineOverhead.Way(PipelineContestants.ZMQZSTD, 8192,
                new Parallel(3, 64, 0, -1, Producer.CLAIM), Boolean.FALSE), PipelineOverhead.Way.of("zmqzstd@3x64i0c#8192~"));
    }

    @Test
    void shouldRefuseAPipelineWayNamingNoContestant() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PipelineOverhead.Way.of("jeromqZstdJni"));
        assertTrue(e.getMessage().contains("jeromqZstdJni"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PipelineOverhead.Way.of("zmqzstd@3s5000"));
        assertThrows(IllegalArgumentException.class, () -> PipelineOverhead.Way.of("jeromqZstdjni@3"));
    }
}
