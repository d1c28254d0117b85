package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sends and receives on sockets with a finite timeout (ZMQ_SNDTIMEO, ZMQ_RCVTIMEO) allocate nothing
 * per message, also in code the JIT never takes past C1. That is where a low-rate stream's paths
 * stay (a 1 MiB stream makes a few hundred calls a second), and where a call through the capturing
 * handle allocated the JDK's 40-byte slice of the capture segment on every call: 40 B per message
 * on each side before timed calls went through the non-capturing handle first. The check runs in a
 * child JVM held to C1 ({@code -XX:TieredStopAtLevel=1}), the {@link #main} below.
 */
class TimedCallAllocationTest {

    private static final int WARMUP = 20_000;
    private static final int MEASURED = 50_000;
    private static final Pattern RESULT = Pattern.compile("sender=(\\d+) receiver=(\\d+) messages=(\\d+)");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "inproc"})
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldAllocateNothingPerMessageOnTimedSendAndReceiveInC1(String transport) throws Exception {
        String out = ForkedJvm.run(TimedCallAllocationTest.class,
                List.of("-XX:TieredStopAtLevel=1", "-Xmx128m"), transport);
        Matcher m = RESULT.matcher(out);
        assertTrue(m.find(), "no result line in: " + out);
        System.out.println("timed calls in C1 over " + transport + ": " + m.group());
        long messages = Long.parseLong(m.group(3));
        assertEquals(MEASURED, messages);
        // Under 1 B per message on each side (a per-call slice is 40 B)
        assertTrue(Long.parseLong(m.group(1)) < messages, "sender allocated per message: " + out);
        assertTrue(Long.parseLong(m.group(2)) < messages, "receiver allocated per message: " + out);
    }

    /**
     * The child: PUSH to PULL over {@code args[0]}, both sockets with a 10 s timeout, 1 KiB sends from a
     * native segment and receives into a reused message (read through its address: {@link ZmqMessage#data()}
     * makes a view); prints the bytes each thread allocated over
     * the measured messages.
     */
    public static void main(String[] args) throws Exception {
        int total = WARMUP + MEASURED;
        try (ZmqContext ctx = new ZmqContext(); ZmqMessage msg = new ZmqMessage()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.receiveTimeoutMs(10_000);
            push.sendTimeoutMs(10_000);
            push.connect(Endpoints.bindAny(pull, args[0]));
            long[] sender = new long[1];
            Thread t = Thread.ofPlatform().start(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment payload = arena.allocate(1024);
                    long before = 0;
                    for (int i = 0; i < total; i++) {
                        if (i == WARMUP) {
                            before = allocatedBytes();
                        }
                        payload.set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                        if (!push.send(payload, 0, 1024, 0)) {
                            throw new IllegalStateException("send timed out at " + i);
                        }
                    }
                    sender[0] = allocatedBytes() - before;
                }
            });
            long before = 0;
            for (int i = 0; i < total; i++) {
                if (i == WARMUP) {
                    before = allocatedBytes();
                }
                if (!pull.receive(msg, 0)) {
                    throw new IllegalStateException("receive timed out at " + i);
                }
                if (LibZmq.EVERYTHING.get(ValueLayout.JAVA_INT_UNALIGNED, msg.address()) != i) {
                    throw new IllegalStateException("out of order at " + i);
                }
            }
            long receiver = allocatedBytes() - before;
            t.join();
            System.out.println("sender=" + sender[0] + " receiver=" + receiver + " messages=" + MEASURED);
        }
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
