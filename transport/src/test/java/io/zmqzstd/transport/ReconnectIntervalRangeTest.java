package io.zmqzstd.transport;

import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;

import static io.zmqzstd.transport.MonitorEvent.Type.CLOSED;
import static io.zmqzstd.transport.MonitorEvent.Type.CONNECT_RETRIED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reconnect interval of 0 is refused: libzmq takes it, but 4.3.4 then never reconnects (as for
 * -1), and releases before its pull request #3966 (4.3.0 to 4.3.2, which this binding accepts)
 * divide by it when they schedule the retry, ending the process with SIGFPE. The Javadoc offered
 * it as an interval ("milliseconds, default 100; -1 = never reconnect"); until 2026-11-27 it was
 * passed on.
 */
class ReconnectIntervalRangeTest extends ContextTestBase {

    @Test
    void shouldRefuseAZeroReconnectInterval() {
        ZmqSocket s = ctx.socket(SocketType.DEALER);
        IllegalArgumentException typed = assertThrows(IllegalArgumentException.class, () -> s.reconnectIvlMs(0));
        assertTrue(typed.getMessage().startsWith("reconnectIvlMs must be -1 (never reconnect) or 1 or more: reconnectIvlMs=0"),
                typed.getMessage());
        IllegalArgumentException byNumber = assertThrows(IllegalArgumentException.class,
                () -> s.setIntOption(LibZmq.ZMQ_RECONNECT_IVL, 0));
        assertTrue(byNumber.getMessage().contains("ZMQ_RECONNECT_IVL=0"), byNumber.getMessage());
        assertEquals(100, s.reconnectIvlMs(), "nothing reached libzmq");
        s.reconnectIvlMs(-1);
        assertEquals(-1, s.reconnectIvlMs());
        s.setIntOption(LibZmq.ZMQ_RECONNECT_IVL, 1);
        assertEquals(1, s.reconnectIvlMs());
        ZmqException belowMinusOne = assertThrows(ZmqException.class, () -> s.reconnectIvlMs(-2));
        assertEquals(LibZmq.EINVAL, belowMinusOne.errno(), "libzmq's own refusal stands");
    }

    /**
     * Why 0 is refused on 4.3.4, where it does not crash: set behind the binding's back, it stops
     * the retries as -1 does. A socket with a 10 ms interval, connecting to the same closed port,
     * shows the retries that the other one would have had by then.
     */
    @Test
    void shouldShowThatLibzmqTakesZeroAsNeverReconnect() throws Throwable {
        String nobody = "tcp://127.0.0.1:" + Ports.unused();
        ZmqSocket zero = ctx.socket(SocketType.DEALER);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment value = a.allocateFrom(ValueLayout.JAVA_INT, 0);
            MemorySegment capture = a.allocate(LibZmq.CAPTURE_LAYOUT);
            assertEquals(0, (int) LibZmq.zmq_setsockopt.invokeExact(capture, zero.handle(), LibZmq.ZMQ_RECONNECT_IVL, value, 4L));
        }
        ZmqSocket control = ctx.socket(SocketType.DEALER);
        control.reconnectIvlMs(10);
        try (SocketMonitor zeroEvents = zero.monitor(EnumSet.of(CLOSED, CONNECT_RETRIED));
                SocketMonitor controlEvents = control.monitor(EnumSet.of(CONNECT_RETRIED))) {
            zero.connect(nobody);
            MonitorEvent first = zeroEvents.receive(Duration.ofSeconds(5));
            assertNotNull(first, "the refused attempt closes its descriptor");
            assertEquals(CLOSED, first.type());
            control.connect(nobody);
            for (int i = 0; i < 5; i++) { // at least 50 ms after the other's attempt failed
                assertNotNull(controlEvents.receive(Duration.ofSeconds(5)), "retry " + i + " of the 10 ms socket");
            }
            assertNull(zeroEvents.tryReceive(), "interval 0: no retry");
        }
        zero.lingerMs(0);
        control.lingerMs(0);
    }
}
