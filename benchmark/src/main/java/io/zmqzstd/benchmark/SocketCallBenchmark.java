package io.zmqzstd.benchmark;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqMessage;
import io.zmqzstd.transport.ZmqSocket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one socket call costs on one thread, with no other thread and no I/O thread involved, so
 * that the binding's own per-call work (argument checks, the close guard, the downcalls) is not
 * lost in the scheduling noise of a two-thread transfer. {@code receiveWouldBlock}: a DONTWAIT
 * receive on an empty PULL (the fast call, then the capturing repeat that learns EAGAIN).
 * {@code sendReceive64}: a 64-byte {@code byte[]} send on one end of an inproc PAIR and its receive
 * into a {@code byte[]} on the other, on the same thread (two calls per operation). Made to measure
 * what the close guard of each call costs (BENCHMARKS.md, "What closing safely costs a call"): run
 * the same jar's class against two builds.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.NATIVE_ACCESS, BenchmarkMain.UNSAFE_ALLOWED})
public class SocketCallBenchmark {

    private static final AtomicInteger SEQ = new AtomicInteger();

    private ZmqContext ctx;
    private ZmqSocket empty;
    private ZmqSocket sender;
    private ZmqSocket receiver;
    private ZmqMessage msg;
    private final byte[] payload = new byte[64];
    private final byte[] into = new byte[64];

    @Setup(Level.Trial)
    public void setUp() {
        ctx = new ZmqContext();
        empty = ctx.socket(SocketType.PULL);
        empty.bind("inproc://socket-call-empty-" + SEQ.incrementAndGet());
        String ep = "inproc://socket-call-pair-" + SEQ.incrementAndGet();
        receiver = ctx.socket(SocketType.PAIR);
        receiver.bind(ep);
        sender = ctx.socket(SocketType.PAIR);
        sender.connect(ep);
        msg = new ZmqMessage();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        msg.close();
        ctx.close();
    }

    @Benchmark
    public boolean receiveWouldBlock() {
        return empty.receive(msg, ZmqSocket.DONTWAIT);
    }

    @Benchmark
    public int sendReceive64() {
        if (!sender.send(payload, 0, payload.length, 0)) {
            throw new IllegalStateException("send would block");
        }
        return receiver.receive(into, 0);
    }
}
