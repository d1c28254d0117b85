package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Senders and receivers opened and closed by the thousand, each pair on sockets of its own that
 * carry one message: what a service that reconnects often does. Afterwards the process holds what
 * it held before: file descriptors ({@code /proc/self/fd}), libzstd objects (the codec's live
 * counters), pooled buffers, and not one of the parallel senders' compressing threads is alive.
 */
class ResourceAccountingTest {

    private static final int PAIRS = 2_000;
    private static final long SETTLE_MS = 20_000;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ipc", "tcp"})
    void shouldReturnDescriptorsNativeObjectsAndThreadsToTheBaselineAfterThousandsOfPairs(String transport,
                                                                                         @TempDir Path dir) {
        try (ZmqContext ctx = new ZmqContext()) {
            List<Thread> workers = new ArrayList<>();
            ThreadFactory recorded = r -> {
                Thread t = new Thread(r);
                t.setDaemon(true);
                workers.add(t);
                return t;
            };
            roundTrip(ctx, transport, dir, -1, recorded); // the context's I/O thread and the pool's first slabs
            long fds = openDescriptors();
            // At most as before: owners earlier tests dropped unclosed may be freed meanwhile
            long nativeObjects = LibZstd.liveNativeObjects();
            for (int i = 0; i < PAIRS; i++) {
                roundTrip(ctx, transport, dir, i, i % 2 == 0 ? recorded : null);
            }
            assertTrue(LibZstd.liveNativeObjects() <= nativeObjects,
                    () -> "libzstd contexts, dictionaries and scratch buffers: before=" + nativeObjects + ", after="
                            + LibZstd.liveNativeObjects());
            assertEquals(0, ctx.bufferPool().outstanding(), () -> ctx.bufferPool().stats().toString());
            // close() joins the workers, so they are gone when it returns
            assertEquals(2 * (PAIRS / 2 + 1), workers.size(), "two workers for each parallel sender");
            assertEquals(0, workers.stream().filter(Thread::isAlive).count(), "compressing threads still alive");
            // libzmq closes a socket's descriptors on its reaper thread, after close returns
            assertTrue(Fixtures.await(() -> openDescriptors() <= fds, SETTLE_MS),
                    () -> "descriptors: before=" + fds + ", after=" + openDescriptors());
        }
    }

    /**
     * One PULL bound and one PUSH connected, a sender (parallel, with its workers from
     * {@code parallel}, when that is not null) and a receiver on them, one message through,
     * everything closed in order.
     */
    private static void roundTrip(ZmqContext ctx, String transport, Path dir, int i, ThreadFactory parallel) {
        byte[] payload = Fixtures.payload(1000 + (i & 1023), i);
        try (ZmqSocket pull = ctx.socket(SocketType.PULL);
             ZmqSocket push = ctx.socket(SocketType.PUSH)) {
            pull.lingerMs(0);
            push.lingerMs(0);
            pull.receiveTimeoutMs(Fixtures.RECEIVE_TIMEOUT_MS);
            pull.bind(transport.equals("ipc") ? "ipc://" + dir.resolve("p" + i) : "tcp://127.0.0.1:*");
            push.connect(pull.lastEndpoint());
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                if (parallel != null) {
                    try (ParallelCompressingSender sender = ParallelCompressingSender.builder(push).workers(2)
                            .threadFactory(parallel).build()) {
                        assertTrue(sender.send(payload, 0));
                        sender.flush();
                    }
                } else {
                    try (CompressingSender sender = CompressingSender.builder(push).build()) {
                        assertTrue(sender.send(payload, 0));
                    }
                }
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(payload, receiver.message().partBytes(0));
            }
        }
    }

    private static long openDescriptors() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
