package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A segment mapped from a file that was shortened after the mapping (a log truncated in place by
 * its rotation, say): reading the pages past the file's new end raises SIGBUS. FFM's own accesses
 * turn that into an exception; libzmq's memcpy in zmq_send, given the raw address, did not: until
 * 2026-11-28 such a send killed the JVM with SIGBUS. Now a mapped segment is copied by Java, and
 * the send throws {@link IllegalStateException}, nothing sent, the socket going on. In a child JVM,
 * as the old code killed the JVM.
 */
class TruncatedMappingSendTest {

    private static final int MAPPED_BYTES = 64 * 1024;

    @Test
    void shouldRefuseToSendFromAMappingWhoseFileWasShortened() throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(60), TruncatedMappingSendTest.class,
                List.of("-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/hs_err_pid%p.log"));
        assertTrue(out.contains("refused: data could not be read"), out);
    }

    /** The child: a send from a mapping of a file truncated to nothing, then a send that works. */
    public static void main(String[] args) throws Exception {
        Path file = Files.createTempFile("truncated-mapping", ".bin");
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined();
                FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.receiveTimeoutMs(5000);
            push.connect(Endpoints.bindAny(pull, "inproc"));
            Files.write(file, new byte[MAPPED_BYTES]);
            MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, MAPPED_BYTES, arena);
            channel.truncate(0);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> push.send(mapped, 0, MAPPED_BYTES, 0));
            System.out.println("refused: " + e.getMessage());
            assertTrue(push.send(new byte[] {1, 2}, 0));
            assertArrayEquals(new byte[] {1, 2}, pull.receiveBytes(0), "the socket goes on, the refused frame never sent");
            assertNull(pull.receiveBytes(ZmqSocket.DONTWAIT));
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
