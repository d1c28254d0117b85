package io.zmqzstd.benchmark;

import java.util.concurrent.atomic.AtomicInteger;

/** The {@code transport} parameter of every benchmark turned into a ZeroMQ endpoint to bind. */
public final class Endpoints {

    public static final String TCP = "tcp";
    public static final String INPROC = "inproc";

    private static final AtomicInteger COUNTER = new AtomicInteger();

    private Endpoints() {
    }

    /**
     * {@code tcp}: loopback with an ephemeral port (read the bound one back from the socket's last
     * endpoint); {@code inproc}: a name unique in this JVM.
     */
    public static String bindable(String transport) {
        return switch (transport) {
            case TCP -> "tcp://127.0.0.1:*";
            case INPROC -> "inproc://zmqzstd-bench-" + COUNTER.incrementAndGet();
            default -> throw new IllegalArgumentException("unknown transport: transport=" + transport
                    + ", expected " + TCP + " or " + INPROC);
        };
    }
}
