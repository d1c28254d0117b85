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
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LifecycleTest {

    @Test
    void shouldDetectTwoThreadsInsideOneReceiver() throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            Fixtures.link(pull, push, "inproc");
            pull.receiveTimeoutMs(30_000);
            DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
            CompressingSender sender = CompressingSender.builder(push).build();
            AtomicReference<Integer> status = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread blocked = new Thread(() -> {
                try {
                    status.set(receiver.receive(0)); // blocks until a message arrives
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "first-user");
            blocked.start();
            // The first thread holds the receiver once it is down in the socket's receive call;
            // only then may this thread try (earlier, the roles could swap).
            assertTrue(Fixtures.await(() -> insideSocketReceive(blocked), 10_000),
                    "first thread never reached the socket's receive call");
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> receiver.receive(ZmqSocket.DONTWAIT));
            assertTrue(e.getMessage().contains("first-user") && e.getMessage().contains(Thread.currentThread().getName()),
                    e.getMessage());
            // the refused call took nothing: the first thread still gets the next message whole
            byte[] data = Fixtures.payload(500, 3);
            assertTrue(sender.send(data, 0));
            blocked.join(10_000);
            assertEquals(null, failure.get());
            assertEquals(DecompressingReceiver.RECEIVED, status.get());
            assertArrayEquals(data, receiver.message().part(0).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            receiver.close();
            sender.close();
        }
    }

    private static boolean insideSocketReceive(Thread t) {
        for (StackTraceElement frame : t.getStackTrace()) {
            if (frame.getClassName().equals(ZmqSocket.class.getName()) && frame.getMethodName().startsWith("receive")) {
                return true;
            }
        }
        return false;
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
                assertEquals(1, receiver.stats().wouldBlock());
                assertEquals(0, receiver.stats().poolRents());
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
