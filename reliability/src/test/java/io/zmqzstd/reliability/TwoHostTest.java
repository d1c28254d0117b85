package io.zmqzstd.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two hosts: sender and receiver in two network namespaces joined by a veth pair, each a child
 * JVM. Packet loss (nftables), a throttled link (tc tbf) and a short outage (link down, up) must
 * cost nothing; an outage long enough for the heartbeat to break the connection loses what the
 * dead connection held, and everything sent after the reconnect arrives. Needs root (ip netns);
 * skipped with the reason otherwise. Addresses 10.201.0.1/24 and 10.201.0.2/24 exist only inside
 * the namespaces made here.
 */
@Timeout(180)
class TwoHostTest {

    private static final String SUFFIX = Long.toString(ProcessHandle.current().pid() % 100000);
    private static final String NS_A = "zzsnd" + SUFFIX;
    private static final String NS_B = "zzrcv" + SUFFIX;
    private static final String VETH_A = "vzsnd" + SUFFIX;
    private static final String VETH_B = "vzrcv" + SUFFIX;
    private static final String ENDPOINT = "tcp://10.201.0.2:5555";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Duration OUTAGE_SHORT = Duration.ofSeconds(3);
    private static final Duration OUTAGE_LONG = Duration.ofSeconds(Long.getLong("zmqzstd.outageLongS", 4));

    private static boolean created;
    private final List<ChildProcess> children = new ArrayList<>();

    @BeforeAll
    static void createHosts() {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "two-host tests need root for ip netns (running as " + System.getProperty("user.name") + ")");
        String why = run("ip", "netns", "add", NS_A);
        Assumptions.assumeTrue(why == null, () -> "network namespaces not allowed here: " + why);
        created = true;
        must("ip", "netns", "add", NS_B);
        must("ip", "link", "add", VETH_A, "type", "veth", "peer", "name", VETH_B);
        must("ip", "link", "set", VETH_A, "netns", NS_A);
        must("ip", "link", "set", VETH_B, "netns", NS_B);
        must("ip", "netns", "exec", NS_A, "ip", "addr", "add", "10.201.0.1/24", "dev", VETH_A);
        must("ip", "netns", "exec", NS_B, "ip", "addr", "add", "10.201.0.2/24", "dev", VETH_B);
        for (String[] nsDev : new String[][] {{NS_A, VETH_A}, {NS_B, VETH_B}}) {
            must("ip", "netns", "exec", nsDev[0], "ip", "link", "set", "lo", "up");
            must("ip", "netns", "exec", nsDev[0], "ip", "link", "set", nsDev[1], "up");
        }
    }

    @AfterAll
    static void removeHosts() {
        if (created) {
            // Deleting a namespace destroys its end of the veth pair, and with it the other end.
            run("ip", "netns", "del", NS_A);
            run("ip", "netns", "del", NS_B);
        }
    }

    @AfterEach
    void killChildren() {
        children.forEach(ChildProcess::close);
        children.clear();
        run("ip", "netns", "exec", NS_B, "nft", "delete", "table", "inet", "zzloss");
        run("ip", "netns", "exec", NS_A, "tc", "qdisc", "del", "dev", VETH_A, "root");
        run("ip", "netns", "exec", NS_A, "ip", "link", "set", VETH_A, "up");
    }

    @Test
    void shouldLoseNothingThroughPacketLossThrottlingAndAShortOutage() {
        ChildProcess receiver = start(NS_B, "role=pull", "endpoint=" + ENDPOINT, "bind=true", "quiet=true");
        receiver.awaitReady();
        start(NS_A, "role=push", "endpoint=" + ENDPOINT, "sender=1", "size=2048");

        awaitProgress(receiver, 500);

        must("ip", "netns", "exec", NS_B, "nft", "add", "table", "inet", "zzloss");
        must("ip", "netns", "exec", NS_B, "nft", "add", "chain", "inet", "zzloss", "in",
                "{ type filter hook input priority 0; }");
        must("ip", "netns", "exec", NS_B, "nft", "add", "rule", "inet", "zzloss", "in",
                "numgen", "random", "mod", "100", "<", "20", "drop");
        awaitProgress(receiver, 300);
        must("ip", "netns", "exec", NS_B, "nft", "delete", "table", "inet", "zzloss");

        must("ip", "netns", "exec", NS_A, "tc", "qdisc", "add", "dev", VETH_A, "root",
                "tbf", "rate", "1mbit", "burst", "32kbit", "latency", "400ms");
        awaitProgress(receiver, 200);
        must("ip", "netns", "exec", NS_A, "tc", "qdisc", "del", "dev", VETH_A, "root");

        linkDownFor(OUTAGE_SHORT);
        awaitProgress(receiver, 500);

        assertClean(receiver, 0);
    }

    @Test
    void shouldLoseOnlyWhatTheBrokenConnectionHeldAndDeliverEverythingAfterTheReconnect() {
        // Heartbeats every 200 ms, dead after 600 ms of silence: a 4 s outage breaks the connection.
        ChildProcess receiver = start(NS_B, "role=pull", "endpoint=" + ENDPOINT, "bind=true", "quiet=true",
                "heartbeatMs=200");
        receiver.awaitReady();
        start(NS_A, "role=push", "endpoint=" + ENDPOINT, "sender=1", "size=2048", "heartbeatMs=200");
        awaitProgress(receiver, 500);

        linkDownFor(OUTAGE_LONG);
        awaitProgress(receiver, 1000);

        List<String> gaps = receiver.lines().stream().filter(l -> l.startsWith("GAP")).toList();
        System.out.println("two hosts, broken connection: " + gaps + " lines=" + receiver.lines().size() + " last=" + receiver.lines().getLast());
        // At most one hole: what the dead connection held. After it, the sequence is contiguous
        // again up to the end (assertClean checks there is no CORRUPT or BAD line, and the GAP
        // list shows there is no second hole).
        assertTrue(gaps.size() <= 1, "more than one hole: " + gaps);
        assertClean(receiver, gaps.size());
    }

    // ------------------------------------------------------------------------------------------

    private ChildProcess start(String ns, String... args) {
        ChildProcess p = ChildProcess.peer(List.of("ip", "netns", "exec", ns), args);
        children.add(p);
        return p;
    }

    /**
     * Waits until the receiver reports sender 1's sequence at least {@code more} past where it
     * is now (its latest {@code RECV} or {@code GAP} line), so each fault is crossed by traffic.
     */
    private static void awaitProgress(ChildProcess receiver, long more) {
        long now = 0;
        for (String l : receiver.lines()) {
            now = Math.max(now, reportedSequence(l));
        }
        long target = now + more;
        receiver.await("sender 1 at sequence " + target + " (every loss or outage must be survived)", WAIT,
                l -> reportedSequence(l) >= target);
    }

    /** The sequence a {@code RECV 1 n} or {@code GAP last n} line reports, else 0. */
    private static long reportedSequence(String line) {
        String[] f = line.split(" ");
        return line.startsWith("RECV 1 ") || line.startsWith("GAP ") ? Long.parseLong(f[2]) : 0;
    }

    private static void linkDownFor(Duration outage) {
        must("ip", "netns", "exec", NS_A, "ip", "link", "set", VETH_A, "down");
        try {
            Thread.sleep(outage.toMillis()); // the outage itself, not a wait for a condition
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            must("ip", "netns", "exec", NS_A, "ip", "link", "set", VETH_A, "up");
        }
    }

    private static void assertClean(ChildProcess receiver, int gapsAllowed) {
        List<String> bad = receiver.lines().stream()
                .filter(l -> l.startsWith("CORRUPT") || l.startsWith("BAD") || l.startsWith("GAP")).toList();
        assertEquals(gapsAllowed, bad.size(), "corrupt, refused or missing messages: " + bad);
        assertTrue(bad.stream().allMatch(l -> l.startsWith("GAP")), "corrupted or refused: " + bad);
    }

    private static void must(String... cmd) {
        String why = run(cmd);
        if (why != null) {
            throw new AssertionError(why);
        }
    }

    /** Runs a command; null when it succeeded, else what went wrong. */
    private static String run(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return String.join(" ", cmd) + ": timed out";
            }
            return p.exitValue() == 0 ? null : String.join(" ", cmd) + ": exit=" + p.exitValue() + ", " + output;
        } catch (IOException e) {
            return String.join(" ", cmd) + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
