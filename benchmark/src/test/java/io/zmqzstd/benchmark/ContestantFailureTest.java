package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.benchmark.latency.RoundTrips;
import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import io.zmqzstd.benchmark.pipeline.ZmqZstdPubSub;
import io.zmqzstd.benchmark.transport.TransportRig;
import io.zmqzstd.benchmark.transport.TransportStrategy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A pipeline or round-trip contestant or a transport rig whose constructor fails partway leaves no thread
 * and no descriptor open: what it made before the failure is closed.
 */
class ContestantFailureTest {

    @ParameterizedTest
    @CsvSource({"zmqzstd, 0, none", "zmqzstd, 0, proxy", "zmqzstd, 2, none", "libzmqBytes, 0, none",
        "libzmqBytes, 0, proxy", "jeromqZstdjni, 0, none", "jeromqZstdjniReused, 0, proxy",
        "jeromqZstdjniParallel, 2, none", "jeromqZstdjniParallel, 2, proxy"})
    void shouldCloseWhatAPipelineContestantOpenedWhenTheEndpointIsRefused(String contestant, int workers, String hop) {
        PipelineContestants.Parallel parallel = new PipelineContestants.Parallel(workers, 0, -1, -1);
        assertNothingLeft(() -> PipelineContestants.create(contestant, 64, Endpoints.TCP, 1,
                PipelineContestants.DICTIONARY_NONE, Thresholds.LIBRARY_DEFAULT, 0, parallel, null, hop), () -> {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                            () -> PipelineContestants.create(contestant, 64, "udp", 1, PipelineContestants.DICTIONARY_NONE,
                                    Thresholds.LIBRARY_DEFAULT, 0, parallel, null, hop));
                    assertTrue(e.getMessage().contains("transport=udp"), e.getMessage());
                });
    }

    /** Later in the constructor: the socket, receiver and pool are made when the sender refuses its level. */
    @ParameterizedTest
    @CsvSource({"0", "2"})
    void shouldCloseWhatZmqZstdOpenedWhenTheSenderIsRefused(int workers) {
        PipelineContestants.Parallel parallel = new PipelineContestants.Parallel(workers, 0, -1, -1);
        assertNothingLeft(() -> PipelineContestants.create(PipelineContestants.ZMQZSTD, 64, Endpoints.TCP, 1,
                PipelineContestants.DICTIONARY_NONE, Thresholds.LIBRARY_DEFAULT, 0, parallel, null,
                PipelineContestants.HOP_PROXY), () -> assertThrows(IllegalArgumentException.class,
                        () -> PipelineContestants.create(PipelineContestants.ZMQZSTD, 64, Endpoints.TCP, 1000,
                                PipelineContestants.DICTIONARY_NONE, Thresholds.LIBRARY_DEFAULT, 0, parallel, null,
                                PipelineContestants.HOP_PROXY)));
    }

    /**
     * {@code PublishBenchmark}'s publisher, on one thread and with workers: the endpoint refused after its pool
     * and context are made, and the sender refused (its level) after its sockets and receiver are.
     */
    @ParameterizedTest
    @CsvSource({"udp, 3, 0", "udp, 3, 2", "tcp, 1000, 0", "tcp, 1000, 2"})
    void shouldCloseWhatThePublisherOpenedWhenItIsRefused(String transport, int level, int workers) {
        PipelineContestants.Parallel parallel = new PipelineContestants.Parallel(workers, 0, -1, -1);
        assertNothingLeft(() -> new ZmqZstdPubSub(PipelineContestants.payload(64), Endpoints.TCP, 3,
                ZmqZstdPubSub.TOPIC_BYTES, parallel), () -> {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ZmqZstdPubSub(
                            PipelineContestants.payload(64), transport, level, ZmqZstdPubSub.TOPIC_BYTES, parallel));
                    assertTrue(e.getMessage().contains(transport.equals("udp") ? "transport=udp" : "1000"), e.getMessage());
                });
    }

    @ParameterizedTest
    @CsvSource({"zmqzstd", "zmqzstd@2", "libzmqBytes", "jeromqZstdjni"})
    void shouldCloseWhatARoundTripContestantOpenedWhenTheEndpointIsRefused(String contestant) {
        assertNothingLeft(() -> RoundTrips.create(contestant, 64, Endpoints.TCP, 1), () -> {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> RoundTrips.create(contestant, 64, "udp", 1));
            assertTrue(e.getMessage().contains("transport=udp"), e.getMessage());
        });
    }

    /** The transport benchmark's rig: its ROUTER pair's context and pool, made before the endpoint is refused. */
    @ParameterizedTest
    @CsvSource({"byteArray, 1", "zeroCopyPooled, 2"})
    void shouldCloseWhatATransportRigOpenedWhenTheEndpointIsRefused(String strategy, int ioThreads) {
        assertNothingLeft(() -> new TransportRig(strategy, Endpoints.TCP, 64, Thresholds.LIBRARY_DEFAULT,
                TransportStrategy.READ_STAMP, ioThreads), () -> {
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new TransportRig(
                            strategy, "udp", 64, Thresholds.LIBRARY_DEFAULT, TransportStrategy.READ_STAMP, ioThreads));
                    assertTrue(e.getMessage().contains("transport=udp"), e.getMessage());
                });
    }

    /**
     * Makes and closes one contestant ({@code warm}: classes loaded, the JVM's own threads and files settled),
     * counts, runs {@code failing}, and asserts that no library thread and no descriptor is left over.
     */
    private static void assertNothingLeft(Supplier<AutoCloseable> warm, Runnable failing) {
        try (AutoCloseable c = warm.get()) {
            assertTrue(c != null);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        long threads = libraryThreads();
        long descriptors = descriptors();
        failing.run();
        // at most as many: a thread of the warm-up contestant may still be ending when counted before, and
        // JeroMQ's threads end just after its context's close returns
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (libraryThreads() > threads && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000_000L); // polls the condition, up to the deadline
        }
        long threadsAfter = libraryThreads();
        long descriptorsAfter = descriptors();
        assertTrue(threadsAfter <= threads, "library threads left behind: before=" + threads + ", after="
                + threadsAfter + " " + threadNames());
        assertTrue(descriptorsAfter <= descriptors, "descriptors (sockets, eventfds, epoll) left open: before="
                + descriptors + ", after=" + descriptorsAfter);
    }

    /** libzmq's native threads ({@code ZMQbg/...}) and JeroMQ's and the contestants' Java threads. */
    private static long libraryThreads() {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.map(t -> read(t.resolve("comm")))
                    .filter(name -> name.startsWith("ZMQbg") || name.startsWith("reaper-") || name.startsWith("iothread-")
                            || name.startsWith("jeromq-") || name.startsWith("zmqzstd") || name.endsWith("-sender")
                            || name.endsWith("-server") || name.contains("proxy"))
                    .count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> threadNames() {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.map(t -> read(t.resolve("comm"))).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long descriptors() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            return ""; // the thread ended while listing
        }
    }
}
