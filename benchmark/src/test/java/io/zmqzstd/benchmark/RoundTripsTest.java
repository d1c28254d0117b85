package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.benchmark.latency.RoundTripContestant;
import io.zmqzstd.benchmark.latency.RoundTrips;
import io.zmqzstd.benchmark.latency.ZmqZstdRoundTrip;
import io.zmqzstd.pipeline.PipelineStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RoundTripsTest {

    @ParameterizedTest
    @CsvSource({
        "jeromqZstdjni, tcp, 1024", "jeromqZstdjni, inproc, 65536",
        "libzmqBytes, tcp, 65536", "libzmqBytes, inproc, 1024",
        "zmqzstd, tcp, 1024", "zmqzstd, inproc, 65536", "zmqzstd, tcp, 64",
    })
    void shouldAcknowledgeEveryRequestInOrder(String contestant, String transport, int size) {
        try (RoundTripContestant rt = RoundTrips.create(contestant, size, transport, 3)) {
            for (long sequence = 0; sequence < 300; sequence++) {
                rt.roundTrip(sequence);
            }
        }
    }

    /**
     * {@code zmqzstd@N} (documented in LatencyBenchmark): the workers send while the measuring thread
     * waits for the acknowledgement. On one shared socket the worker's send was refused and the round
     * trip waited forever, so the test runs in a thread of its own that a timeout can abandon.
     */
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    @ParameterizedTest
    @CsvSource({"zmqzstd@2, tcp, 1024", "zmqzstd@2, inproc, 64", "zmqzstd@3i0, tcp, 65536"})
    void shouldAcknowledgeEveryRequestSentThroughAParallelSender(String contestant, String transport, int size) {
        try (RoundTripContestant rt = RoundTrips.create(contestant, size, transport, 3)) {
            for (long sequence = 0; sequence < 300; sequence++) {
                rt.roundTrip(sequence);
            }
            // every acknowledgement came back in order; a worker counts its send after the fact, so
            // the sender's message count may still lag by the last one: look only for drops
            PipelineStats stats = ((ZmqZstdRoundTrip) rt).senderStats();
            assertEquals(0, stats.droppedMessages(), stats::toString);
        }
    }

    /** The peers compress every request, however short: so must zmqzstd (no raw-block frames below 128 B). */
    @Test
    void shouldCompressShortRequestsAsThePeersDo() {
        try (RoundTripContestant rt = RoundTrips.create("zmqzstd", 64, Endpoints.INPROC, 3)) {
            for (long sequence = 0; sequence < 10; sequence++) {
                rt.roundTrip(sequence);
            }
            PipelineStats stats = ((ZmqZstdRoundTrip) rt).senderStats();
            assertEquals(10, stats.messages(), stats::toString);
            assertEquals(0, stats.rawFrames(), stats::toString);
        }
    }

    @ParameterizedTest
    @CsvSource({"jeromqZstdjni", "libzmqBytes", "zmqzstd"})
    void shouldFailWhenTheServerSeesARequestOutOfSequence(String contestant) {
        try (RoundTripContestant rt = RoundTrips.create(contestant, 1024, Endpoints.INPROC, 3)) {
            rt.roundTrip(0);
            // The server expects 1; request 5 makes it fail, and the client must report that, not hang.
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> rt.roundTrip(5));
            assertTrue(e.getMessage().contains("server failed") && e.getMessage().contains("expectedSequence=1"),
                    e.getMessage());
        }
    }

    /**
     * A peer with compressing threads ran as the plain peer, its result labelled {@code libzmqBytes@3}
     * beside {@code zmqzstd@3} as if it were the parallel one; a producer suffix was ignored.
     */
    @ParameterizedTest
    @CsvSource({
        "libzmqBytes@3, only zmqzstd takes compressing threads (@N): contestant=libzmqBytes@3",
        "jeromqZstdjni@2, only zmqzstd takes compressing threads (@N): contestant=jeromqZstdjni@2",
        "zmqzstd@3w, a round trip stamps its request; the w and c producers are for PipelineOverhead: contestant=zmqzstd@3w",
    })
    void shouldRejectAWayTheRoundTripsCannotRun(String contestant, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RoundTrips.create(contestant, 1024, Endpoints.INPROC, 3).close());
        assertEquals(message, e.getMessage());
    }

    @Test
    void shouldRejectAnUnknownContestant() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RoundTrips.create("zeromq", 1024, Endpoints.TCP, 3));
        assertEquals("unknown round-trip contestant: contestant=zeromq", e.getMessage());
    }
}
