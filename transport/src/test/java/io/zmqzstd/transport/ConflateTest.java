package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
     * conflate(true) on a type libzmq 4.3.4 does not conflate for (it keeps every message there) is
     * refused, typed or by number, naming the type; until 2026-11-28 it was passed on and did
     * nothing. false is taken, and the getter answers what libzmq holds.
     */
    @ParameterizedTest
    @EnumSource(value = SocketType.class, names = {"PAIR", "REQ", "REP", "ROUTER", "XPUB", "XSUB", "STREAM"})
    void shouldRefuseConflateOnATypeLibzmqDoesNotConflate(SocketType type) {
        ZmqSocket s = socket(type);
        IllegalStateException typed = assertThrows(IllegalStateException.class, () -> s.conflate(true));
        assertEquals("conflate is for PUSH, PULL, PUB, SUB and DEALER sockets only: type=" + type + ", conflate=1"
                + " (libzmq 4.3.4 would take it and keep every message)", typed.getMessage());
        IllegalStateException byNumber = assertThrows(IllegalStateException.class, () -> s.setIntOption(LibZmq.ZMQ_CONFLATE, 1));
        assertTrue(byNumber.getMessage().startsWith("ZMQ_CONFLATE is for PUSH, PULL, PUB, SUB and DEALER sockets only: type="
                + type + ", ZMQ_CONFLATE=1"), byNumber.getMessage());
        assertFalse(s.conflate(), "nothing reached libzmq");
        s.conflate(false);
        assertFalse(s.conflate());
    }

    @ParameterizedTest
    @EnumSource(value = SocketType.class, names = {"PUSH", "PULL", "PUB", "SUB", "DEALER"})
    void shouldTakeAndReadBackConflateOnTheTypesLibzmqConflates(SocketType type) {
        ZmqSocket s = socket(type);
        assertFalse(s.conflate());
        s.conflate(true);
        assertTrue(s.conflate());
        s.setIntOption(LibZmq.ZMQ_CONFLATE, 0);
        assertFalse(s.conflate());
    }

    /**
     * Why it is refused: set behind the binding's back on a connecting PAIR (whose pipe setting an
     * inproc pair takes, see above), libzmq takes it and the peer receives every message.
     */
    @Test
    void shouldShowThatLibzmqIgnoresConflateOnAPair() throws Throwable {
        ZmqSocket receiver = socket(SocketType.PAIR);
        ZmqSocket sender = socket(SocketType.PAIR);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment on = a.allocateFrom(ValueLayout.JAVA_INT, 1);
            int rc = (int) LibZmq.zmq_setsockopt.invokeExact(a.allocate(LibZmq.CAPTURE_LAYOUT), receiver.handle(), LibZmq.ZMQ_CONFLATE, on, 4L);
            assertEquals(0, rc, "libzmq takes it");
        }
        assertTrue(receiver.conflate());
        sender.bind("inproc://conflate-pair");
        receiver.connect("inproc://conflate-pair");
        assertEquals("m0,m1,m2,m3,m4", sendFiveAndDrain(sender, receiver));
    }

    /**
     * libzmq keeps the last frame of a conflating pipe, not the last message: [a1, a2], [b1, b2, b3]
     * sent on a PUSH connected with conflate on arrived as one message, b3 alone, and every send
     * returned true (until 2026-11-29). Each send form now refuses SNDMORE on such a socket,
     * nothing sent, and single-part messages still go.
     */
    @Test
    void shouldRefuseAMultipartSendOnASocketConnectedWithConflate() {
        ZmqSocket pull = socket(SocketType.PULL);
        ZmqSocket push = socket(SocketType.PUSH);
        push.conflate(true);
        pull.bind("inproc://conflate-multipart");
        push.connect("inproc://conflate-multipart");
        NativeBufferPool pool = ctx.bufferPool();
        PooledBuffer buffer = pool.rent(16);
        try (ZmqMessage message = new ZmqMessage(); Arena a = Arena.ofConfined()) {
            message.set(a.allocateFrom("part"));
            Map<String, Runnable> forms = new LinkedHashMap<>();
            forms.put("byte[]", () -> push.send(new byte[] {1}, ZmqSocket.SNDMORE));
            forms.put("String", () -> push.send("part", ZmqSocket.SNDMORE | ZmqSocket.DONTWAIT));
            forms.put("segment", () -> push.send(a.allocate(4), 0, 4, ZmqSocket.SNDMORE));
            forms.put("message", () -> push.send(message, ZmqSocket.SNDMORE));
            forms.put("pooled", () -> push.sendPooled(buffer, 16, ZmqSocket.SNDMORE));
            forms.forEach((form, send) -> {
                IllegalStateException e = assertThrows(IllegalStateException.class, send::run, form);
                assertTrue(e.getMessage().contains("with SNDMORE on a socket bound or connected with conflate on: type=PUSH"),
                        form + ": " + e.getMessage());
            });
            assertEquals(5, message.size(), "the refused message keeps its content");
            assertTrue(buffer.isRented(), "the refused buffer stays the caller's");
        }
        buffer.release();
        assertNull(pull.receiveString(ZmqSocket.DONTWAIT), "nothing was sent");
        assertEquals("m4", sendFiveAndDrain(push, pull));
    }

    /**
     * Only pipes made while conflate is on keep one frame: a PUSH that connected before its
     * conflate(true) still sends whole multipart messages, and is not refused them.
     */
    @Test
    void shouldTakeAMultipartSendWhenConflateCameAfterTheConnect() {
        ZmqSocket pull = socket(SocketType.PULL);
        ZmqSocket push = socket(SocketType.PUSH);
        pull.bind("inproc://conflate-after-connect");
        push.connect("inproc://conflate-after-connect");
        push.conflate(true);
        assertTrue(push.send("a1", ZmqSocket.SNDMORE));
        assertTrue(push.send("a2", 0));
        assertEquals("a1", pull.receiveString(0));
        assertTrue(pull.hasMore());
        assertEquals("a2", pull.receiveString(0));
        assertFalse(pull.hasMore());
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
