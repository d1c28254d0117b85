package io.zmqzstd.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/** Loopback TCP ports for tests that bind and connect to a port they choose. */
public final class Ports {

    /** The lowest port this picks from: above the registered services most machines run. */
    static final int LOWEST = 20_000;
    private static final Path PORT_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

    private Ports() {
    }

    /**
     * A loopback port that was free a moment ago and on which nothing listens, taken from below
     * the kernel's ephemeral range where there is room.
     *
     * <p>Not a port from {@code new ServerSocket(0)}: that one comes from the ephemeral range, and
     * so can be handed as its source port to any outgoing connection, among them the reconnects of
     * a libzmq socket connecting to this very port while nothing listens there (a receiver not yet
     * started, or killed and started again). On Linux a connect from a port to itself succeeds (TCP
     * simultaneous open), and the socket then holds the port that the receiver must bind.
     *
     * @return the port
     */
    public static int unused() {
        return unused(ephemeralLow());
    }

    /** {@link #unused()} with the ephemeral range starting at {@code ephemeralLow}. */
    static int unused(int ephemeralLow) {
        if (ephemeralLow - LOWEST < 1_000) {
            return anyFree();
        }
        InetAddress loopback = InetAddress.getLoopbackAddress();
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, ephemeralLow);
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(loopback, port), 1);
                return port;
            } catch (BindException inUse) {
                // taken: try another
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return anyFree();
    }

    private static int anyFree() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The first port of Linux's ephemeral range, or its default (32768) where it cannot be read.
     *
     * <p>Read through a buffered reader, not {@code Files.readString}: that one sizes its first read
     * by the file's size, which is 0 for a file in /proc, so it reads a single byte and then asks
     * for the rest from offset 1, where a sysctl file reads as ended. It gave "3" of "32768 60999",
     * and so {@link #unused()} always fell back to an ephemeral port.
     */
    private static int ephemeralLow() {
        try {
            return Integer.parseInt(Files.readAllLines(PORT_RANGE).getFirst().trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
