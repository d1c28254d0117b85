package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** PipelineBenchmark's JMH life cycle, driven by hand: every message checked in order in both flows. */
class PipelineFlowTest {

    @Test
    void shouldBoundTheLeadByBytesAndByTheBatch() {
        assertEquals(PipelineBenchmark.BATCH, PipelineBenchmark.lead(64));
        assertEquals(PipelineBenchmark.BATCH, PipelineBenchmark.lead(1024));
        assertEquals(64, PipelineBenchmark.lead(65536));
        assertEquals(4, PipelineBenchmark.lead(1 << 20));
        assertEquals(2, PipelineBenchmark.lead(64 << 20));
        // maxLead raises the message bound; 4 MiB of payload still binds: 65,536 at 64 B, 4,096 at 1 KiB
        assertEquals(65536, PipelineBenchmark.lead(64, 100_000));
        assertEquals(4096, PipelineBenchmark.lead(1024, 65536));
        assertEquals(64, PipelineBenchmark.lead(65536, 65536));
    }

    @Timeout(120)
    @ParameterizedTest
    @CsvSource({"zmqzstd, stream, tcp, none", "zmqzstd, batch, inproc, none", "jeromqZstdjni, stream, tcp, none",
        "libzmqBytes, stream, inproc, none", "zmqzstd, stream, inproc, proxy", "jeromqZstdjni, stream, tcp, proxy",
        "libzmqBytes, batch, tcp, proxy"})
    void shouldDeliverEveryMessageAcrossIterations(String contestant, String flow, String transport, String hop) {
        PipelineBenchmark b = new PipelineBenchmark();
        b.contestant = contestant;
        b.flow = flow;
        b.hop = hop;
        b.maxLead = PipelineBenchmark.BATCH;
        b.affinity = "none";
        b.size = 1024;
        b.transport = transport;
        b.level = 1;
        b.dictionary = "none";
        b.zeroCopyThresholdBytes = 8192;
        b.rawFrameBelowBytes = 0;
        b.setUp();
        try {
            long messages = 0;
            for (int iteration = 0; iteration < 3; iteration++) {
                b.startIteration();
                for (int i = 0; i < 4; i++) {
                    messages = b.transfer();
                }
                b.endIteration(); // receives exactly what is still in flight: one more would wait forever
            }
            long lead = flow.equals("stream") ? PipelineBenchmark.lead(1024) : 0;
            assertEquals(PipelineBenchmark.BATCH * 13L + 2 * lead, messages);
        } finally {
            b.tearDown();
        }
    }

    @ParameterizedTest
    @CsvSource({"burst, none, none, flow=burst", "stream, cpu7, none, affinity=cpu7", "stream, none, relay, hop=relay"})
    void shouldRefuseAnUnknownFlowAffinityOrHop(String flow, String affinity, String hop, String named) {
        PipelineBenchmark b = new PipelineBenchmark();
        b.contestant = "zmqzstd";
        b.flow = flow;
        b.hop = hop;
        b.maxLead = PipelineBenchmark.BATCH;
        b.affinity = affinity;
        b.size = 64;
        b.transport = "inproc";
        b.level = 1;
        b.dictionary = "none";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::setUp);
        assertTrue(e.getMessage().contains(named), e.getMessage());
    }
}
