package io.zmqzstd.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@link Ports}: ports below the ephemeral range, free to bind. */
class PortsTest {

    private static final Path PORT_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

    @Test
    void shouldTakeAPortBelowThisMachinesEphemeralRange() throws IOException {
        assumeTrue(Files.isReadable(PORT_RANGE), "no " + PORT_RANGE + ": not Linux");
        // Not Files.readString, which reads only the first byte of a sysctl file (see Ports.ephemeralLow)
        int low = Integer.parseInt(Files.readAllLines(PORT_RANGE).getFirst().trim().split("\\s+")[0]);
        assumeTrue(low - Ports.LOWEST >= 1_000, "no room below the ephemeral range, which starts at " + low);
        for (int i = 0; i < 20; i++) {
            int port = Ports.unused();
            assertTrue(port >= Ports.LOWEST && port < low, port + " is not in [" + Ports.LOWEST + ", " + low + ")");
            assertBindable(port);
        }
    }

    @Test
    void shouldTakeAPortBelowTheGivenEphemeralRange() throws IOException {
        for (int i = 0; i < 20; i++) {
            int port = Ports.unused(21_000);
            assertTrue(port >= Ports.LOWEST && port < 21_000, port + " is not in [" + Ports.LOWEST + ", 21000)");
            assertBindable(port);
        }
    }

    @Test
    void shouldGiveAFreePortWhenThereIsNoRoomBelowTheEphemeralRange() throws IOException {
        assertBindable(Ports.unused(Ports.LOWEST + 10));
    }

    private static void assertBindable(int port) throws IOException {
        assertTrue(port > 0 && port < 65_536, "port " + port);
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
        }
    }
}
