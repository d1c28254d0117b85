package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.pipeline.BadFrameReason;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README, "Soak": the {@code java ... io.zmqzstd.reliability.FaultSoak} command as the README prints it,
 * class path included, run from the project root for {@code seconds=5 reportS=1 cycleMs=500} in place of its
 * own arguments: it reports, exits 0, every good message of every sender arrived, senders were restarted,
 * every kind of bad frame was injected and refused with its reason, as many as injected; DEALER clients
 * were made again and every request they sent was served and answered by a reply; and the
 * {@code receiveInto} stream delivered every message, those too large for its destination handed back, as
 * many as sent too large and as the receiver's {@code undeliveredMessages}, the others into the destination,
 * as many as its {@code messages}, with no bad frame; and so did the size-less stream (a raw peer's frames that
 * declare no content size), whose bad frames of five reasons were each refused, as many as injected and as
 * the receiver's errors counted.
 */
class FaultSoakTest {

    @Test
    void shouldRunTheReadmeCommandBrieflyCountingEveryBadFrameByReasonAndDeliveringEveryGoodMessage(
            @TempDir Path dir) throws IOException, InterruptedException {
        List<String> command = List.copyOf(SoakCommandTest.readmeCommand(FaultSoak.class.getName()));
        assertEquals("java", command.getFirst(), "the README's command: " + command);
        int main = command.indexOf(FaultSoak.class.getName());
        assertTrue(main > 0 && command.contains("-cp"), "the README's command: " + command);
        String out = SoakCommandTest.runChild(command, main, List.of("seconds=5", "reportS=1", "cycleMs=500"),
                dir.resolve("fault-soak.log"));
        assertTrue(out.contains("heapAfterGcKB") && out.contains("fds") && out.contains("threads")
                && out.contains("cctx"), out);
        assertMemoryColumnsSane(out);
        assertTrue(out.contains("allArrived=true") && out.contains("problems=0") && out.contains("FAULT SOAK OK"), out);
        // the main line, anchored: the into: line has senders= and sent= too
        Matcher sent = Pattern.compile("(?m)^senders=(\\d+) sent=(\\d+) received=(\\d+) .* restarts=(\\d+)").matcher(out);
        assertTrue(sent.find(), out);
        assertTrue(Long.parseLong(sent.group(2)) > 0 && sent.group(2).equals(sent.group(3)), out);
        assertTrue(Long.parseLong(sent.group(4)) > 0, "no sender restarted: " + out);
        assertRequestsAnswered(line(out, "rpc: "), out);
        assertTooLargeHandedBack(line(out, "into: "), out);
        assertTrue(line(out, "into: ").endsWith(" injected={} refused={} statsErrors={}"), out);
        String sizeless = line(out, "sizeless: ");
        assertTooLargeHandedBack(sizeless, out);
        assertBadFramesCounted(sizeless, List.of(BadFrameReason.CHECKSUM, BadFrameReason.TRUNCATED,
                BadFrameReason.TOO_LARGE, BadFrameReason.DICTIONARY_MISSING, BadFrameReason.CORRUPT), out);
        String injected = line(out, "injected=");
        String refused = line(out, "refused=");
        assertEquals(injected, refused.replace("refused=", "injected="), out);
        assertEachRefused(refused, List.of(BadFrameReason.EMPTY, BadFrameReason.NOT_ZSTD, BadFrameReason.TOO_LARGE,
                BadFrameReason.TRUNCATED, BadFrameReason.DICTIONARY_MISSING, BadFrameReason.CHECKSUM), out);
    }

    private static void assertEachRefused(String refused, List<BadFrameReason> reasons, String out) {
        for (BadFrameReason reason : reasons) {
            Matcher m = Pattern.compile(reason + "=(\\d+)").matcher(refused);
            assertTrue(m.find() && Long.parseLong(m.group(1)) > 0, reason + " not refused: " + out);
        }
    }

    /** A stream's bad frames: refused as injected and as its receiver's errors counted, each of {@code reasons}. */
    private static void assertBadFramesCounted(String stream, List<BadFrameReason> reasons, String out) {
        Matcher m = Pattern.compile(" injected=(\\{.*}) refused=(\\{.*}) statsErrors=(\\{.*})$").matcher(stream);
        assertTrue(m.find(), stream);
        assertEquals(m.group(1), m.group(2), "refused != injected: " + stream);
        assertEquals(m.group(1), m.group(3), "the receiver's errors != injected: " + stream);
        assertEachRefused(m.group(2), reasons, out);
    }

    /** Clients were restarted (more than one cycle's), and requests sent = served = replies received, above 0. */
    private static void assertRequestsAnswered(String rpc, String out) {
        Matcher m = Pattern.compile("clients=(\\d+) requests=(\\d+) served=(\\d+) replies=(\\d+)").matcher(rpc);
        assertTrue(m.find(), out);
        assertTrue(Long.parseLong(m.group(1)) > FaultSoak.RequestReply.CLIENTS, "no client made again: " + rpc);
        assertTrue(Long.parseLong(m.group(2)) > 0, "no request: " + rpc);
        assertEquals(m.group(2), m.group(3), "requests sent and served differ: " + rpc);
        assertEquals(m.group(2), m.group(4), "requests sent and replies received differ: " + rpc);
    }

    /**
     * Every message of the receiveInto stream arrived; those a byte too large for the destination (one in seven)
     * were handed back, as many as sent so and as the receiver counted undelivered; the rest were received into
     * it, as many as the receiver counted delivered; both above 0, and they add up to the messages sent.
     */
    private static void assertTooLargeHandedBack(String into, String out) {
        Matcher m = Pattern.compile("sent=(\\d+) intoDst=(\\d+) handedBack=(\\d+) tooLarge=(\\d+) statsMessages=(\\d+)"
                + " undeliveredMessages=(\\d+) allArrived=true").matcher(into);
        assertTrue(m.find(), "receiveInto stream: " + out);
        long sent = Long.parseLong(m.group(1));
        long intoDst = Long.parseLong(m.group(2));
        long handedBack = Long.parseLong(m.group(3));
        assertTrue(intoDst > 0 && handedBack > 0, "nothing received into dst or handed back: " + into);
        assertEquals(sent, intoDst + handedBack, "received into dst + handed back != sent: " + into);
        assertEquals(handedBack, Long.parseLong(m.group(4)), "handed back != sent too large: " + into);
        assertEquals(handedBack, Long.parseLong(m.group(6)), "handed back != undeliveredMessages: " + into);
        assertEquals(intoDst, Long.parseLong(m.group(5)), "received into dst != the receiver's messages: " + into);
    }

    /**
     * The last report's RSS split and malloc columns: all read (none -1), the parts of RSS adding up to
     * VmRSS (the kernel sums the same counters, read in one go), malloc's in-use within what it holds, the
     * JVM's malloc (NMT) within all of malloc's, and native threads above the Java ones by at least
     * libzmq's two (its I/O thread and reaper).
     */
    private static void assertMemoryColumnsSane(String out) {
        List<String> lines = out.lines().toList();
        List<String> names = List.of(lines.stream().filter(l -> l.trim().startsWith("elapsedS")).findFirst()
                .orElseThrow(() -> new AssertionError("no header: " + out)).trim().split("\\s+"));
        for (String column : List.of("rssKB", "rssAnonKB", "rssFileKB", "rssShmKB", "nmtMallocKB", "mallocKB",
                "mallocHeldKB", "anonMaps", "slabKB", "nThreads", "threads")) {
            assertTrue(names.contains(column), "no column " + column + ": " + names);
        }
        String[] last = lines.stream().filter(l -> l.trim().matches("\\d+( +-?\\d+)+"))
                .reduce((a, b) -> b).orElseThrow(() -> new AssertionError("no report row: " + out)).trim().split("\\s+");
        assertEquals(names.size(), last.length, "row and header differ in width: " + out);
        ToLongFunction<String> v = c -> Long.parseLong(last[names.indexOf(c)]);
        for (String column : names) {
            assertTrue(v.applyAsLong(column) >= 0, column + " not read: " + out);
        }
        assertEquals(v.applyAsLong("rssKB"), v.applyAsLong("rssAnonKB") + v.applyAsLong("rssFileKB")
                + v.applyAsLong("rssShmKB"), "RssAnon + RssFile + RssShmem != VmRSS: " + out);
        assertTrue(v.applyAsLong("rssAnonKB") > 0 && v.applyAsLong("rssFileKB") > 0, out);
        assertTrue(v.applyAsLong("mallocKB") > 0 && v.applyAsLong("mallocKB") <= v.applyAsLong("mallocHeldKB"), out);
        assertTrue(v.applyAsLong("nmtMallocKB") > 0 && v.applyAsLong("nmtMallocKB") < v.applyAsLong("mallocKB"), out);
        assertTrue(v.applyAsLong("anonMaps") > 0, out);
        assertTrue(v.applyAsLong("nThreads") >= v.applyAsLong("threads") + 2, out);
    }

    private static String line(String out, String prefix) {
        return out.lines().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow(() -> new AssertionError(
                "no " + prefix + " line: " + out));
    }
}
