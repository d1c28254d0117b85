package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.ZstdDecompressor;
import io.zmqzstd.codec.ZstdException;
import io.zmqzstd.codec.ZstdFrames;
import io.zmqzstd.pipeline.BadFrameReason;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Decompression bombs: tiny frames that expand enormously. A frame that declares more than the
 * limit is refused from its header before a byte is decompressed; a frame that does not declare
 * its size is stopped at the limit. In both cases the receiver's native output region stays
 * within the limit and the Java heap barely moves.
 */
class DecompressionBombTest {

    /** Not a power of two on purpose: growth by doubling must still stop at the limit. */
    static final long LIMIT = (1 << 20) + 1000;
    static final int BOMB_BYTES = 64 << 20;
    /** As in the codec's InteropTest: true makes a missing zstd command line a failure, not a skip. */
    static final String REQUIRE_CLI_PROPERTY = "zmqzstd.requireZstdCli";
    /** What a destination holds before a decode: not zero, the bombs' content. */
    private static final byte UNWRITTEN = (byte) 0xA5;

    private ZmqContext context;
    private ZmqSocket push;
    private ZmqSocket pull;
    private DecompressingReceiver receiver;

    @BeforeEach
    void open() {
        context = new ZmqContext();
        pull = context.socket(SocketType.PULL);
        push = context.socket(SocketType.PUSH);
        pull.bind("inproc://bomb");
        push.connect("inproc://bomb");
        pull.receiveTimeoutMs(10_000);
        receiver = DecompressingReceiver.builder(pull).maxDecompressedSize(LIMIT).build();
    }

    @AfterEach
    void close() {
        receiver.close();
        context.close();
    }

    @Test
    void shouldRefuseFrameDeclaringMoreThanLimitFromItsHeader() {
        // A forged header that declares 1 TiB in front of a single 5-byte raw block: decompressing
        // it would fail as corrupt, so TOO_LARGE proves the header alone decided.
        byte[] forged = forgedHeader(1L << 40, "hello".getBytes());
        assertEquals(1L << 40, ZstdFrames.contentSize(MemorySegment.ofArray(forged)));
        long regionBefore = regionAfterOneMoreMessage();

        assertEquals(DecompressingReceiver.BAD_FRAME, sendAndReceive(forged));
        assertEquals(BadFrameReason.TOO_LARGE, receiver.lastErrorReason());
        assertTrue(receiver.lastErrorMessage().contains("declared=1099511627776"), receiver.lastErrorMessage());
        assertEquals(regionBefore, regionAfterOneMoreMessage(), "refused from the header: the region did not grow");
        assertReceiverStillWorks();
    }

    @Test
    void shouldRefuseRealBombDeclaringItsSizeWithoutGrowingMemory() {
        byte[] bomb = Frames.sized(Frames.zeros(BOMB_BYTES), 1);
        assertTrue(bomb.length < 8 * 1024, "bomb frame bytes=" + bomb.length);
        long regionBefore = regionAfterOneMoreMessage();

        long heapBefore = threadAllocatedBytes();
        int status = sendAndReceive(bomb);
        long heapDelta = threadAllocatedBytes() - heapBefore;

        assertEquals(DecompressingReceiver.BAD_FRAME, status);
        assertEquals(BadFrameReason.TOO_LARGE, receiver.lastErrorReason());
        // The header's size decided, not the limit reached while decoding.
        assertTrue(receiver.lastErrorMessage().contains("frame larger than limit: declared=" + BOMB_BYTES + ", limit=" + LIMIT),
                receiver.lastErrorMessage());
        assertRegionWithinLimit();
        assertTrue(heapDelta < 256 * 1024, "heap allocated while refusing a bomb: " + heapDelta);
        assertEquals(regionBefore, regionAfterOneMoreMessage(), "refused from the header: the region did not grow");
        assertReceiverStillWorks();
    }

    @Test
    void shouldStopFrameWithoutDeclaredSizeAtTheLimitInTheCodec() {
        byte[] bomb = unsizedBomb();
        assertEquals(ZstdFrames.CONTENT_SIZE_UNKNOWN, ZstdFrames.contentSize(MemorySegment.ofArray(bomb)));
        try (Arena arena = Arena.ofConfined();
             ZstdDecompressor d = ZstdDecompressor.builder().maxDecompressedSize(LIMIT).build()) {
            MemorySegment src = arena.allocate(bomb.length);
            MemorySegment.copy(MemorySegment.ofArray(bomb), 0, src, 0, bomb.length);
            // The destination is far larger than the limit: only the limit can stop it. The bomb
            // decodes to zeros, so the destination starts out as something else: a zeroed one
            // would look untouched whatever the decoder wrote into it.
            MemorySegment dst = arena.allocate(4 * LIMIT).fill(UNWRITTEN);
            ZstdException e = assertThrows(ZstdException.class, () -> d.decompress(src, dst));
            assertEquals(ZstdException.Reason.TOO_LARGE, e.reason());
            // Nothing was written past the limit: every byte there is still the fill.
            MemorySegment past = dst.asSlice(LIMIT);
            long written = past.mismatch(arena.allocate(past.byteSize()).fill(UNWRITTEN));
            assertEquals(-1, written, () -> "byte written past the limit at " + (LIMIT + written));
        }
    }

    @Test
    void shouldStopFrameWithoutDeclaredSizeAtTheLimitInTheReceiver() {
        byte[] bomb = unsizedBomb();
        long heapBefore = threadAllocatedBytes();
        int status = sendAndReceive(bomb);
        long heapDelta = threadAllocatedBytes() - heapBefore;

        assertEquals(DecompressingReceiver.BAD_FRAME, status);
        assertEquals(BadFrameReason.TOO_LARGE, receiver.lastErrorReason());
        assertTrue(receiver.lastErrorMessage().contains("declared=unknown"), receiver.lastErrorMessage());
        assertRegionWithinLimit();
        assertTrue(heapDelta < 256 * 1024, "heap allocated while stopping a bomb: " + heapDelta);
        assertReceiverStillWorks();
    }

    @Test
    void shouldStopStreamedFrameMadeByTheZstdCommandLineTool() throws Exception {
        byte[] bomb = cliBombFromStdin();
        MachineRequirement.require(bomb != null, "zstd command-line tool not on PATH (apt-get install zstd)",
                REQUIRE_CLI_PROPERTY);
        assertEquals(ZstdFrames.CONTENT_SIZE_UNKNOWN, ZstdFrames.contentSize(MemorySegment.ofArray(bomb)),
                "zstd reading stdin does not know the size");
        assertEquals(DecompressingReceiver.BAD_FRAME, sendAndReceive(bomb));
        assertEquals(BadFrameReason.TOO_LARGE, receiver.lastErrorReason());
        assertRegionWithinLimit();
        assertReceiverStillWorks();
    }

    @Test
    void shouldDeliverFrameOfExactlyTheLimit() {
        byte[] payload = Frames.text((int) LIMIT, 7);
        assertEquals(DecompressingReceiver.RECEIVED, sendAndReceive(Frames.sized(payload, 3)));
        assertEquals(LIMIT, receiver.message().partSize(0));
        assertEquals(DecompressingReceiver.RECEIVED, sendAndReceive(Frames.unsized(payload)));
        assertEquals(LIMIT, receiver.message().partSize(0));
        assertEquals(DecompressingReceiver.BAD_FRAME, sendAndReceive(Frames.sized(Frames.text((int) LIMIT + 1, 7), 3)));
        assertEquals(BadFrameReason.TOO_LARGE, receiver.lastErrorReason());
        assertRegionWithinLimit();
    }

    // ------------------------------------------------------------------------------------------

    private int sendAndReceive(byte[] part) {
        assertTrue(push.send(part, 0));
        return receiver.receive(0);
    }

    /** The memory bound: the receiver's output region never grows past the limit. */
    private void assertRegionWithinLimit() {
        long region = regionAfterOneMoreMessage();
        assertTrue(region <= LIMIT, "receiver output region=" + region + " exceeds limit=" + LIMIT);
    }

    private long regionAfterOneMoreMessage() {
        assertTrue(receiver.receive(ZmqSocket.DONTWAIT) == DecompressingReceiver.WOULD_BLOCK);
        assertTrue(sendAndReceive(Frames.sized(new byte[1], 3)) == DecompressingReceiver.RECEIVED);
        return receiver.message().region().byteSize();
    }

    /** Pipeline finding (fixed): growth by doubling used to leave a region of twice the limit. */
    @Test
    void shouldNeverGrowTheOutputRegionPastTheLimit() {
        assertEquals(DecompressingReceiver.BAD_FRAME, sendAndReceive(unsizedBomb()));
        long region = regionAfterOneMoreMessage();
        assertTrue(region <= LIMIT, "receiver output region=" + region + " exceeds limit=" + LIMIT);
    }

    private void assertReceiverStillWorks() {
        byte[] payload = Frames.text(1000, 1);
        assertEquals(DecompressingReceiver.RECEIVED, sendAndReceive(Frames.sized(payload, 3)));
        assertTrue(java.util.Arrays.equals(payload, receiver.message().partBytes(0)));
    }

    /** A streamed (size-less) frame of {@link #BOMB_BYTES} zeros. */
    static byte[] unsizedBomb() {
        return Frames.unsized(Frames.zeros(BOMB_BYTES));
    }

    /** {@link #BOMB_BYTES} zeros piped through {@code zstd -c}: the tool cannot know the size. Null without zstd. */
    static byte[] cliBombFromStdin() throws Exception {
        Process p;
        try {
            p = new ProcessBuilder("zstd", "-q", "-c", "-").start();
        } catch (IOException e) {
            return null;
        }
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getInputStream().readAllBytes();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try (OutputStream in = p.getOutputStream()) {
            byte[] chunk = new byte[1 << 20];
            for (int i = 0; i < BOMB_BYTES / chunk.length; i++) {
                in.write(chunk);
            }
        }
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "zstd did not finish");
        assertEquals(0, p.exitValue());
        return out.get(30, TimeUnit.SECONDS);
    }

    /** A frame header (not single segment, 8-byte content size) declaring {@code declared}, then one raw block. */
    static byte[] forgedHeader(long declared, byte[] block) {
        ByteBuffer b = ByteBuffer.allocate(4 + 1 + 1 + 8 + 3 + block.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(ZstdFrames.MAGIC);
        b.put((byte) (3 << 6));      // FHD: content-size flag 3 (8 bytes), no single segment
        b.put((byte) (7 << 3));      // window descriptor: 128 KiB
        b.putLong(declared);
        int header = (block.length << 3) | 1; // raw block, last
        b.put((byte) header).put((byte) (header >>> 8)).put((byte) (header >>> 16));
        b.put(block);
        return b.array();
    }

    static long threadAllocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

}
