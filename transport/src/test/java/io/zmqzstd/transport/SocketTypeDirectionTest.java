package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * README "API": {@link SocketType#sends()} and {@link SocketType#receives()} say whether libzmq lets
 * the type send or receive at all (not SUB and PULL, not PUB and PUSH), checked against libzmq
 * itself: each type that cannot is refused with ENOTSUP, and each that can is not (its send or
 * receive may still return would-block or fail for its state, as a REQ that receives first does).
 */
class SocketTypeDirectionTest extends ContextTestBase {

    private static final int ENOTSUP_LINUX = 95;

    @Test
    @EnabledOnOs(OS.LINUX) // ENOTSUP is 95 there
    void shouldSayWhatLibzmqLetsEachTypeDo() {
        for (SocketType type : SocketType.values()) {
            assertEquals(type != SocketType.SUB && type != SocketType.PULL, type.sends(), type + ".sends()");
            assertEquals(type != SocketType.PUB && type != SocketType.PUSH, type.receives(), type + ".receives()");
            ZmqSocket s = ctx.socket(type);
            s.lingerMs(0);
            assertEquals(type.sends(), !refusedAsUnsupported(() -> s.send(new byte[] {7}, ZmqSocket.DONTWAIT)),
                    type + ": a send");
            assertEquals(type.receives(), !refusedAsUnsupported(() -> s.receiveBytes(ZmqSocket.DONTWAIT)),
                    type + ": a receive");
            s.close();
        }
    }

    /** True when {@code call} is refused with ENOTSUP; any other outcome of libzmq's is false. */
    private static boolean refusedAsUnsupported(Runnable call) {
        try {
            call.run();
            return false;
        } catch (ZmqException e) {
            if (e.errno() == ENOTSUP_LINUX) {
                assertTrue(e.getMessage().contains("socket cannot "), e.getMessage());
                return true;
            }
            assertFalse(e.isContextTerminated(), e.getMessage());
            return false;
        }
    }
}
