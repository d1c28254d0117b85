package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.ObjIntConsumer;
import java.util.function.ToIntFunction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every typed int option at the ends of its range, against libzmq 4.3.4: each value the setter
 * takes reads back the same from zmq_getsockopt (Integer.MAX_VALUE included, where libzmq has no
 * upper bound), the first value below the range is refused by libzmq with EINVAL naming option and
 * value, the option left as it was, and after close both setter and getter throw
 * IllegalStateException naming the socket. The options' defaults and ordinary values are in
 * {@code LifecycleAndOptionsTest}; the ranges this binding narrows in their own tests
 * ({@code TcpKeepaliveRangeTest}, {@code TosRangeTest}, {@code ReconnectIntervalRangeTest},
 * {@code HeartbeatTest}).
 */
class SocketOptionRoundTripTest extends ContextTestBase {

    private static final int MAX = Integer.MAX_VALUE;

    /**
     * A typed int option: its name in messages, setter, getter, values that read back as set, and
     * the largest value libzmq refuses (the one just below its range).
     */
    record IntOption(String name, ObjIntConsumer<ZmqSocket> set, ToIntFunction<ZmqSocket> get, int[] readBack, int refused) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<IntOption> intOptions() {
        return List.of(
                new IntOption("ZMQ_SNDHWM", ZmqSocket::sendHwm, ZmqSocket::sendHwm, new int[] {0, 1, MAX}, -1),
                new IntOption("ZMQ_RCVHWM", ZmqSocket::receiveHwm, ZmqSocket::receiveHwm, new int[] {0, 1, MAX}, -1),
                new IntOption("ZMQ_LINGER", ZmqSocket::lingerMs, ZmqSocket::lingerMs, new int[] {-1, 0, MAX}, -2),
                new IntOption("ZMQ_RCVTIMEO", ZmqSocket::receiveTimeoutMs, ZmqSocket::receiveTimeoutMs, new int[] {-1, 0, MAX}, -2),
                new IntOption("ZMQ_SNDTIMEO", ZmqSocket::sendTimeoutMs, ZmqSocket::sendTimeoutMs, new int[] {-1, 0, MAX}, -2),
                new IntOption("ZMQ_RECONNECT_IVL", ZmqSocket::reconnectIvlMs, ZmqSocket::reconnectIvlMs, new int[] {-1, 1, MAX}, -2),
                new IntOption("ZMQ_RECONNECT_IVL_MAX", ZmqSocket::reconnectIvlMaxMs, ZmqSocket::reconnectIvlMaxMs, new int[] {0, 1, MAX}, -1),
                new IntOption("ZMQ_BACKLOG", ZmqSocket::backlog, ZmqSocket::backlog, new int[] {0, 1, MAX}, -1),
                new IntOption("ZMQ_SNDBUF", ZmqSocket::sndbuf, ZmqSocket::sndbuf, new int[] {-1, 0, MAX}, -2),
                new IntOption("ZMQ_RCVBUF", ZmqSocket::rcvbuf, ZmqSocket::rcvbuf, new int[] {-1, 0, MAX}, -2),
                new IntOption("ZMQ_HANDSHAKE_IVL", ZmqSocket::handshakeIvlMs, ZmqSocket::handshakeIvlMs, new int[] {0, 1, MAX}, -1),
                new IntOption("ZMQ_HEARTBEAT_IVL", ZmqSocket::heartbeatIvlMs, ZmqSocket::heartbeatIvlMs, new int[] {0, 1, MAX}, -1),
                new IntOption("ZMQ_HEARTBEAT_TIMEOUT", ZmqSocket::heartbeatTimeoutMs, ZmqSocket::heartbeatTimeoutMs,
                        new int[] {0, 1, MAX}, -1),
                new IntOption("ZMQ_HEARTBEAT_TTL", ZmqSocket::heartbeatTtlMs, ZmqSocket::heartbeatTtlMs,
                        new int[] {0, 100, 65_500}, -100),
                new IntOption("ZMQ_CONNECT_TIMEOUT", ZmqSocket::connectTimeoutMs, ZmqSocket::connectTimeoutMs, new int[] {0, 1, MAX}, -1),
                new IntOption("ZMQ_TCP_KEEPALIVE", ZmqSocket::tcpKeepalive, ZmqSocket::tcpKeepalive, new int[] {-1, 0, 1}, -2),
                new IntOption("ZMQ_TCP_KEEPALIVE_IDLE", ZmqSocket::tcpKeepaliveIdle, ZmqSocket::tcpKeepaliveIdle,
                        new int[] {-1, 1, ZmqSocket.MAX_TCP_KEEPALIVE_SECONDS}, Integer.MIN_VALUE),
                new IntOption("ZMQ_TCP_KEEPALIVE_INTVL", ZmqSocket::tcpKeepaliveIntvl, ZmqSocket::tcpKeepaliveIntvl,
                        new int[] {-1, 1, ZmqSocket.MAX_TCP_KEEPALIVE_SECONDS}, Integer.MIN_VALUE),
                new IntOption("ZMQ_TCP_KEEPALIVE_CNT", ZmqSocket::tcpKeepaliveCnt, ZmqSocket::tcpKeepaliveCnt,
                        new int[] {-1, 1, ZmqSocket.MAX_TCP_KEEPALIVE_CNT}, Integer.MIN_VALUE),
                new IntOption("ZMQ_TOS", ZmqSocket::tos, ZmqSocket::tos, new int[] {0, 1, 255}, Integer.MIN_VALUE),
                new IntOption("ZMQ_IMMEDIATE", (s, v) -> s.immediate(v != 0), s -> s.immediate() ? 1 : 0, new int[] {1, 0}, Integer.MIN_VALUE),
                new IntOption("ZMQ_IPV6", (s, v) -> s.ipv6(v != 0), s -> s.ipv6() ? 1 : 0, new int[] {1, 0}, Integer.MIN_VALUE),
                new IntOption("ZMQ_CONFLATE", (s, v) -> s.conflate(v != 0), s -> s.conflate() ? 1 : 0, new int[] {1, 0}, Integer.MIN_VALUE));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("intOptions")
    void shouldReadBackEveryValueInRangeAndRefuseTheOneBelow(IntOption option) {
        ZmqSocket s = ctx.socket(SocketType.DEALER);
        for (int value : option.readBack()) {
            option.set().accept(s, value);
            assertEquals(value, option.get().applyAsInt(s), () -> option + "=" + value);
        }
        int kept = option.get().applyAsInt(s);
        if (option.refused() != Integer.MIN_VALUE) { // MIN_VALUE: the typed setter cannot pass a value libzmq refuses
            ZmqException e = assertThrows(ZmqException.class, () -> option.set().accept(s, option.refused()));
            assertEquals(LibZmq.EINVAL, e.errno());
            assertTrue(e.getMessage().startsWith("zmq_setsockopt(" + option + "=" + option.refused() + ") failed: errno=22"),
                    e.getMessage());
            assertEquals(kept, option.get().applyAsInt(s), "a refused value leaves the option as it was");
        }
        s.lingerMs(0);
        s.close();
        IllegalStateException set = assertThrows(IllegalStateException.class, () -> option.set().accept(s, kept));
        assertEquals("socket is closed: type=DEALER", set.getMessage());
        assertThrows(IllegalStateException.class, () -> option.get().applyAsInt(s));
    }

    /** ZMQ_MAXMSGSIZE is an int64_t: sizes past 4 GiB and Long.MAX_VALUE read back whole. */
    @ParameterizedTest
    @MethodSource("maxMessageSizes")
    void shouldReadBackALongMaxMessageSize(long bytes) {
        ZmqSocket s = ctx.socket(SocketType.PULL);
        s.maxMessageSize(bytes);
        assertEquals(bytes, s.maxMessageSize());
    }

    static long[] maxMessageSizes() {
        return new long[] {-1, 0, 1, (1L << 32) + 1, Long.MAX_VALUE};
    }

    /**
     * A routing id is bytes, 1 to 255 of them, not starting with a zero byte: UTF-8 text beyond
     * ASCII, NUL bytes inside and 0xFF read back byte for byte, the longest included (libzmq's
     * refusal of an empty one and of 256 bytes is in {@code OptionRefusedMessageTest}).
     */
    @ParameterizedTest
    @MethodSource("routingIds")
    void shouldReadBackAnyRoutingIdOfOneTo255Bytes(byte[] id) {
        ZmqSocket s = ctx.socket(SocketType.DEALER);
        s.routingId(id);
        assertArrayEquals(id, s.routingId());
    }

    static List<byte[]> routingIds() {
        byte[] longest = new byte[255];
        Arrays.fill(longest, (byte) 0xFF);
        return List.of(new byte[] {1}, "wörker-€".getBytes(StandardCharsets.UTF_8), new byte[] {'a', 0, 'b', 0}, longest);
    }
}
