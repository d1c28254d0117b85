package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import io.zmqzstd.benchmark.pipeline.PipelineContestant;
import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * "Every message is checked on arrival": a frame the contestant's sender never sent, delivered to its
 * receiver over tcp by a PUSH of another context, fails the receive that meets it, naming what was wrong.
 * No credit is granted while it travels, so it is the only message the receiver can take.
 */
@Timeout(60)
class PipelineCheckTest {

    private static final int SIZE = 1024;

    /** One message already through, then a second copy of message 0: a duplicate, out of order. */
    @ParameterizedTest
    @FieldSource("io.zmqzstd.benchmark.pipeline.PipelineContestants#NAMES")
    void shouldFailTheRunOnAMessageOutOfSequence(String contestant) {
        assertRefused(contestant, 1, frame(stamped(SIZE, 0)), "sequence=0, expectedSequence=1");
    }

    @ParameterizedTest
    @FieldSource("io.zmqzstd.benchmark.pipeline.PipelineContestants#NAMES")
    void shouldFailTheRunOnAMessageOfTheWrongLength(String contestant) {
        assertRefused(contestant, 0, frame(stamped(SIZE - 1, 0)), "length=" + (SIZE - 1) + ", expectedLength=" + SIZE);
    }

    @ParameterizedTest
    @FieldSource("io.zmqzstd.benchmark.pipeline.PipelineContestants#NAMES")
    void shouldFailTheRunOnAFrameThatIsNotZstd(String contestant) {
        assertRefused(contestant, 0, "not a zstd frame".getBytes(StandardCharsets.US_ASCII), "frame");
    }

    /**
     * Message 0, right in length and stamp, one byte after the stamp changed: the check of every byte, which
     * the benchmarks' set-up runs on its checked batch, refuses it. Only length and stamp were checked, so a
     * contestant that delivered wrong bytes under a right stamp ran its trial and scored.
     */
    @ParameterizedTest
    @FieldSource("io.zmqzstd.benchmark.pipeline.PipelineContestants#NAMES")
    void shouldFailTheCheckedBatchOnAMessageWithWrongBytesUnderARightStamp(String contestant) {
        byte[] wrong = stamped(SIZE, 0);
        wrong[SIZE / 2] ^= 1;
        assertRefused(contestant, 0, true, frame(wrong), "payload bytes differ from the source's: sequence=0, size=" + SIZE);
    }

    /**
     * Message 0, right in length and sequence, followed within the compression bound by a skippable frame
     * (which decoders pass over) and then by more bytes: cut at the bound it decodes as a good message, so
     * a receiver that reads into a bound-sized array must see that the frame was longer. JeroMQ's
     * {@code recv(byte[], ...)} reports the bytes it copied, not the frame's length, and
     * {@code jeromqZstdjniReused} accepted the cut frame until it read the length from the message.
     */
    @ParameterizedTest
    @ValueSource(strings = {"libzmqBytesReused", "jeromqZstdjniReused"})
    void shouldFailTheRunOnAFrameLongerThanTheReceiveBuffer(String contestant) {
        byte[] good = frame(stamped(SIZE, 0));
        int bound = Math.toIntExact(Zstd.compressBound(SIZE));
        byte[] longer = Arrays.copyOf(good, bound + 100);
        // skippable frame: magic 0x184D2A50, little-endian length, then that many bytes the decoder skips
        ByteBuffer.wrap(longer, good.length, 8).order(ByteOrder.LITTLE_ENDIAN).putInt(0x184D2A50)
                .putInt(bound - good.length - 8);
        assertRefused(contestant, 0, longer, "length=" + longer.length + ", bound=" + bound);
    }

    /**
     * A fresh contestant delivers {@code before} messages of its own, then receives {@code frame} from a
     * PUSH of another context: that receive must throw, its message containing {@code named}.
     */
    private static void assertRefused(String contestant, int before, byte[] frame, String named) {
        assertRefused(contestant, before, false, frame, named);
    }

    /** As above, every byte of each payload checked when {@code everyByte}, as the set-up's checked batch does. */
    private static void assertRefused(String contestant, int before, boolean everyByte, byte[] frame, String named) {
        try (PipelineContestant pipe = create(contestant)) {
            pipe.checkEveryByte(everyByte);
            pipe.transfer(before);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> deliverForeign(pipe, frame));
            assertTrue(e.getMessage().contains(named), contestant + ": " + e.getMessage());
        }
    }

    private static PipelineContestant create(String contestant) {
        return PipelineContestants.create(contestant, SIZE, Endpoints.TCP, 1, PipelineContestants.DICTIONARY_NONE,
                Thresholds.LIBRARY_DEFAULT, 0, new PipelineContestants.Parallel(
                        contestant.endsWith("Parallel") ? 2 : 0, 0, -1, -1));
    }

    /** Sends {@code frame} from another context to the receiver's endpoint, then receives one message. */
    private static void deliverForeign(PipelineContestant pipe, byte[] frame) {
        try (ZmqContext context = ZmqContext.builder().build(); ZmqSocket push = context.socket(SocketType.PUSH)) {
            push.lingerMs(1000);
            push.connect(pipe.receiverEndpoint());
            assertTrue(push.send(frame, 0, frame.length, 0), "the foreign frame was not queued");
            pipe.receive(1);
        }
    }

    /** The pipeline's payload at {@code length} bytes, stamped with {@code sequence} (also for {@link PublishCheckTest}). */
    static byte[] stamped(int length, long sequence) {
        byte[] payload = Arrays.copyOf(PipelineContestants.payload(SIZE), length);
        Stamp.write(payload, sequence);
        return payload;
    }

    /** One zstd frame of {@code payload} with its content size, as every contestant's sender writes it. */
    static byte[] frame(byte[] payload) {
        return Zstd.compress(payload, 1);
    }
}
