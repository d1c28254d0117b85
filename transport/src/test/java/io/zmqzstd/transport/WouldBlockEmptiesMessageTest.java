package io.zmqzstd.transport;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** ZmqSocket.receive(ZmqMessage) javadoc and README: on would-block "the previous frame is gone then too and msg is empty". */
class WouldBlockEmptiesMessageTest {

    @ParameterizedTest
    @EnumSource(value = SocketType.class, names = {"PULL", "PAIR", "DEALER", "ROUTER", "SUB", "STREAM"})
    void wouldBlockReceiveLeavesTheMessageEmpty(SocketType type) {
        try (ZmqContext ctx = new ZmqContext(); ZmqMessage msg = new ZmqMessage()) {
            ZmqSocket s = ctx.socket(type);
            s.bind("tcp://127.0.0.1:*");
            msg.set(MemorySegment.ofArray(new byte[100]));
            assertFalse(s.receive(msg, ZmqSocket.DONTWAIT));
            assertEquals(0, msg.size(), "previous frame still in the message after a would-block receive on " + type);
        }
    }
}
