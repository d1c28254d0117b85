package io.zmqzstd.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

final class Ports {

    private Ports() {
    }

    /** A loopback port that was free a moment ago and on which nothing listens. */
    static int unused() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
