package io.zmqzstd.transport;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * libzmq takes any ZMQ_MAXMSGSIZE and treats every negative one as "no limit", so a limit computed
 * wrongly (an overflow, a subtraction gone below zero) lifted the limit instead of failing.
 */
class MaxMessageSizeRangeTest extends ContextTestBase {

    @ParameterizedTest
    @ValueSource(longs = {-2, Long.MIN_VALUE})
    void shouldRefuseANegativeLimitOtherThanMinusOne(long bytes) {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pull.maxMessageSize(bytes));
        assertEquals("maxMessageSize must be -1 (no limit) or 0 or more: maxMessageSize=" + bytes, e.getMessage());
        assertEquals(-1, pull.maxMessageSize(), "a refused limit is not set");
        pull.maxMessageSize(0);
        assertEquals(0, pull.maxMessageSize());
        pull.maxMessageSize(-1);
        assertEquals(-1, pull.maxMessageSize());
    }
}
