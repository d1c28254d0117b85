package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.pipeline.BadFrameReason;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
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

    private static String line(String out, String prefix) {
        return out.lines().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow(() -> new AssertionError(
                "no " + prefix + " line: " + out));
    }
}
