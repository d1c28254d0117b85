package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The {@code inproc://} endpoints this binding binds for itself: a monitor's (libzmq's end of it)
 * and a proxy's control channel. Each is {@code inproc://io.zmqzstd.<kind>-<n>}, n counted for the
 * whole process; inproc names are per context, so they need only be new there. An application may
 * have bound such a name itself in that context: the next number is tried then, instead of failing
 * with EADDRINUSE over a name the caller never chose.
 */
final class OwnEndpoints {

    private static final AtomicLong NUMBERS = new AtomicLong();
    /** Names tried before EADDRINUSE is let through: each taken one is a bind of the application's. */
    private static final int ATTEMPTS = 1000;

    private OwnEndpoints() {
    }

    /**
     * Binds a new endpoint of {@code kind} with {@code bind}, which throws {@link ZmqException}
     * EADDRINUSE when the name is taken.
     *
     * @return the endpoint bound
     * @throws ZmqException from {@code bind}: another failure, or EADDRINUSE for {@value #ATTEMPTS} names in a row
     */
    static String bind(String kind, Consumer<String> bind) {
        for (int attempt = 1;; attempt++) {
            String endpoint = "inproc://io.zmqzstd." + kind + "-" + NUMBERS.incrementAndGet();
            try {
                bind.accept(endpoint);
                return endpoint;
            } catch (ZmqException e) {
                if (e.errno() != LibZmq.EADDRINUSE || attempt == ATTEMPTS) {
                    throw e;
                }
            }
        }
    }
}
