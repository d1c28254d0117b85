package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * A frame past 2 GiB (2^31 bytes, past any {@code byte[]}) sent from a native segment over tcp,
 * where libzmq copies it (zmq_send) and its ZMTP encoder writes the 8-byte size. Heavy: about
 * 6 GiB of native memory at once (the segment, libzmq's copy on each side) and some seconds.
 */
class HugeFrameTest extends ContextTestBase {

    private static final long SIZE = (1L << 31) + 10;

    @Test
    void heavyShouldCarryANativeFramePastTwoGibOverTcpAndRefuseItsArrayCopyKeepingIt() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(SIZE);
            byte[] block = new byte[64 * 1024];
            for (int i = 0; i < block.length; i++) {
                block[i] = (byte) (i * 31 + (i >>> 7));
            }
            for (long at = 0; at < SIZE; at += block.length) {
                MemorySegment.copy(block, 0, src, ValueLayout.JAVA_BYTE, at, (int) Math.min(block.length, SIZE - at));
            }
            ZmqSocket pull = socket(SocketType.PULL);
            ZmqSocket push = socket(SocketType.PUSH);
            pull.receiveTimeoutMs(30_000); // 2 GiB over loopback takes seconds on a busy machine
            push.connect(Endpoints.bindAny(pull, "tcp"));

            ZmqSocket relayed = socket(SocketType.PULL);
            ZmqSocket relay = socket(SocketType.PUSH);
            relay.connect(Endpoints.bindAny(relayed, "inproc"));

            assertTrue(push.send(src, 0, SIZE, 0));
            try (ZmqMessage frame = new ZmqMessage()) {
                assertTrue(pull.receive(frame, 0));
                assertEquals(SIZE, frame.size());
                assertEquals(-1, src.mismatch(frame.data()), "every byte");
                IllegalStateException e = assertThrows(IllegalStateException.class, frame::toByteArray);
                assertTrue(e.getMessage().contains("frame too large for a byte[]: size=" + SIZE), e.getMessage());
                assertEquals(SIZE, frame.size(), "the message keeps its frame");
                assertEquals(src.get(ValueLayout.JAVA_BYTE, SIZE - 1), frame.data().get(ValueLayout.JAVA_BYTE, SIZE - 1));
                try (ZmqMessage shared = new ZmqMessage()) {
                    shared.copyFrom(frame); // the same frame, counted twice: no payload copy
                    assertTrue(relay.send(shared, 0));
                }
                assertTrue(relay.send(frame, 0)); // moved on over inproc, not copied again
            }

            // zmq_recv semantics past 2 GiB: the full size back, more than the room, the rest discarded
            MemorySegment room = arena.allocate(100);
            assertEquals(SIZE, relayed.receive(room, 0));
            assertEquals(-1, room.mismatch(src.asSlice(0, 100)));
            // README "Outcomes and errors": receive(byte[]) answers Integer.MAX_VALUE for a frame of 2 GiB or more
            byte[] array = new byte[100];
            assertEquals(Integer.MAX_VALUE, relayed.receive(array, 0));
            assertEquals(-1, MemorySegment.ofArray(array).mismatch(src.asSlice(0, 100)));
            assertTrue(push.send(b("next"), 0));
            assertEquals("next", pull.receiveString(0), "the stream goes on");
        }
    }
}
