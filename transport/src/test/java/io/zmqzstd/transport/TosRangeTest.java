package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code ZMQ_TOS} is one byte of the IP header. libzmq takes any int from 0 and Linux keeps the low
 * byte without a word, so until 2026-11-27 {@code tos(296)} put 0x28 on the wire while
 * {@code tos()} answered 296, and {@code tos(256)} put 0. Values outside 0 to 255 are refused now.
 */
class TosRangeTest extends ContextTestBase {

    private static final int IPPROTO_IP = 0;
    private static final int IP_TOS = 1;

    @Test
    void shouldRefuseATosOutsideOneByte() {
        ZmqSocket s = ctx.socket(SocketType.PUSH);
        for (int bad : new int[] {256, 296, Integer.MAX_VALUE, -1}) {
            IllegalArgumentException typed = assertThrows(IllegalArgumentException.class, () -> s.tos(bad));
            assertTrue(typed.getMessage().startsWith("tos must be 0 to 255: tos=" + bad), typed.getMessage());
            IllegalArgumentException byNumber = assertThrows(IllegalArgumentException.class, () -> s.setIntOption(LibZmq.ZMQ_TOS, bad));
            assertTrue(byNumber.getMessage().contains("ZMQ_TOS=" + bad), byNumber.getMessage());
        }
        assertEquals(0, s.tos(), "nothing reached libzmq");
        s.tos(255);
        assertEquals(255, s.tos());
    }

    /** What the byte does on a tcp connection: DSCP as set; the ECN bits are the kernel's on tcp. */
    @Test
    void shouldPutTheByteOnTheConnection() throws Throwable {
        assumeTrue(LibZmq.ERRNO_VALUES == LibZmq.Errno.LINUX, "IPPROTO_IP and IP_TOS as Linux numbers them");
        assertEquals(0x28, connectionTos(0x28));
        assertEquals(0x28, connectionTos(0x2B), "Linux keeps a tcp socket's ECN bits (the low two) to itself");
    }

    /** IP_TOS of a tcp connection made by a PUSH with {@code tos(tos)}, read from its descriptor. */
    private int connectionTos(int tos) throws Throwable {
        return ConnectionOptions.read(ctx, push -> push.tos(tos), IPPROTO_IP, IP_TOS);
    }
}
