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
 * and every kind of bad frame was injected and refused with its reason, as many as injected.
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
        Matcher sent = Pattern.compile("senders=(\\d+) sent=(\\d+) received=(\\d+) .* restarts=(\\d+)").matcher(out);
        assertTrue(sent.find(), out);
        assertTrue(Long.parseLong(sent.group(2)) > 0 && sent.group(2).equals(sent.group(3)), out);
        assertTrue(Long.parseLong(sent.group(4)) > 0, "no sender restarted: " + out);
        String injected = line(out, "injected=");
        String refused = line(out, "refused=");
        assertEquals(injected, refused.replace("refused=", "injected="), out);
        for (BadFrameReason reason : List.of(BadFrameReason.EMPTY, BadFrameReason.NOT_ZSTD, BadFrameReason.TOO_LARGE,
                BadFrameReason.TRUNCATED, BadFrameReason.DICTIONARY_MISSING, BadFrameReason.CHECKSUM)) {
            Matcher m = Pattern.compile(reason + "=(\\d+)").matcher(refused);
            assertTrue(m.find() && Long.parseLong(m.group(1)) > 0, reason + " not refused: " + out);
        }
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
