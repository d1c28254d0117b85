package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.function.ObjIntConsumer;
import java.util.function.ToIntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Keepalive settings Linux refuses are refused when they are set. libzmq takes any value from 0
 * and hands it to the kernel on each new tcp connection; the kernel's EINVAL made libzmq drop that
 * connection and try again for ever, so a connect with {@code tcpKeepaliveIdle(0)} never delivered
 * a message and nothing said why.
 */
class TcpKeepaliveRangeTest extends ContextTestBase {

    @BeforeEach
    void linuxOnly() {
        assumeTrue(LibZmq.ERRNO_VALUES == LibZmq.Errno.LINUX, "the bounds checked are Linux's");
    }

    @ParameterizedTest(name = "{0}({1})")
    @CsvSource({"tcpKeepaliveIdle,0", "tcpKeepaliveIdle,32768", "tcpKeepaliveIdle,-2",
            "tcpKeepaliveIntvl,0", "tcpKeepaliveIntvl,32768", "tcpKeepaliveIntvl,-2",
            "tcpKeepaliveCnt,0", "tcpKeepaliveCnt,128", "tcpKeepaliveCnt,-2"})
    void shouldRefuseAKeepaliveValueLinuxRefuses(String option, int value) {
        ZmqSocket s = ctx.socket(SocketType.PUSH);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> setter(option).accept(s, value));
        assertEquals(true, e.getMessage().contains(option + "=" + value), e.getMessage());
        assertEquals(-1, getter(option).applyAsInt(s), "a refused value leaves the option unchanged");
    }

    /**
     * The same values through {@link ZmqSocket#setIntOption}, which the class documents for options
     * of type int: they reached libzmq unchecked, and a connect with ZMQ_TCP_KEEPALIVE_IDLE=0 set
     * that way delivered nothing, as the typed setter's did before it checked.
     */
    @ParameterizedTest(name = "option {0} = {1}")
    @CsvSource({"36,0", "36,32768", "37,0", "37,-2", "35,0", "35,128"})
    void shouldRefuseAKeepaliveValueLinuxRefusesThroughSetIntOption(int option, int value) {
        ZmqSocket s = ctx.socket(SocketType.PUSH);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.setIntOption(option, value));
        assertEquals(true, e.getMessage().contains("=" + value + " "), e.getMessage());
        assertEquals(-1, s.getIntOption(option), "a refused value leaves the option unchanged");
        s.setIntOption(option, 1); // and a good one still goes through
        assertEquals(1, s.getIntOption(option));
    }

    @Test
    void shouldConnectWithTheLargestKeepaliveValues() {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.tcpKeepalive(1);
        push.tcpKeepaliveIdle(ZmqSocket.MAX_TCP_KEEPALIVE_SECONDS);
        push.tcpKeepaliveIntvl(ZmqSocket.MAX_TCP_KEEPALIVE_SECONDS);
        push.tcpKeepaliveCnt(ZmqSocket.MAX_TCP_KEEPALIVE_CNT);
        push.connect(Endpoints.bindAny(pull, "tcp"));
        push.send("over keepalive", 0);
        pull.receiveTimeoutMs(10_000);
        assertEquals("over keepalive", pull.receiveString(0));
    }

    private static ObjIntConsumer<ZmqSocket> setter(String option) {
        return switch (option) {
            case "tcpKeepaliveIdle" -> ZmqSocket::tcpKeepaliveIdle;
            case "tcpKeepaliveIntvl" -> ZmqSocket::tcpKeepaliveIntvl;
            default -> ZmqSocket::tcpKeepaliveCnt;
        };
    }

    private static ToIntFunction<ZmqSocket> getter(String option) {
        return switch (option) {
            case "tcpKeepaliveIdle" -> ZmqSocket::tcpKeepaliveIdle;
            case "tcpKeepaliveIntvl" -> ZmqSocket::tcpKeepaliveIntvl;
            default -> ZmqSocket::tcpKeepaliveCnt;
        };
    }
}
