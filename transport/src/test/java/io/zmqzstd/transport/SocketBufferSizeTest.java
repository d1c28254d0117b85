package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * README "Socket options": {@code sndbuf(0)} and {@code rcvbuf(0)} are not the OS default (-1 is)
 * but the kernel's smallest buffers, 4,608 B and 2,304 B on Linux, read here with
 * {@code getsockopt} from the descriptor of the connection libzmq made.
 */
class SocketBufferSizeTest extends ContextTestBase {

    private static final int SOL_SOCKET = 1;
    private static final int SO_SNDBUF = 7;
    private static final int SO_RCVBUF = 8;

    @Test
    void shouldGiveTheKernelsSmallestBuffersForZeroAndItsDefaultForMinusOne() throws Throwable {
        assumeTrue(LibZmq.ERRNO_VALUES == LibZmq.Errno.LINUX, "SOL_SOCKET, SO_SNDBUF and SO_RCVBUF as Linux numbers them");
        ZmqSocket fresh = ctx.socket(SocketType.PUSH);
        assertEquals(-1, fresh.sndbuf(), "the default is -1, the OS's");
        assertEquals(-1, fresh.rcvbuf());
        fresh.close();

        assertEquals(4608, ConnectionOptions.read(ctx, push -> push.sndbuf(0), SOL_SOCKET, SO_SNDBUF), "sndbuf(0)");
        assertEquals(2304, ConnectionOptions.read(ctx, push -> push.rcvbuf(0), SOL_SOCKET, SO_RCVBUF), "rcvbuf(0)");
        int defaultSend = ConnectionOptions.read(ctx, push -> push.sndbuf(-1), SOL_SOCKET, SO_SNDBUF);
        int defaultReceive = ConnectionOptions.read(ctx, push -> push.rcvbuf(-1), SOL_SOCKET, SO_RCVBUF);
        assertTrue(defaultSend > 4608 && defaultReceive > 2304,
                "the OS default is larger: sndbuf=" + defaultSend + ", rcvbuf=" + defaultReceive);
    }
}
