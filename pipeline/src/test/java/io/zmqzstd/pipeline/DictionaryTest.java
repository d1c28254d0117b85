package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.codec.ZstdFrames;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A receiver holding several dictionaries picks each frame's by its ID; patterns beyond PUSH/PULL. */
class DictionaryTest {

    private static ZstdDictionary logs;
    private static ZstdDictionary audit;

    @BeforeAll
    static void train() {
        logs = Fixtures.logDictionary("log");
        audit = Fixtures.logDictionary("audit");
    }

    @AfterAll
    static void free() {
        logs.close();
        audit.close();
    }

    @Test
    void shouldDecodeFramesOfTwoDictionariesAndNoneInOneStreamAndRefuseAnUnknownOne() {
        ZstdDictionary json = Fixtures.dictionary();
        assertNotEquals(json.id(), logs.id());
        assertNotEquals(json.id(), audit.id());
        assertNotEquals(logs.id(), audit.id());
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "tcp");
            // three senders take turns on one socket: dictionary A, dictionary B, none
            try (CompressingSender withJson = CompressingSender.builder(link.client()).dictionary(json).build();
                 CompressingSender withLogs = CompressingSender.builder(link.client()).dictionary(logs).build();
                 CompressingSender plain = CompressingSender.builder(link.client()).rawFrameBelowBytes(0).build();
                 CompressingSender withAudit = CompressingSender.builder(link.client()).dictionary(audit).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server())
                         .dictionary(json).dictionary(logs).build()) {
                CompressingSender[] senders = {withJson, withLogs, plain};
                for (int i = 0; i < 30; i++) {
                    int k = i % 3;
                    int size = 64 + 37 * i;
                    byte[] data = k == 0 ? Fixtures.payload(size, i) : Fixtures.logLines("log", size, i);
                    assertTrue(senders[k].send(data, 0));
                    assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                    assertArrayEquals(data, receiver.message().partBytes(0), "message " + i);
                }

                assertTrue(withAudit.send(Fixtures.logLines("audit", 200, 1), 0));
                byte[] next = Fixtures.logLines("log", 300, 2);
                assertTrue(withLogs.send(next, 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                assertEquals(BadFrameReason.DICTIONARY_MISSING, receiver.lastErrorReason());
                assertTrue(receiver.lastErrorMessage().contains(Integer.toUnsignedString(audit.id())), receiver::lastErrorMessage);
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(next, receiver.message().partBytes(0));
                assertEquals(31, receiver.stats().messages());
                assertEquals(1, receiver.stats().errors());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "ipc"})
    void shouldCarryDictionaryFramesOverPubSub(String transport) {
        byte[] topic = "log.".getBytes(StandardCharsets.US_ASCII);
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PUB, SocketType.SUB, transport);
            link.client().subscribe(topic);
            try (CompressingSender sender = CompressingSender.builder(link.server()).dictionary(logs).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.client()).dictionary(logs).build()) {
                byte[] sync = "sync".getBytes(StandardCharsets.US_ASCII);
                RoundTripTest.awaitSubscription(sender, receiver, topic, sync);
                long before = sender.stats().compressedBytes();
                long sent = 0;
                for (int size : new int[] {64, 200, 1000, 5000}) {
                    byte[] data = Fixtures.logLines("log", size, size);
                    assertTrue(sender.publish(topic, data, 0));
                    sent += size;
                    ReceivedMessage m;
                    do { // skip the sync messages still in flight
                        assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                        m = receiver.message();
                    } while (m.partSize(1) == sync.length);
                    assertArrayEquals(topic, m.partBytes(0));
                    assertArrayEquals(data, m.partBytes(1), "size=" + size);
                }
                long compressed = sender.stats().compressedBytes() - before;
                long uncompressed = sent;
                assertTrue(compressed * 3 < uncompressed,
                        () -> "the dictionary should shrink log lines: " + compressed + " of " + uncompressed);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "inproc"})
    void shouldCarryDictionaryFramesOverReqRep(String transport) {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.REP, SocketType.REQ, transport);
            try (CompressingSender client = CompressingSender.builder(link.client()).dictionary(logs).build();
                 CompressingSender server = CompressingSender.builder(link.server()).dictionary(audit).build();
                 DecompressingReceiver atServer = DecompressingReceiver.builder(link.server()).dictionary(logs).build();
                 DecompressingReceiver atClient = DecompressingReceiver.builder(link.client()).dictionary(audit).build()) {
                for (int size : new int[] {0, 64, 300, 4000}) {
                    byte[] request = Fixtures.logLines("log", size, size);
                    assertTrue(client.send(request, 0));
                    assertEquals(DecompressingReceiver.RECEIVED, atServer.receive(0), atServer::lastErrorMessage);
                    assertArrayEquals(request, atServer.message().partBytes(0));
                    byte[] reply = Fixtures.logLines("audit", size + 10, size);
                    assertTrue(server.send(reply, 0));
                    assertEquals(DecompressingReceiver.RECEIVED, atClient.receive(0), atClient::lastErrorMessage);
                    assertArrayEquals(reply, atClient.message().partBytes(0));
                }
            }
        }
    }

    /**
     * One dictionary per ID: the receiver's build() refuses a second of the same ID (the same
     * one twice, or another copy) naming the ID; every build() refuses a closed dictionary; one
     * closed after build() goes on serving, since each compressor and decompressor digested its
     * own copy. (Until 2026-11-27 the builders' Javadoc said none of this.)
     */
    @Test
    void shouldHoldOneDictionaryPerIdDigestedAtBuild() {
        try (ZmqContext ctx = new ZmqContext()) {
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            String id = "id=" + Integer.toUnsignedString(logs.id());
            Fixtures.assertRefusedNaming(id, () -> DecompressingReceiver.builder(link.server()).dictionary(logs).dictionary(logs).build());
            try (ZstdDictionary copy = ZstdDictionary.of(logs.bytes())) {
                Fixtures.assertRefusedNaming(id, () -> DecompressingReceiver.builder(link.server()).dictionary(logs).dictionary(copy).build());
            }

            ZstdDictionary closed = ZstdDictionary.of(logs.bytes());
            closed.close();
            for (Runnable build : new Runnable[] {() -> DecompressingReceiver.builder(link.server()).dictionary(closed).build(),
                    () -> CompressingSender.builder(link.client()).dictionary(closed).build(),
                    () -> ParallelCompressingSender.builder(link.client()).dictionary(closed).workers(2).build()}) {
                IllegalStateException e = assertThrows(IllegalStateException.class, build::run);
                assertTrue(e.getMessage().contains("closed"), e::getMessage);
            }

            ZstdDictionary later = ZstdDictionary.of(logs.bytes());
            // a socket of its own: no parallel sender is built on one a CompressingSender uses
            ZmqSocket parallelPush = ctx.socket(SocketType.PUSH);
            parallelPush.connect(link.server().lastEndpoint());
            try (CompressingSender sender = CompressingSender.builder(link.client()).dictionary(later).build();
                 ParallelCompressingSender parallel = ParallelCompressingSender.builder(parallelPush).dictionary(later).workers(2).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).dictionary(later).build()) {
                later.close();
                byte[] first = Fixtures.logLines("log", 700, 1);
                byte[] second = Fixtures.logLines("log", 900, 2);
                // one at a time: the PULL queues its two peers fairly, not in the order they sent
                assertTrue(sender.send(first, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(first, receiver.message().partBytes(0));
                assertTrue(parallel.send(second, 0));
                parallel.flush();
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(second, receiver.message().partBytes(0));
            }
        }
    }

    /**
     * A dictionary with the sender's ID and other content (here its second half changed) cannot be
     * told apart by the frame, which names only the ID: decoded with it, the payload comes out wrong
     * (or as CORRUPT), never as the original; with the sender's checksum the receiver refuses it
     * as CHECKSUM or CORRUPT. The stream goes on either way.
     */
    @Test
    void shouldTellDictionariesOfOneIdApartOnlyByAChecksum() {
        byte[] bytes = logs.bytes();
        for (int i = bytes.length / 2; i < bytes.length; i++) {
            bytes[i] ^= 0x5A;
        }
        try (ZmqContext ctx = new ZmqContext(); ZstdDictionary other = ZstdDictionary.of(bytes)) {
            assertEquals(logs.id(), other.id());
            Fixtures.Link link = Fixtures.link(ctx, SocketType.PULL, SocketType.PUSH, "inproc");
            try (CompressingSender plain = CompressingSender.builder(link.client()).dictionary(logs).build();
                 CompressingSender checked = CompressingSender.builder(link.client()).dictionary(logs).checksum(true).build();
                 CompressingSender none = CompressingSender.builder(link.client()).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(link.server()).dictionary(other).build()) {
                byte[] data = Fixtures.logLines("log", 3000, 7);
                byte[] next = Fixtures.payload(500, 8);
                assertTrue(plain.send(data, 0));
                int status = receiver.receive(0);
                assertFalse(status == DecompressingReceiver.RECEIVED && Arrays.equals(data, receiver.message().partBytes(0)),
                        "decoded with another dictionary's content");
                assertTrue(status == DecompressingReceiver.RECEIVED || receiver.lastErrorReason() == BadFrameReason.CORRUPT,
                        receiver::lastErrorMessage);

                assertTrue(checked.send(data, 0));
                assertEquals(DecompressingReceiver.BAD_FRAME, receiver.receive(0));
                assertTrue(Set.of(BadFrameReason.CHECKSUM, BadFrameReason.CORRUPT).contains(receiver.lastErrorReason()),
                        receiver::lastErrorMessage);

                assertTrue(none.send(next, 0));
                assertEquals(DecompressingReceiver.RECEIVED, receiver.receive(0), receiver::lastErrorMessage);
                assertArrayEquals(next, receiver.message().partBytes(0));
            }
        }
    }
}
