package io.zmqzstd.transport;

import io.zmqzstd.transport.MonitorEvent.Type;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.EnumSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What ZMQ_MAXMSGSIZE limits in libzmq 4.3.4: each frame (message part) that its ZMTP decoder
 * reads, so over tcp and ipc only, and not a message's total; what a receiver sees of a frame over
 * the limit is nothing but its connection closed.
 */
@Timeout(60)
class MaxMessageSizeTest extends ContextTestBase {

    private static final int LIMIT = 100;

    /**
     * The frame over the limit never arrives: libzmq closes the connection it came on (the
     * receiver's monitor sees DISCONNECTED) and drops what it had of that message; the sender
     * reconnects and the stream goes on.
     */
    @ParameterizedTest
    @ValueSource(strings = {"ipc", "tcp"})
    void shouldCloseTheConnectionThatBringsAFrameOverTheLimit(String transport) {
        ZmqSocket pull = socket(SocketType.PULL);
        pull.maxMessageSize(LIMIT);
        String endpoint = Endpoints.bindAny(pull, transport);
        try (SocketMonitor monitor = pull.monitor(EnumSet.of(Type.DISCONNECTED))) {
            ZmqSocket push = socket(SocketType.PUSH);
            push.connect(endpoint);
            assertTrue(push.send(b("before"), 0));
            assertEquals("before", pull.receiveString(0));
            assertTrue(push.send(new byte[10], ZmqSocket.SNDMORE));
            assertTrue(push.send(new byte[LIMIT + 1], 0), "the sender is not told");
            MonitorEvent closed = monitor.receive(Duration.ofSeconds(10));
            assertNotNull(closed, "no DISCONNECTED within 10 s");
            assertEquals(Type.DISCONNECTED, closed.type());
            assertTrue(push.send(b("after"), 0));
            assertEquals("after", pull.receiveString(0), "the first part of the refused message was dropped with it");
            assertFalse(pull.hasMore());
        }
    }

    /** The limit is per frame: a multipart message over it in total passes when each part fits. */
    @Test
    void shouldLetAMultipartMessageOverTheLimitThroughWhenEachPartFits() {
        ZmqSocket pull = socket(SocketType.PULL);
        pull.maxMessageSize(LIMIT);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(Endpoints.bindAny(pull, "tcp"));
        for (int i = 0; i < 3; i++) {
            assertTrue(push.send(new byte[LIMIT], i < 2 ? ZmqSocket.SNDMORE : 0));
        }
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(new byte[LIMIT], pull.receiveBytes(0));
            assertEquals(i < 2, pull.hasMore());
        }
    }

    /** inproc has no decoder: the limit does not apply there. */
    @Test
    void shouldNotLimitInproc() {
        ZmqSocket pull = socket(SocketType.PULL);
        pull.maxMessageSize(LIMIT);
        ZmqSocket push = socket(SocketType.PUSH);
        push.maxMessageSize(LIMIT);
        push.connect(Endpoints.bindAny(pull, "inproc"));
        assertTrue(push.send(new byte[10 * LIMIT], 0));
        assertEquals(10 * LIMIT, pull.receiveBytes(0).length);
    }
}
