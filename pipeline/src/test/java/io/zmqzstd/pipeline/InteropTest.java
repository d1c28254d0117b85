package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDictCompress;
import com.github.luben.zstd.ZstdDictDecompress;
import io.zmqzstd.codec.ZstdFrames;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import org.junit.jupiter.api.Test;

/** Our frames on the wire are plain zstd frames, and plain zstd frames are received by us. */
class InteropTest {

    static final int[] SIZES = {0, 1, 64, 1024, 64 * 1024, 1024 * 1024};

    @Test
    void shouldSendFramesThatZstdJniDecodes() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "tcp");
            try (CompressingSender sender = CompressingSender.builder(push).checksum(true).build()) {
                for (int size : SIZES) {
                    byte[] data = Fixtures.payload(size, size);
                    assertTrue(sender.send(data, 0));
                    byte[] frame = pull.receiveBytes(0);
                    assertEquals(size, Zstd.getFrameContentSize(frame), "content size must be in the header");
                    assertEquals(frame.length, Zstd.findFrameCompressedSize(frame), "exactly one frame per part");
                    assertArrayEquals(data, Zstd.decompress(frame, size));
                }
            }
        }
    }

    @Test
    void shouldSendDictionaryFramesThatZstdJniDecodesWithTheSameDictionary() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            ZstdDictDecompress dict = new ZstdDictDecompress(Fixtures.dictionary().bytes());
            try (CompressingSender sender = CompressingSender.builder(push).dictionary(Fixtures.dictionary()).build()) {
                byte[] data = Fixtures.payload(120, 5);
                assertTrue(sender.send(data, 0));
                byte[] frame = pull.receiveBytes(0);
                assertEquals(Fixtures.dictionary().id(), (int) Zstd.getDictIdFromFrame(frame));
                assertArrayEquals(data, Zstd.decompress(frame, dict, data.length));
                assertTrue(frame.length < data.length, "a dictionary shrinks small telemetry messages");
            }
        }
    }

    @Test
    void shouldReceiveFramesMadeByZstdJni() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "tcp");
            ZstdDictCompress dict = new ZstdDictCompress(Fixtures.dictionary().bytes(), 5);
            try (DecompressingReceiver receiver = DecompressingReceiver.builder(pull).dictionary(Fixtures.dictionary()).build()) {
                for (int size : SIZES) {
                    byte[] data = Fixtures.payload(size, size + 1);
                    boolean withDictionary = size <= 1024;
                    byte[] frame = withDictionary ? Zstd.compress(data, dict) : Zstd.compress(data, 7);
                    assertTrue(push.send(frame, 0));
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                    assertArrayEquals(data, receiver.message().partBytes(0));
                }
            }
        }
    }

    @Test
    void shouldSendRawBlockFramesThatZstdJniDecodes() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            int[] sizes = {0, 1, 64, 255, 256, 4095, 200_000};
            try (CompressingSender sender = CompressingSender.builder(push).rawFrameBelowBytes(300_000).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                for (int size : sizes) {
                    byte[] data = Fixtures.random(size, size);
                    assertTrue(sender.send(data, 0));
                    byte[] frame = pull.receiveBytes(0);
                    assertEquals(ZstdFrames.rawFrameSize(size), frame.length);
                    assertEquals(size, Zstd.getFrameContentSize(frame));
                    assertArrayEquals(data, Zstd.decompress(frame, size));
                    // and our own receiver reads them too
                    assertTrue(push.send(frame, 0));
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                    assertArrayEquals(data, receiver.message().partBytes(0));
                }
                assertEquals(sizes.length, sender.stats().rawFrames());
            }
        }
    }
}
