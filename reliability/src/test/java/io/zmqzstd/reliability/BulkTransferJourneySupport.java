package io.zmqzstd.reliability;

import io.zmqzstd.pipeline.BadFrameReason;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.pipeline.UndeliveredMessageException;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * Helpers of {@link BulkTransferJourneyTest}: the files a bulk user sends, the process's anonymous
 * memory, and (as {@code main}, in a child JVM, since a SIGBUS there would end the test run) files
 * shortened while they are mapped.
 */
final class BulkTransferJourneySupport {

    static final long MIB = 1L << 20;

    private BulkTransferJourneySupport() {
    }

    /**
     * Writes a file of {@code bytes}: log-like text that compresses, each 4 KiB stamped with the file's
     * seed and its own offset, so a misplaced or repeated block never compares equal.
     */
    static Path writeFile(Path file, long bytes, int seed) throws IOException {
        Random random = new Random(seed);
        String[] words = {"GET", "PUT", "order", "fill", "cancel", "user", "session", "INFO", "WARN", "latency",
                "bytes", "ok", "retry", "shard", "node", "cache", "miss", "hit"};
        StringBuilder text = new StringBuilder((int) MIB + 256);
        while (text.length() < MIB) {
            text.append("2026-11-30T12:").append(random.nextInt(60)).append(' ');
            for (int w = 0; w < 8; w++) {
                text.append(words[random.nextInt(words.length)]).append('=').append(random.nextInt(100_000)).append(' ');
            }
            text.append('\n');
        }
        byte[] template = text.substring(0, (int) MIB).getBytes(StandardCharsets.US_ASCII);
        ByteBuffer block = ByteBuffer.wrap(template);
        try (FileChannel ch = FileChannel.open(file, CREATE_NEW, WRITE)) {
            for (long pos = 0; pos < bytes; pos += MIB) {
                for (int stamp = 0; stamp < template.length; stamp += 4096) {
                    block.putLong(stamp, seed * 0x9E3779B97F4A7C15L ^ (pos + stamp));
                }
                block.clear().limit((int) Math.min(MIB, bytes - pos));
                while (block.hasRemaining()) {
                    ch.write(block);
                }
            }
        }
        return file;
    }

    /** Random bytes, which zstd cannot shrink: their frame is as large as the file. */
    static Path writeRandomFile(Path file, int bytes, int seed) throws IOException {
        byte[] data = new byte[bytes];
        new Random(seed).nextBytes(data);
        return Files.write(file, data, CREATE_NEW, WRITE);
    }

    /** {@code RssAnon} of /proc/self/status in KiB: memory the process holds that no file backs. */
    static long rssAnonKb() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("RssAnon:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IllegalStateException("no RssAnon in /proc/self/status");
    }

    static MemorySegment mapReadOnly(Path file, Arena arena) throws IOException {
        try (FileChannel ch = FileChannel.open(file, READ)) {
            return ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
        }
    }

    /** Creates {@code file} and maps {@code bytes} of it for writing (the map makes it that long). */
    static MemorySegment mapNewForWriting(Path file, long bytes, Arena arena) throws IOException {
        try (FileChannel ch = FileChannel.open(file, CREATE_NEW, READ, WRITE)) {
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
        }
    }

    static void truncate(Path file, long bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, WRITE)) {
            ch.truncate(bytes);
        }
    }

    static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    /**
     * In a child JVM: {@code main(dir)} sends from mappings whose files are shortened after they were
     * mapped, whole and in 1 MiB chunks behind a sequence part, and receives into a mapping shortened
     * likewise; prints one {@code OK} line per step, exits non-zero on the first step that fails.
     */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        try (ZmqContext ctx = new ZmqContext(); Arena arena = Arena.ofConfined()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.receiveTimeoutMs(20_000);
            pull.bind("tcp://127.0.0.1:*");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(pull.lastEndpoint());
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).envelopeParts(1).build()) {
                MemorySegment seq = arena.allocate(8);
                MemorySegment good = mapReadOnly(writeFile(dir.resolve("good.bin"), 2 * MIB, 7), arena);
                MemorySegment into = arena.allocate(8 * MIB);

                // 1. The whole source, its file cut to 3 MiB + 100 after the map.
                Path cutFile = writeFile(dir.resolve("cut.bin"), 8 * MIB, 5);
                MemorySegment cut = mapReadOnly(cutFile, arena);
                truncate(cutFile, 3 * MIB + 100);
                seq.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, -1);
                sender.sendEnvelope(seq, ZmqSocket.SNDMORE);
                try {
                    sender.send(cut, 0);
                    check(false, "a send of a mapping shortened under it returned");
                } catch (IllegalStateException e) {
                    System.out.println("WHOLE " + e.getMessage() + " cause=" + e.getCause());
                    check(e.getMessage().contains("payload could not be read"), "names the payload: " + e.getMessage());
                    check(e.getMessage().contains("mapped=true"), "says mapped: " + e.getMessage());
                    check(e.getCause() instanceof InternalError, "the JDK's InternalError as cause: " + e.getCause());
                }
                check(sender.stats().abandonedMessages() == 1, "the begun message abandoned: " + sender.stats());
                // The stream goes on: the 0-byte end is one BAD_FRAME (EMPTY), then a good message whole.
                seq.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 100);
                sender.sendEnvelope(seq, ZmqSocket.SNDMORE);
                check(sender.send(good, 0), "good send");
                int first = receiver.receiveInto(into, 0);
                check(first == DecompressingReceiver.BAD_FRAME && receiver.lastErrorReason() == BadFrameReason.EMPTY,
                        "the abandoned message is one EMPTY: " + first + " " + receiver.lastErrorMessage());
                check(receiver.receiveInto(into, 0) == DecompressingReceiver.RECEIVED, "the good message arrives");
                ReceivedMessage m = receiver.message();
                check(m.segment(0).get(ValueLayout.JAVA_LONG_UNALIGNED, m.partOffset(0)) == 100, "its sequence");
                check(m.partSize(1) == good.byteSize() && into.asSlice(0, good.byteSize()).mismatch(good) == -1,
                        "intact");
                System.out.println("OK whole source refused, the message abandoned as one EMPTY, the next intact");

                // 2. 1 MiB chunks of the cut file: chunks 0-2 lie inside its new end, chunk 3 does not.
                int arrived = 0;
                for (int chunk = 0; chunk < 8; chunk++) {
                    seq.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, chunk);
                    sender.sendEnvelope(seq, ZmqSocket.SNDMORE);
                    try {
                        sender.send(cut, chunk * MIB, MIB, 0);
                    } catch (IllegalStateException e) {
                        check(chunk >= 3, "chunk " + chunk + " lies inside the file: " + e);
                        check(e.getMessage().contains("offset=" + chunk * MIB) || e.getMessage().contains("length="),
                                "names the range: " + e.getMessage());
                        if (chunk == 3) {
                            System.out.println("CHUNK " + e.getMessage());
                        }
                        continue;
                    }
                    check(chunk < 3, "chunk " + chunk + " past the new end was sent");
                }
                for (int chunk = 0; chunk < 3; chunk++) {
                    check(receiver.receiveInto(into, 0) == DecompressingReceiver.RECEIVED, "chunk " + chunk);
                    m = receiver.message();
                    check(m.segment(0).get(ValueLayout.JAVA_LONG_UNALIGNED, m.partOffset(0)) == chunk, "in order");
                    check(into.asSlice(0, MIB).mismatch(cut.asSlice(chunk * MIB, MIB)) == -1, "chunk intact");
                    arrived++;
                }
                for (int chunk = 3; chunk < 8; chunk++) {
                    check(receiver.receiveInto(into, 0) == DecompressingReceiver.BAD_FRAME
                            && receiver.lastErrorReason() == BadFrameReason.EMPTY, "chunk " + chunk + " ended EMPTY");
                }
                check(sender.stats().abandonedMessages() == 6, "five more abandoned: " + sender.stats());
                seq.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 101);
                sender.sendEnvelope(seq, ZmqSocket.SNDMORE);
                sender.send(good, 0);
                check(receiver.receiveInto(into, 0) == DecompressingReceiver.RECEIVED, "the stream goes on");
                System.out.println("OK chunks " + arrived + " arrived, 5 past the new end refused and abandoned, stream on");

                // 3. A destination mapping whose file is cut after the map.
                Path outFile = dir.resolve("out.bin");
                MemorySegment out = mapNewForWriting(outFile, 2 * MIB, arena);
                truncate(outFile, 4096);
                seq.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 102);
                sender.sendEnvelope(seq, ZmqSocket.SNDMORE);
                sender.send(good, 0);
                try {
                    receiver.receiveInto(out, 0);
                    check(false, "a receive into a cut mapping returned");
                } catch (UndeliveredMessageException e) {
                    System.out.println("DST " + e.getMessage());
                    check(e.reason() == UndeliveredMessageException.Reason.DESTINATION_UNWRITABLE, "reason " + e.reason());
                    check(e.parts() == 2 && MemorySegment.ofArray(e.part(1)).mismatch(good) == -1,
                            "handed back whole: parts=" + e.parts());
                }
                check(receiver.stats().undeliveredMessages() == 1, "counted: " + receiver.stats());
                seq.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 103);
                sender.sendEnvelope(seq, ZmqSocket.SNDMORE);
                sender.send(good, 0);
                check(receiver.receiveInto(into, 0) == DecompressingReceiver.RECEIVED, "the next arrives");
                System.out.println("OK destination cut: handed back whole, counted, the next arrives; receiver "
                        + receiver.stats());
            }
        }
        System.out.println("SHORTENED DONE");
    }
}
