package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LifecycleTest {

    @Test
    void shouldDetectTwoThreadsInsideOneReceiver() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.bind(Fixtures.bindAddress("inproc"));
            pull.receiveTimeoutMs(1_500);
            DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
            CountDownLatch inside = new CountDownLatch(1);
            AtomicReference<Integer> status = new AtomicReference<>();
            Thread blocked = new Thread(() -> {
                inside.countDown();
                status.set(receiver.receive(0)); // blocks until the timeout
            }, "first-user");
            blocked.start();
            inside.await();
            assertTrue(Fixtures.await(() -> blocked.getState() == Thread.State.RUNNABLE
                    || blocked.getState() == Thread.State.WAITING, 5_000));
            // give it time to enter receive(): poll until a second entry is refused
            IllegalStateException e = null;
            long deadline = System.nanoTime() + 1_000_000_000L;
            while (e == null && System.nanoTime() < deadline && blocked.isAlive()) {
                try {
                    receiver.receive(ZmqSocket.DONTWAIT);
                } catch (IllegalStateException refused) {
                    e = refused;
                }
            }
            assertTrue(e != null, "concurrent use was not detected");
            assertTrue(e.getMessage().contains("first-user") && e.getMessage().contains(Thread.currentThread().getName()),
                    e.getMessage());
            blocked.join(10_000);
            assertEquals(DecompressingReceiver.WOULD_BLOCK, status.get());
            receiver.close();
        }
    }

    @Test
    void shouldEndMessageViewsOnCloseAndFailLoudly() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            CompressingSender sender = CompressingSender.builder(push).build();
            DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
            byte[] data = Fixtures.payload(1000, 1);
            assertTrue(sender.send(data, 0));
            assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
            ReceivedMessage m = receiver.message();
            MemorySegment part = m.part(0);
            assertEquals(1, m.sequence());
            assertThrows(IndexOutOfBoundsException.class, () -> m.part(1));
            receiver.close();
            receiver.close(); // idempotent
            sender.close();
            sender.close();
            assertThrows(IllegalStateException.class, m::parts);
            assertThrows(IllegalStateException.class, () -> part.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
            assertThrows(IllegalStateException.class, () -> receiver.receive(0));
            assertThrows(IllegalStateException.class, () -> sender.send(data, 0));
        }
    }

    @Test
    void shouldInvalidateMessageOnWouldBlock() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build()) {
                assertTrue(sender.send(new byte[] {1, 2, 3}, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0));
                assertEquals(3, receiver.message().totalSize());
                assertEquals(DecompressingReceiver.WOULD_BLOCK, receiver.receive(ZmqSocket.DONTWAIT));
                assertThrows(IllegalStateException.class, () -> receiver.message().part(0));
            }
        }
    }

    @Test
    void shouldRefuseRawFramesTogetherWithDictionary() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            assertThrows(IllegalArgumentException.class, () -> CompressingSender.builder(push)
                    .dictionary(Fixtures.dictionary()).rawFrameBelowBytes(64).build());
        }
    }

    @Test
    void shouldSendSmallPartsRawByDefaultOnlyWithoutDictionaryOrChecksum() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            try (CompressingSender plain = CompressingSender.builder(push).build();
                 CompressingSender checked = CompressingSender.builder(push).checksum(true).build();
                 CompressingSender withDictionary = CompressingSender.builder(push).dictionary(Fixtures.dictionary()).build();
                 CompressingSender off = CompressingSender.builder(push).rawFrameBelowBytes(0).build()) {
                assertEquals(CompressingSender.DEFAULT_RAW_FRAME_BELOW_BYTES, plain.rawFrameBelowBytes());
                assertEquals(0, checked.rawFrameBelowBytes());
                assertEquals(0, withDictionary.rawFrameBelowBytes());
                assertEquals(0, off.rawFrameBelowBytes());
            }
            assertThrows(IllegalArgumentException.class, () -> CompressingSender.builder(push)
                    .checksum(true).rawFrameBelowBytes(64).build());
        }
    }

    @Test
    void shouldSaveAndLoadDictionaryThatStillDecodes(@TempDir Path dir) {
        Path file = dir.resolve("telemetry.dict");
        Dictionaries.save(Fixtures.dictionary(), file);
        assertTrue(Files.exists(file));
        var loaded = Dictionaries.load(file);
        assertEquals(Fixtures.dictionary().id(), loaded.id());
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            try (CompressingSender sender = CompressingSender.builder(push).dictionary(Fixtures.dictionary()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).dictionary(loaded).build()) {
                byte[] data = Fixtures.payload(150, 42);
                assertTrue(sender.send(data, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(data, receiver.message().partBytes(0));
            }
        }
    }
}
