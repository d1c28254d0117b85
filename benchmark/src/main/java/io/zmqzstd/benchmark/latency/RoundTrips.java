package io.zmqzstd.benchmark.latency;

import io.zmqzstd.benchmark.Endpoints;
import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.util.List;

/** The round-trip contestants, by the same names as the pipeline's. */
public final class RoundTrips {

    /** How long the server's receive waits before it looks whether it should stop. */
    static final int SERVER_POLL_MS = 100;
    /** How long the client waits for an acknowledgement before it looks whether the server failed. */
    static final int CLIENT_WAIT_MS = 1000;

    /** The contestants {@link #create} accepts, {@code zmqzstd} also as a way {@code zmqzstd@N...}. */
    public static final List<String> NAMES =
            List.of(PipelineContestants.ZMQZSTD, PipelineContestants.LIBZMQ_BYTES, PipelineContestants.JEROMQ_ZSTDJNI);

    private RoundTrips() {
    }

    /** A server PAIR socket bound on {@code transport} and a client PAIR socket connected to it. */
    record Sockets(ZmqSocket server, ZmqSocket client) {
    }

    /** Two connected PAIR sockets of {@code context} with the round trips' linger and receive timeouts. */
    static Sockets pair(ZmqContext context, String transport) {
        ZmqSocket server = context.socket(SocketType.PAIR);
        ZmqSocket client = context.socket(SocketType.PAIR);
        server.lingerMs(0);
        client.lingerMs(0);
        server.receiveTimeoutMs(SERVER_POLL_MS);
        client.receiveTimeoutMs(CLIENT_WAIT_MS);
        server.bind(Endpoints.bindable(transport));
        client.connect(server.lastEndpoint());
        return new Sockets(server, client);
    }

    /**
     * A connected contestant whose requests are the pipeline's telemetry payload of {@code size} bytes
     * (at least {@link io.zmqzstd.benchmark.Stamp#BYTES}). The caller owns it and closes it. {@code zmqzstd@N}
     * (with the suffixes of {@link PipelineContestants.Parallel#of}) sends through a
     * {@code ParallelCompressingSender}.
     *
     * @throws IllegalArgumentException naming the contestant when it is unknown, when a peer is given
     *     compressing threads ({@code libzmqBytes@3}: only {@code zmqzstd} has them, and the peer ran as
     *     itself under that name until 2026-11-28), or when a way names a producer ({@code w}, {@code c}:
     *     a round trip stamps its one request, and the suffix was ignored)
     */
    public static RoundTripContestant create(String name, int size, String transport, int level) {
        String contestant = PipelineContestants.Parallel.contestant(name);
        if (!contestant.equals(name) && !contestant.equals(PipelineContestants.ZMQZSTD)) {
            throw new IllegalArgumentException("only zmqzstd takes compressing threads (@N): contestant=" + name);
        }
        PipelineContestants.Parallel parallel = PipelineContestants.Parallel.of(name);
        if (parallel.producer() != PipelineContestants.Producer.STAMP) {
            throw new IllegalArgumentException("a round trip stamps its request; the w and c producers are "
                    + "for PipelineOverhead: contestant=" + name);
        }
        byte[] payload = PipelineContestants.payload(size);
        return switch (contestant) {
            case PipelineContestants.ZMQZSTD -> new ZmqZstdRoundTrip(payload, transport, level, parallel);
            case PipelineContestants.LIBZMQ_BYTES -> new LibzmqBytesRoundTrip(payload, transport, level);
            case PipelineContestants.JEROMQ_ZSTDJNI -> new JeromqRoundTrip(payload, transport, level);
            default -> throw new IllegalArgumentException("unknown round-trip contestant: contestant=" + name);
        };
    }
}
