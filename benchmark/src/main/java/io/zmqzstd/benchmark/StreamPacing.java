package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.pipeline.PipelineContestant;

/**
 * How {@link PipelineBenchmark} and {@link PublishBenchmark} pace a contestant's sender: every invocation
 * grants {@value PipelineBenchmark#BATCH} messages and receives {@value PipelineBenchmark#BATCH}; the first
 * invocation of an iteration grants the lead as well, which the iteration's untimed tear-down receives, so the
 * sender may run up to the lead ahead inside an iteration and every iteration starts from an empty pipe. A
 * lead of 0 is {@code PipelineBenchmark}'s {@code batch} flow: the pipe drains at every invocation. Allocates
 * nothing.
 */
final class StreamPacing {

    private final PipelineContestant pipe;
    private final int lead;
    private boolean iterationStarting;

    /** Paces {@code pipe}, which the caller owns and closes, with {@code lead} messages of lead. */
    StreamPacing(PipelineContestant pipe, int lead) {
        this.pipe = pipe;
        this.lead = lead;
    }

    /** From the benchmark's {@code @Setup(Level.Iteration)}. */
    void startIteration() {
        iterationStarting = true;
    }

    /** The benchmark method's work: one batch granted (with the lead, the first of an iteration) and received. */
    void invocation() {
        pipe.grant(iterationStarting ? PipelineBenchmark.BATCH + lead : PipelineBenchmark.BATCH);
        iterationStarting = false;
        pipe.receive(PipelineBenchmark.BATCH);
    }

    /**
     * From the benchmark's {@code @TearDown(Level.Iteration)}: receives the messages still in flight (the lead,
     * none when the iteration had no invocation); returns how many.
     */
    int endIteration() {
        if (iterationStarting) {
            return 0;
        }
        pipe.receive(lead);
        return lead;
    }
}
