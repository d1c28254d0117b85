package io.zmqzstd.reliability;

import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ReceivedMessage;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A soak run (long ones by hand; CI runs it briefly, see {@code SoakCommandTest} and
 * {@code SoakMemoryTest}): a compressed PUSH/PULL stream over tcp loopback, one sending and one
 * receiving thread, for a duration or a message count, of one size or several in turn
 * ({@code size=1024,65536}; text of 64 KiB compresses to frames above the pool's 8 KiB zero-copy
 * threshold). Every {@code reportS} seconds it prints heap used after a full GC, NMT committed
 * (when run with {@code -XX:NativeMemoryTracking=summary}), process RSS (which also covers
 * libzmq's and libzstd's malloc, invisible to NMT), pool outstanding, problems so far, and the
 * pool's slab memory (slabKB: slabs carved so far; the pool keeps them, so a backlog that rents
 * more buffers at once raises it, and NMT and RSS with it, up to the pool's bounds). Flat lines
 * mean no leak.
 * Every message is checked (sequence and checksum); a problem ends the run with exit status 1.
 * Command: see reliability/README.md, "Soak".
 */
public final class Soak {

    private Soak() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = arguments(args);
        long seconds = Long.parseLong(a.getOrDefault("seconds", "600"));
        long maxMessages = Long.parseLong(a.getOrDefault("messages", "0"));
        // One size, or several separated by commas that the messages take in turn.
        int[] sizes = Arrays.stream(a.getOrDefault("size", "1024").split(",")).mapToInt(Integer::parseInt).toArray();
        int stride = Arrays.stream(sizes).max().orElseThrow();
        long reportS = Long.parseLong(a.getOrDefault("reportS", "10"));
        int distinct = 256; // payloads cycle through this many precomputed messages: the generator stays cheap

        AtomicLong sent = new AtomicLong();
        AtomicLong received = new AtomicLong();
        AtomicLong problems = new AtomicLong();
        try (ZmqContext context = new ZmqContext();
             ZmqSocket pull = context.socket(SocketType.PULL);
             ZmqSocket push = context.socket(SocketType.PUSH)) {
            pull.receiveTimeoutMs(1000);
            pull.bind("tcp://127.0.0.1:*");
            push.connect(pull.lastEndpoint());
            long deadline = System.nanoTime() + seconds * 1_000_000_000L;
            Thread sender = Thread.ofPlatform().name("soak-sender").start(() -> {
                try (Arena arena = Arena.ofConfined(); CompressingSender s = CompressingSender.builder(push).build()) {
                    MemorySegment all = arena.allocate((long) stride * distinct);
                    for (int i = 0; i < distinct; i++) {
                        int size = sizes[i % sizes.length];
                        StreamMessage.write(all.asSlice((long) i * stride, size), size, 1, i);
                    }
                    for (long seq = 0; System.nanoTime() < deadline && (maxMessages == 0 || seq < maxMessages); seq++) {
                        int i = (int) (seq % distinct);
                        s.send(all, (long) i * stride, sizes[i % sizes.length], 0);
                        sent.lazySet(seq + 1);
                    }
                } catch (RuntimeException e) {
                    // a run cut short is a failed run, even if all it sent arrived
                    problems.incrementAndGet();
                    e.printStackTrace();
                }
            });
            Thread receiver = Thread.ofPlatform().name("soak-receiver").start(() -> {
                try (DecompressingReceiver r = DecompressingReceiver.builder(pull).build()) {
                    long expected = 0;
                    while (true) {
                        // Once the sender has ended, one whole receive timeout without a message means
                        // that what has not arrived never will: stop (main then exits 1 if any is missing).
                        boolean senderEnded = !sender.isAlive();
                        int status = r.receive(0);
                        if (status == DecompressingReceiver.WOULD_BLOCK) {
                            if (senderEnded || !sender.isAlive() && received.get() == sent.get()) {
                                return;
                            }
                            continue;
                        }
                        if (status != DecompressingReceiver.RECEIVED) {
                            problems.incrementAndGet();
                            continue;
                        }
                        ReceivedMessage m = r.message();
                        MemorySegment p = m.part(0);
                        if (StreamMessage.sequence(p) != expected % distinct || !StreamMessage.intact(p)) {
                            problems.incrementAndGet();
                        }
                        expected++;
                        received.lazySet(expected);
                    }
                }
            });
            long start = System.nanoTime();
            System.out.printf("%8s %14s %10s %14s %14s %12s %12s %9s %10s%n", "elapsedS", "messages", "msg/s",
                    "heapAfterGcKB", "nmtCommittedKB", "rssKB", "outstanding", "problems", "slabKB");
            long lastCount = 0;
            long lastT = start;
            while (sender.isAlive() || receiver.isAlive()) {
                receiver.join(reportS * 1000);
                long now = System.nanoTime();
                long count = received.get();
                System.gc();
                long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                System.out.printf("%8d %14d %10d %14d %14d %12d %12d %9d %10d%n", (now - start) / 1_000_000_000L, count,
                        (long) ((count - lastCount) / ((now - lastT) / 1e9)), heap / 1024, nmtCommittedKb(), rssKb(),
                        context.bufferPool().outstanding(), problems.get(), context.bufferPool().stats().slabBytes() / 1024);
                lastCount = count;
                lastT = now;
            }
            System.out.println("sent=" + sent.get() + " received=" + received.get() + " problems=" + problems.get()
                    + " pool=" + context.bufferPool().stats());
        }
        System.exit(problems.get() == 0 && sent.get() == received.get() ? 0 : 1);
    }

    /** {@code name=value} arguments, by name (shared with {@link FaultSoak}). */
    static Map<String, String> arguments(String[] args) {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return a;
    }

    /** NMT's total committed, in KB; -1 when NMT is off. */
    static long nmtCommittedKb() {
        return ProcessMemory.readNmtCommittedKb();
    }

    /** VmRSS, in KB; -1 where there is no {@code /proc/self/status}. */
    static long rssKb() {
        return ProcessMemory.status("VmRSS:")[0];
    }
}
