package io.zmqzstd.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A signal shuts the context down (Session's hook); a bind or connect that it finds in progress
 * fails with libzmq's ETERM, which must reach the command as the ZmqException it is, so that the
 * command ends as interrupted (exit 130, its summary). SocketEndpoints wrapped it as a bind failure
 * ("cannot bind: endpoint=…, errno=156384765, error=Context was terminated", exit 1) until
 * 2026-11-27: a recv stopped by SIGTERM during its start-up said it could not bind.
 */
class SocketEndpointsTest {

    @Test
    void shouldLetAContextShutDownDuringBindOrConnectThroughAsItself() {
        for (boolean bind : new boolean[] {true, false}) {
            String endpoint = "tcp://127.0.0.1:" + Ports.unused();
            SocketEndpoints endpoints = new SocketEndpoints(Main.commandLine(), "endpoint", "--bind",
                    bind ? List.of(endpoint) : List.of(), "--connect", bind ? List.of() : List.of(endpoint));
            try (ZmqContext ctx = new ZmqContext()) {
                ZmqSocket socket = ctx.socket(SocketType.PULL);
                ctx.shutdown(); // as the signal's hook does, between the socket's creation and its bind
                ZmqException e = assertThrows(ZmqException.class, () -> endpoints.attach(socket, 1000),
                        bind ? "bind" : "connect");
                assertTrue(e.isContextTerminated(), e.getMessage());
                socket.close();
            }
        }
    }

    /**
     * libzmq's LISTENING event comes from inside the bind, so a SIGTERM sent on it can reach the
     * JVM before the bind returns. Until 2026-11-29 the exit hook that removes an ipc bind's socket
     * file was registered, and the file noted, only after the bind: the hook running in between
     * left the file (`CliProcessIT.shouldRemoveTheIpcSocketFilesItBoundWhenTerminated` failed so
     * once). Here the hook's work runs at that moment, and the file the bind made must go.
     */
    @Test
    void shouldRemoveTheSocketFileWhenTheExitHookRunsBetweenTheBindAndItsNote(@TempDir Path dir) {
        Path file = dir.resolve("early.sock");
        SocketEndpoints endpoints = new SocketEndpoints(Main.commandLine(), "endpoint", "--bind",
                List.of("ipc://" + file), "--connect", List.of());
        boolean[] seen = new boolean[1];
        endpoints.afterBind = () -> {
            seen[0] = Files.exists(file, LinkOption.NOFOLLOW_LINKS);
            endpoints.removeSocketFiles(); // what the exit hook does, as a signal would run it now
        };
        try (ZmqContext ctx = new ZmqContext(); ZmqSocket socket = ctx.socket(SocketType.PULL)) {
            endpoints.attach(socket, 1000);
            assertTrue(seen[0], "the bind made its socket file");
            assertFalse(Files.exists(file, LinkOption.NOFOLLOW_LINKS), "left behind: " + file);
        }
        endpoints.close();
    }
}
