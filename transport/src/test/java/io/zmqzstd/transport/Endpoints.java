package io.zmqzstd.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/** Test endpoints for each transport, and a deadline-bounded wait. */
final class Endpoints {

    private static final AtomicInteger SEQ = new AtomicInteger();
    private static final Path IPC_DIR;

    static {
        try {
            IPC_DIR = Files.createTempDirectory("zmqzstd-ipc");
            IPC_DIR.toFile().deleteOnExit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Endpoints() {
    }

    /** Binds {@code server} on a fresh endpoint of {@code transport} and returns what peers connect to. */
    static String bindAny(ZmqSocket server, String transport) {
        switch (transport) {
            case "inproc" -> {
                String ep = "inproc://t" + SEQ.incrementAndGet();
                server.bind(ep);
                return ep;
            }
            case "ipc" -> {
                String ep = "ipc://" + IPC_DIR.resolve("s" + SEQ.incrementAndGet());
                server.bind(ep);
                return ep;
            }
            case "tcp" -> {
                server.bind("tcp://127.0.0.1:*");
                return server.lastEndpoint();
            }
            default -> throw new IllegalArgumentException(transport);
        }
    }

    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
