package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import java.lang.management.ManagementFactory;

/**
 * Run by {@link TearDownRehearsalTest} in a JVM of its own: one benchmark's trial set-up, a few
 * operations, then its trial tear-down, and prints {@code tearDown allocated=N}, the bytes the
 * calling thread allocated in the tear-down. JMH runs that tear-down inside the last measured
 * iteration, so {@code -prof gc} counts it there; a set-up that rehearsed the tear-down (made,
 * used and closed a throwaway contestant) leaves it little to allocate.
 */
final class TearDownProbe {

    private TearDownProbe() {
    }

    public static void main(String[] args) {
        Runnable tearDown = switch (args[0]) {
            case "latency" -> {
                LatencyBenchmark b = new LatencyBenchmark();
                b.contestant = args[1];
                b.size = 1024;
                b.transport = Endpoints.TCP;
                b.level = 3;
                b.setUp();
                for (int i = 0; i < 200; i++) {
                    b.roundTrip();
                }
                yield b::tearDown;
            }
            case "transport" -> {
                TransportBenchmark b = new TransportBenchmark();
                b.strategy = args[1];
                b.receiveMode = "blocking";
                b.size = 1024;
                b.transport = Endpoints.TCP;
                b.zeroCopyThresholdBytes = Thresholds.LIBRARY_DEFAULT;
                b.read = "stamp";
                b.ioThreads = 1;
                b.setUp();
                b.sendReceive();
                yield b::tearDown;
            }
            case "pipeline", "pipeline-proxy" -> {
                PipelineBenchmark b = new PipelineBenchmark();
                b.contestant = args[1];
                b.hop = args[0].equals("pipeline-proxy") ? PipelineContestants.HOP_PROXY : PipelineContestants.HOP_NONE;
                b.size = 1024;
                b.transport = Endpoints.TCP;
                b.level = 3;
                b.dictionary = "none";
                b.zeroCopyThresholdBytes = Thresholds.LIBRARY_DEFAULT;
                b.inlineBelowBytes = -1;
                b.maxLead = PipelineBenchmark.BATCH;
                b.flow = PipelineBenchmark.FLOW_STREAM;
                b.affinity = PipelineBenchmark.AFFINITY_NONE;
                b.setUp();
                b.startIteration();
                b.transfer();
                b.endIteration();
                yield b::tearDown;
            }
            case "publish", "publish-parallel" -> {
                PublishBenchmark b = new PublishBenchmark();
                b.compressionThreads = args[0].equals("publish-parallel") ? 3 : 0;
                b.topicForm = args[1];
                b.size = 1024;
                b.transport = Endpoints.TCP;
                b.level = 3;
                b.setUp();
                b.startIteration();
                b.publish();
                b.endIteration();
                yield b::tearDown;
            }
            case "codec" -> {
                CodecBenchmark b = new CodecBenchmark();
                b.contestant = args[1];
                b.size = 1024;
                b.level = 3;
                b.payload = Payloads.TELEMETRY;
                b.setUp();
                b.compress();
                b.decompress();
                yield b::tearDown;
            }
            default -> throw new IllegalArgumentException("benchmark=" + args[0]);
        };
        long before = allocated();
        tearDown.run();
        System.out.println("tearDown allocated=" + (allocated() - before));
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
