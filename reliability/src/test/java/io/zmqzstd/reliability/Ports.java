package io.zmqzstd.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

final class Ports {

    private Ports() {
    }

    /** The lowest port this picks from: above the registered services most machines run. */
    private static final int LOWEST = 20_000;

    /**
     * A loopback port that was free a moment ago and on which nothing listens, taken from below
     * the kernel's ephemeral range where there is room. The tests that use it kill a receiver and
     * start another on the same port while a PUSH keeps reconnecting; a port from the ephemeral
     * range (what {@code new ServerSocket(0)} gives) can be handed to one of those reconnects, or
     * any other outgoing connection, as its source port, and a connect from a port to itself on
     * Linux succeeds (TCP simultaneous open) and holds the port the next receiver must bind.
     */
    static int unused() {
        int ephemeralLow = ephemeralLow();
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

    /** The first port of Linux's ephemeral range, or its default (32768) where it cannot be read. */
    private static int ephemeralLow() {
        try {
            return Integer.parseInt(Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
