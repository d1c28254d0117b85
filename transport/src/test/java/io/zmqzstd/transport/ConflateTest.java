package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * {@link ZmqSocket#conflate(boolean)} keeps only the last message; over inproc, where the two
 * sockets share one pipe, libzmq 4.3.4 makes that pipe with the connecting socket's setting, so a
 * bound PULL's conflate does nothing for a PUSH that connects without it. (The Javadoc said only
 * "keep only the last message" until 2026-11-27.) An inproc send writes into the pipe before it
 * returns, so every message is queued when the receive begins.
 */
class ConflateTest extends ContextTestBase {

    @Test
    void shouldKeepOnlyTheLastMessageWhenTheConnectingPullConflates() {
        assertEquals("m4", arrived("inproc://conflate-pull-connects", false, SocketType.PULL));
    }

    @Test
    void shouldKeepOnlyTheLastMessageWhenTheConnectingPushConflates() {
        assertEquals("m4", arrived("inproc://conflate-push-connects", true, SocketType.PUSH));
    }

    @Test
    void shouldKeepEveryMessageWhenOnlyTheBoundPullConflatesOverInproc() {
        assertEquals("m0,m1,m2,m3,m4", arrived("inproc://conflate-pull-binds", true, SocketType.PULL));
    }

    /**
     * A PUSH and a PULL over {@code endpoint}, the PULL bound when {@code pullBinds}, conflate set
     * on the one of type {@code conflating}: what arrives of m0 to m4.
     */
    private String arrived(String endpoint, boolean pullBinds, SocketType conflating) {
        ZmqSocket pull = socket(SocketType.PULL);
        ZmqSocket push = socket(SocketType.PUSH);
        (conflating == SocketType.PULL ? pull : push).conflate(true);
        (pullBinds ? pull : push).bind(endpoint);
        (pullBinds ? push : pull).connect(endpoint);
        return sendFiveAndDrain(push, pull);
    }

    /** Sends m0 to m4, then receives until nothing is queued: what arrived, comma-separated. */
    private static String sendFiveAndDrain(ZmqSocket push, ZmqSocket pull) {
        for (int i = 0; i < 5; i++) {
            push.send("m" + i, 0);
        }
        StringBuilder got = new StringBuilder(pull.receiveString(0));
        for (String s; (s = pull.receiveString(ZmqSocket.DONTWAIT)) != null; ) {
            got.append(',').append(s);
        }
        assertNull(pull.receiveString(ZmqSocket.DONTWAIT));
        return got.toString();
    }
}
