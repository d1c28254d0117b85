package io.zmqzstd.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ValuesTest {

    @Test
    void shouldAcceptEndpointsLibzmqUnderstands() {
        for (String e : new String[] {"tcp://127.0.0.1:5555", "tcp://*:5555", "tcp://*:*", "tcp://host.example:1",
                "tcp://[::1]:5555", "tcp://[127.0.0.1]:5555", "tcp://[::ffff:127.0.0.1]:5555", "tcp://[fe80::1%1]:5555",
                "tcp://eth0:5555", "tcp://10.0.0.1:0;10.0.0.2:5555", "ipc:///tmp/feed"}) {
            assertEquals(e, Values.endpoint(e));
        }
    }

    @Test
    void shouldRejectMalformedEndpoints() {
        for (String e : new String[] {"localhost:5555", "tcp://localhost", "tcp://:5555", "tcp://host:99999",
                "tcp://host:port", "foo://bar", "tcp://", "", "tcp://[zz::1]:5555", "tcp://[::1:5555", "tcp://[]:5555",
                "tcp://[::1%]:5555", "tcp://[127.0.0.1%1]:5555", "tcp://[1::2::3]:5555", "inproc://x"}) {
            assertThrows(TypeConversionException.class, () -> Values.endpoint(e), e);
        }
    }

    /**
     * tipc addresses as libzmq 4.3.4 reads them; one it cannot read failed there with a stale errno
     * (EAGAIN), so each is refused here, naming the forms.
     */
    @Test
    void shouldAcceptTheTipcAddressesLibzmqReadsAndRefuseTheRest() {
        for (String e : new String[] {"tipc://{5560,0,0}", "tipc://{64,0,0}", "tipc://{65,7}", "tipc://{5560,0}@0.0.0",
                "tipc://{5560,1,5}@1.2.3", "tipc://<1.2.3:4>", "tipc://<*>", "tipc://{4294967295,0,4294967295}"}) {
            assertEquals(e, Values.endpoint(e));
        }
        for (String e : new String[] {"tipc://1000", "tipc://{63,0,0}", "tipc://{64,0}", "tipc://{5560,5,1}",
                "tipc://{5560,1}@1.2", "tipc://{5560,1}@1.2.3x", "tipc://{4294967296,1,2}", "tipc://<1.2.3>", "tipc://{5560}"}) {
            TypeConversionException x = assertThrows(TypeConversionException.class, () -> Values.endpoint(e), e);
            assertTrue(x.getMessage().startsWith("malformed tipc endpoint '" + e + "': "), x.getMessage());
        }
    }

    @Test
    void shouldFindTheDestinationPortOfATcpEndpoint() {
        assertEquals(0, Values.port("tcp://127.0.0.1:0"));
        assertEquals(5555, Values.port("tcp://10.0.0.1:0;10.0.0.2:5555")); // a source port 0 is fine
        assertEquals(5555, Values.port("tcp://[::1]:5555"));
        assertEquals(-1, Values.port("tcp://*:*"));
        assertEquals(-1, Values.port("ipc:///tmp/feed:0"));
    }

    /** ws endpoints: their port, and the path libzmq asks for ({@code /} without one), apart from the host's brackets. */
    @Test
    void shouldFindThePortAndPathOfAWsEndpoint() {
        assertEquals(5555, Values.port("ws://[::1]:5555/feed/x"));
        assertEquals(5555, Values.port("tcp://127.0.0.1:5555"));
        assertEquals(-1, Values.port("ws://127.0.0.1:*/feed"));
        assertEquals("/feed/x", Values.wsPath("ws://[::1]:5555/feed/x"));
        assertEquals("/", Values.wsPath("ws://[fe80::1%lo]:5555"));
        assertEquals("/", Values.wsPath("wss://localhost:5555"));
        assertEquals(null, Values.wsPath("tcp://127.0.0.1:5555"));
    }

    /** libzmq resolves an IPv6 address only on a socket with ZMQ_IPV6; an IPv4 one in brackets works without. */
    @Test
    void shouldTellWhichTcpEndpointsBindAnyFreePort() {
        assertEquals("*", Values.anyPort("tcp://127.0.0.1:*"));
        assertEquals("0", Values.anyPort("tcp://[::1]:0"));
        assertNull(Values.anyPort("tcp://127.0.0.1:5555"));
        assertNull(Values.anyPort("tcp://10.0.0.1:0;10.0.0.2:5555")); // the source's port 0 is not the destination's
        assertNull(Values.anyPort("ipc:///tmp/feed:0"));
        assertNull(Values.anyPort("ipc://*")); // a fresh path, but not a tcp port
    }

    @Test
    void shouldTellWhichEndpointsNameAnIpv6Address() {
        assertEquals("[::1]", Values.tcpHost("tcp://[::1]:5555"));
        assertEquals("host.example", Values.tcpHost("tcp://[::1]:0;host.example:5555"));
        assertEquals(null, Values.tcpHost("ipc:///tmp/feed"));
        assertEquals(null, Values.tcpHost("ws://localhost:5555/feed")); // tcp only: its port and source checks
        assertEquals("localhost", Values.host("ws://localhost:5555/feed")); // the host checks take ws too
        assertEquals("[::1]", Values.host("wss://[::1]:5555"));
        assertEquals("host.example", Values.host("tcp://[::1]:0;host.example:5555"));
        assertEquals(null, Values.host("ipc:///tmp/feed"));
        assertTrue(Values.namesIpv6Address("tcp://[::1]:5555"));
        assertTrue(Values.namesIpv6Address("tcp://[::1]:0;127.0.0.1:5555"));
        assertTrue(Values.namesIpv6Address("ws://[::1]:5555/feed")); // ws too: it was left without ZMQ_IPV6
        assertFalse(Values.namesIpv6Address("tcp://[127.0.0.1]:5555"));
        assertFalse(Values.namesIpv6Address("tcp://localhost:5555"));
        assertFalse(Values.namesIpv6Address("ipc:///tmp/[a:b]"));
    }

    @Test
    void shouldParseSizesInPowersOf1024() {
        assertEquals(4096, Values.byteSize("4096"));
        assertEquals(64 * 1024, Values.byteSize("64K"));
        assertEquals(64 * 1024, Values.byteSize("64KiB"));
        assertEquals(1 << 20, Values.byteSize("1m"));
        assertEquals(2L << 30, Values.byteSize("2G"));
        assertThrows(TypeConversionException.class, () -> Values.byteSize("12X"));
        assertThrows(TypeConversionException.class, () -> Values.byteSize("-1"));
        assertThrows(TypeConversionException.class, () -> Values.byteSize("99999999999999999999G"));
    }

    @Test
    void shouldParseDurationsWithUnits() {
        assertEquals(Duration.ofMillis(500), Values.duration("500ms"));
        assertEquals(Duration.ofSeconds(10), Values.duration("10s"));
        assertEquals(Duration.ofMillis(1500), Values.duration("1.5s"));
        assertEquals(Duration.ofSeconds(7), Values.duration("7"));
        assertEquals(Duration.ofMinutes(2), Values.duration("2m"));
        assertEquals(Duration.ofHours(1), Values.duration("1h"));
        assertEquals(Duration.ofMillis(1), Values.duration("0.7ms")); // to the nearest millisecond, as the README says
        assertEquals(Duration.ZERO, Values.duration("0.4ms"));
        assertEquals(-1, Values.millis(Values.duration("forever")));
        assertEquals("10s", Values.show(Duration.ofSeconds(10)));
        assertEquals("250ms", Values.show(Duration.ofMillis(250)));
        assertThrows(TypeConversionException.class, () -> Values.duration("10 parsecs"));
        assertThrows(TypeConversionException.class, () -> Values.duration("1000h"));
    }

    /** forever is also written infinite or -1 (libzmq's value); any other negative duration is refused, naming it. */
    @Test
    void shouldTakeInfiniteAndMinusOneForForeverAndRefuseOtherNegatives() {
        assertEquals(Values.duration("forever"), Values.duration("infinite"));
        assertEquals(Values.duration("forever"), Values.duration("-1"));
        assertEquals(-1, Values.millis(Values.duration("infinite")));
        for (String negative : List.of("-2", "-1s", "-0.5", "-1ms")) {
            TypeConversionException e = assertThrows(TypeConversionException.class, () -> Values.duration(negative), negative);
            assertTrue(e.getMessage().startsWith("'" + negative + "' is not a duration"), e::getMessage);
        }
    }

    @Test
    void shouldUnescapeDelimiters() {
        assertArrayEquals(new byte[] {'\n'}, Values.delimiter("\\n"));
        assertArrayEquals(new byte[] {0}, Values.delimiter("\\0"));
        assertArrayEquals(new byte[] {(byte) 0x1e}, Values.delimiter("\\x1E"));
        assertArrayEquals(new byte[] {'|'}, Values.delimiter("|"));
        assertArrayEquals(new byte[] {'\r', '\n'}, Values.delimiter("\\r\\n"));
        assertArrayEquals(new byte[0], Values.delimiter(""));
        assertThrows(TypeConversionException.class, () -> Values.delimiter("\\q"));
        assertThrows(TypeConversionException.class, () -> Values.delimiter("\\x4"));
        assertThrows(TypeConversionException.class, () -> Values.delimiter("\\"));
    }

    /** A character outside the BMP is two Java chars: each was encoded alone, as '?', so U+1F600 became "??". */
    @Test
    void shouldEncodeACharacterOutsideTheBmpWholeInADelimiter() {
        String emoji = "\uD83D\uDE00"; // U+1F600
        assertArrayEquals(new byte[] {(byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80}, Values.delimiter(emoji));
        assertArrayEquals(("|" + emoji + "\t").getBytes(StandardCharsets.UTF_8), Values.delimiter("|" + emoji + "\\t"));
    }
}
