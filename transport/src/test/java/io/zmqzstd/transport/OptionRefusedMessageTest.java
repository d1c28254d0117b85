package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An option value libzmq refuses is named in the exception, as key=value (or its length for bytes). */
class OptionRefusedMessageTest extends ContextTestBase {

    @Test
    void shouldNameTheValueLibzmqRefused() {
        ZmqSocket dealer = ctx.socket(SocketType.DEALER);
        assertRefusedStartingWith("zmq_setsockopt(ZMQ_SNDHWM=-1)", () -> dealer.sendHwm(-1));
        assertRefusedStartingWith("zmq_setsockopt(ZMQ_LINGER=-7)", () -> dealer.lingerMs(-7));
        assertRefusedStartingWith("zmq_setsockopt(option 9999=1)", () -> dealer.setIntOption(9999, 1));
        assertEquals(1000, dealer.sendHwm(), "a refused value leaves the option as it was");
    }

    /**
     * An option whose C type is not int, by number through setIntOption or getIntOption: refused
     * before libzmq, naming the option, its type and the typed method. Until 2026-11-29 libzmq
     * answered: a bare EINVAL ("option 22=5") for the 64-bit ones, and for a routing id of up to
     * 4 bytes read as an int its bytes as a number.
     */
    @Test
    void shouldRefuseAnOptionThatIsNotAnIntByNumber() {
        ZmqSocket dealer = ctx.socket(SocketType.DEALER);
        IllegalArgumentException set = assertThrows(IllegalArgumentException.class, () -> dealer.setIntOption(LibZmq.ZMQ_MAXMSGSIZE, 5));
        assertEquals("setIntOption takes options of C type int: option 22 is ZMQ_MAXMSGSIZE, an int64_t option (use maxMessageSize)",
                set.getMessage());
        assertEquals(-1, dealer.maxMessageSize(), "nothing set");
        dealer.routingId(new byte[] {'a', 'b'});
        IllegalArgumentException get = assertThrows(IllegalArgumentException.class, () -> dealer.getIntOption(LibZmq.ZMQ_ROUTING_ID));
        assertEquals("getIntOption takes options of C type int: option 5 is ZMQ_ROUTING_ID, a binary option (use routingId)",
                get.getMessage());
        IllegalArgumentException affinity = assertThrows(IllegalArgumentException.class, () -> dealer.getIntOption(LibZmq.ZMQ_AFFINITY));
        assertTrue(affinity.getMessage().endsWith("option 4 is ZMQ_AFFINITY, a uint64_t option"), affinity.getMessage());
        dealer.setIntOption(LibZmq.ZMQ_SNDHWM, 7); // an int option by number still goes
        assertEquals(7, dealer.getIntOption(LibZmq.ZMQ_SNDHWM));
    }

    /**
     * The string and binary options that the list of non-int options missed, until 2026-11-29 taken
     * by number: {@code ZMQ_BINDTODEVICE} (92), whose device's name libzmq 4.3.4 made of the int's
     * four bytes (with 1 the socket's every tcp bind then failed with ENODEV, its note blaming the
     * bind's host), and the string and binary draft options, of which Debian's release build takes
     * {@code ZMQ_SOCKS_USERNAME} and {@code ZMQ_SOCKS_PASSWORD} the same way and refuses the others
     * with a bare EINVAL.
     */
    @Test
    void shouldRefuseBindToDeviceAndTheDraftStringOptionsByNumber() {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        IllegalArgumentException set = assertThrows(IllegalArgumentException.class, () -> pull.setIntOption(92, 1));
        assertEquals("setIntOption takes options of C type int: option 92 is ZMQ_BINDTODEVICE, a string option", set.getMessage());
        assertEquals("getIntOption takes options of C type int: option 92 is ZMQ_BINDTODEVICE, a string option",
                assertThrows(IllegalArgumentException.class, () -> pull.getIntOption(92)).getMessage());
        pull.bind("tcp://127.0.0.1:*"); // nothing set: no device to bind to
        String[][] drafts = {
            {"95", "ZMQ_METADATA, a string option (draft)"},
            {"99", "ZMQ_SOCKS_USERNAME, a string option (draft)"},
            {"100", "ZMQ_SOCKS_PASSWORD, a string option (draft)"},
            {"103", "ZMQ_WSS_KEY_PEM, a string option (draft)"},
            {"104", "ZMQ_WSS_CERT_PEM, a string option (draft)"},
            {"105", "ZMQ_WSS_TRUST_PEM, a string option (draft)"},
            {"106", "ZMQ_WSS_HOSTNAME, a string option (draft)"},
            {"110", "ZMQ_HELLO_MSG, a binary option (draft)"},
            {"111", "ZMQ_DISCONNECT_MSG, a binary option (draft)"},
        };
        for (String[] d : drafts) {
            int option = Integer.parseInt(d[0]);
            assertEquals("setIntOption takes options of C type int: option " + option + " is " + d[1],
                    assertThrows(IllegalArgumentException.class, () -> pull.setIntOption(option, 1)).getMessage());
            assertEquals("getIntOption takes options of C type int: option " + option + " is " + d[1],
                    assertThrows(IllegalArgumentException.class, () -> pull.getIntOption(option)).getMessage());
        }
    }

    /**
     * An option libzmq has on some socket types only, set on another type: libzmq says "Invalid
     * argument" as for a bad value, and until 2026-11-28 so did the message; now it names the
     * types that have the option and this socket's. A bad value on a type that has the option, and
     * any other refusal, get no such note; a read of one of these write-only options says so.
     */
    @Test
    void shouldSayThatTheSocketTypeDoesNotHaveTheOption() {
        ZmqSocket dealer = ctx.socket(SocketType.DEALER);
        assertRefused("zmq_setsockopt(ZMQ_ROUTER_MANDATORY=1) failed: errno=22, error=Invalid argument (ZMQ_ROUTER_MANDATORY"
                + " is an option of ROUTER and REP sockets only: this socket is DEALER)", () -> dealer.routerMandatory(true));
        assertRefused("zmq_setsockopt(ZMQ_SUBSCRIBE, length=3) failed: errno=22, error=Invalid argument (ZMQ_SUBSCRIBE"
                + " is an option of SUB sockets only: this socket is DEALER)", () -> dealer.subscribe("abc"));
        ZmqSocket xsub = ctx.socket(SocketType.XSUB);
        assertRefused("zmq_setsockopt(ZMQ_UNSUBSCRIBE, length=0) failed: errno=22, error=Invalid argument (ZMQ_UNSUBSCRIBE"
                + " is an option of SUB sockets only: this socket is XSUB)", () -> xsub.unsubscribe(""));
        ZmqSocket sub = ctx.socket(SocketType.SUB);
        assertRefused("zmq_setsockopt(ZMQ_XPUB_VERBOSE=1) failed: errno=22, error=Invalid argument (ZMQ_XPUB_VERBOSE"
                + " is an option of XPUB and PUB sockets only: this socket is SUB)", () -> sub.xpubVerbose(true));
        assertRefused("zmq_setsockopt(ZMQ_XPUB_NODROP=0) failed: errno=22, error=Invalid argument (ZMQ_XPUB_NODROP"
                + " is an option of XPUB and PUB sockets only: this socket is SUB)", () -> sub.xpubNoDrop(false));
        ZmqSocket rep = ctx.socket(SocketType.REP);
        assertRefused("zmq_setsockopt(ZMQ_REQ_CORRELATE=1) failed: errno=22, error=Invalid argument (ZMQ_REQ_CORRELATE"
                + " is an option of REQ sockets only: this socket is REP)", () -> rep.reqCorrelate(true));
        assertRefused("zmq_setsockopt(option 53=1) failed: errno=22, error=Invalid argument (ZMQ_REQ_RELAXED"
                + " is an option of REQ sockets only: this socket is REP)", () -> rep.setIntOption(LibZmq.ZMQ_REQ_RELAXED, 1));
        rep.routerMandatory(true); // a REP is a ROUTER inside: libzmq takes it

        ZmqSocket router = ctx.socket(SocketType.ROUTER);
        assertRefused("zmq_setsockopt(option 33=-1) failed: errno=22, error=Invalid argument",
                () -> router.setIntOption(LibZmq.ZMQ_ROUTER_MANDATORY, -1));
        assertRefused("zmq_getsockopt(option 33) failed: errno=22, error=Invalid argument (ZMQ_ROUTER_MANDATORY is"
                + " write-only: libzmq 4.3.4 reads it back on no socket type)", () -> router.getIntOption(LibZmq.ZMQ_ROUTER_MANDATORY));
        // ZMQ_SUBSCRIBE is binary too: by number it is refused before libzmq (shouldRefuseAnOptionThatIsNotAnIntByNumber)
        assertEquals("getIntOption takes options of C type int: option 6 is ZMQ_SUBSCRIBE, a binary option (use subscribe)",
                assertThrows(IllegalArgumentException.class, () -> sub.getIntOption(LibZmq.ZMQ_SUBSCRIBE)).getMessage());
        assertRefused("zmq_getsockopt(option 9999) failed: errno=22, error=Invalid argument", () -> router.getIntOption(9999));
    }

    /** The whole message of a refusal with EINVAL. */
    private static void assertRefused(String expected, Executable call) {
        ZmqException e = assertThrows(ZmqException.class, call);
        assertEquals(LibZmq.EINVAL, e.errno());
        assertEquals(expected, e.getMessage());
    }

    private static void assertRefusedStartingWith(String expected, Executable call) {
        ZmqException e = assertThrows(ZmqException.class, call);
        assertEquals(LibZmq.EINVAL, e.errno());
        assertTrue(e.getMessage().startsWith(expected + " failed: errno="), e.getMessage());
    }
}
