package io.zmqzstd.benchmark;

import static io.zmqzstd.benchmark.PipelineCheckTest.frame;
import static io.zmqzstd.benchmark.PipelineCheckTest.stamped;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import io.zmqzstd.benchmark.pipeline.ZmqZstdPubSub;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code PublishBenchmark}'s contestant, publishing through a {@code CompressingSender} or a
 * {@code ParallelCompressingSender} ({@code compressionThreads}), delivers every message with its topic and
 * checks every message on arrival, as the pipeline's do ({@link PipelineCheckTest}): a message its sender
 * never sent, published to its SUB over tcp by an XPUB of another context (which waits for the subscription,
 * so the message is not dropped), fails the receive that meets it, naming what was wrong: a duplicate, a
 * payload of the wrong length, a longer topic the subscription's prefix lets through, a frame that is not
 * zstd. No credit is granted while it travels, so it is the only message the receiver can take.
 */
@Timeout(60)
class PublishCheckTest {

    private static final int SIZE = 1024;
    private static final byte[] TOPIC = ZmqZstdPubSub.TOPIC_NAME.getBytes(StandardCharsets.US_ASCII);

    /**
     * Each topic form through either sender, over tcp at 1 KiB and inproc at 64 KiB (the frames copied and
     * zero-copy): two streams of 300 messages, every one's topic, length and sequence checked on arrival
     * ({@code transfer} throws at the first one wrong or missing), through the sender asked for.
     */
    @ParameterizedTest(name = "topicForm={0}, size={1}, transport={2}, compressionThreads={3}")
    @CsvSource({"bytes, 1024, tcp, 0", "segment, 1024, tcp, 0", "bytes, 1024, tcp, 3", "segment, 1024, tcp, 3",
        "bytes, 65536, inproc, 3", "segment, 65536, inproc, 3"})
    void shouldDeliverEveryMessageWithItsTopic(String topicForm, int size, String transport, int compressionThreads) {
        try (ZmqZstdPubSub pipe = new ZmqZstdPubSub(PipelineContestants.payload(size), transport, 3, topicForm,
                parallel(compressionThreads))) {
            assertEquals(compressionThreads, pipe.workers(), "compressing workers of the sender that publishes");
            pipe.transfer(300);
            pipe.transfer(300);
            assertTrue(pipe.compressedBytes() > 0, "compressed bytes: " + pipe.compressedBytes());
        }
    }

    @Test
    void shouldRefuseANegativeNumberOfWorkers() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ZmqZstdPubSub(PipelineContestants.payload(SIZE), Endpoints.TCP, 1, ZmqZstdPubSub.TOPIC_BYTES,
                        parallel(-1)));
        assertTrue(e.getMessage().contains("workers=-1"), e.getMessage());
    }

    /** One message already through, then a second copy of message 0: a duplicate, out of order. */
    @ParameterizedTest(name = "compressionThreads={0}")
    @ValueSource(ints = {0, 3})
    void shouldFailTheRunOnAMessageOutOfSequence(int compressionThreads) {
        assertRefused(compressionThreads, 1, TOPIC, frame(stamped(SIZE, 0)), "sequence=0, expectedSequence=1");
    }

    @ParameterizedTest(name = "compressionThreads={0}")
    @ValueSource(ints = {0, 3})
    void shouldFailTheRunOnAMessageOfTheWrongLength(int compressionThreads) {
        assertRefused(compressionThreads, 0, TOPIC, frame(stamped(SIZE - 1, 0)),
                "length=" + (SIZE - 1) + ", expectedLength=" + SIZE);
    }

    /** A longer topic that the subscription's prefix lets through. */
    @ParameterizedTest(name = "compressionThreads={0}")
    @ValueSource(ints = {0, 3})
    void shouldFailTheRunOnAnotherTopic(int compressionThreads) {
        byte[] longer = Arrays.copyOf(TOPIC, TOPIC.length + 1);
        assertRefused(compressionThreads, 0, longer, frame(stamped(SIZE, 0)),
                "topicBytes=" + longer.length + ", expectedTopicBytes=" + TOPIC.length);
    }

    /** Right topic, length and stamp, one payload byte after the stamp changed: the set-up's checked batch refuses it. */
    @ParameterizedTest(name = "compressionThreads={0}")
    @ValueSource(ints = {0, 3})
    void shouldFailTheCheckedBatchOnAPayloadWithWrongBytesUnderARightStamp(int compressionThreads) {
        byte[] wrong = stamped(SIZE, 0);
        wrong[SIZE - 1] ^= 1;
        assertRefused(compressionThreads, 0, true, TOPIC, frame(wrong),
                "payload bytes differ from the source's: sequence=0, size=" + SIZE);
    }

    @ParameterizedTest(name = "compressionThreads={0}")
    @ValueSource(ints = {0, 3})
    void shouldFailTheRunOnAFrameThatIsNotZstd(int compressionThreads) {
        assertRefused(compressionThreads, 0, TOPIC, "not a zstd frame".getBytes(StandardCharsets.US_ASCII), "bad frame");
    }

    /**
     * A fresh contestant with {@code compressionThreads} delivers {@code before} messages of its own, then
     * meets {@code topic} and {@code frame} from an XPUB of another context: that receive must throw, its
     * message containing {@code named}.
     */
    private static void assertRefused(int compressionThreads, int before, byte[] topic, byte[] frame, String named) {
        assertRefused(compressionThreads, before, false, topic, frame, named);
    }

    /** As above, every payload byte checked when {@code everyByte}, as the set-up's checked batch does. */
    private static void assertRefused(int compressionThreads, int before, boolean everyByte, byte[] topic, byte[] frame,
            String named) {
        try (ZmqZstdPubSub pipe = new ZmqZstdPubSub(PipelineContestants.payload(SIZE), Endpoints.TCP, 1,
                ZmqZstdPubSub.TOPIC_BYTES, parallel(compressionThreads))) {
            pipe.checkEveryByte(everyByte);
            pipe.transfer(before);
            IllegalStateException e = publishForeign(pipe, topic, frame);
            assertTrue(e.getMessage().contains(named), e.getMessage());
        }
    }

    /** The compressing threads as {@code PublishBenchmark} sets them for its {@code compressionThreads}. */
    private static PipelineContestants.Parallel parallel(int compressionThreads) {
        return new PipelineContestants.Parallel(compressionThreads, 0, -1, -1);
    }

    /**
     * Publishes {@code topic} and {@code frame} from an XPUB of another context once the receiver's
     * subscription has reached it, while this thread receives one message, and returns what that receive
     * threw. A bound SUB hands its subscription to a new connection only when its own thread next calls into
     * libzmq, so the XPUB waits for it on a thread of its own.
     */
    private static IllegalStateException publishForeign(ZmqZstdPubSub pipe, byte[] topic, byte[] frame) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (ZmqContext context = ZmqContext.builder().build()) {
            ZmqSocket xpub = context.socket(SocketType.XPUB);
            xpub.lingerMs(1000);
            xpub.receiveTimeoutMs(10_000);
            xpub.connect(pipe.receiverEndpoint());
            Thread publisher = Thread.ofPlatform().name("foreign-publisher").start(() -> {
                try {
                    byte[] subscription = new byte[1 + TOPIC.length];
                    assertEquals(subscription.length, xpub.receive(subscription, 0),
                            "no subscription reached the foreign publisher");
                    assertTrue(xpub.send(topic, 0, topic.length, ZmqSocket.SNDMORE)
                            && xpub.send(frame, 0, frame.length, 0), "the foreign message was not queued");
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            try {
                return assertThrows(IllegalStateException.class, () -> pipe.receive(1));
            } finally {
                join(publisher);
                assertNull(failure.get(), () -> "the foreign publisher failed: " + failure.get());
            }
        }
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while joining " + thread.getName(), e);
        }
    }
}
