package io.zmqzstd.benchmark;

import io.zmqzstd.benchmark.pipeline.LibzmqProxyHop;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a proxy's loop costs per message, with nothing else in the way: raw frames (no compression) from a
 * PUSH through a proxy's PULL frontend and PUSH backend to a PULL, all in one context, over {@code transport}
 * on both sides. {@code loop=zmqzstd} forwards with this project's {@code ZmqProxy} (its own loop over
 * {@code zmq_poll}, {@code zmq_msg_recv} and {@code zmq_msg_send}), {@code loop=libzmq} with libzmq's own
 * {@code zmq_proxy_steerable} on the same sockets (what other bindings run, and what {@code ZmqProxy} ran
 * until 2026-11-28); the hop is {@code PipelineBenchmark}'s ({@link LibzmqProxyHop}), on a thread of its own.
 *
 * <p>Each invocation sends {@value #BATCH} stamped {@code byte[]} messages with blocking sends, then receives
 * them into a {@code byte[]}, checking each one's length and sequence ({@link Stamp}): the high-water marks
 * (libzmq's 1000) hold a whole batch, so the sends never wait, and the score counts delivered, checked
 * messages. One operation is one message; {@code gc.alloc.rate.norm} is bytes per message, every thread of
 * the JVM counted (the proxy's too).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.NATIVE_ACCESS, BenchmarkMain.UNSAFE_ALLOWED})
public class ProxyBenchmark {

    /** Messages per invocation: within every high-water mark on the way. */
    public static final int BATCH = 500;
    /** {@code loop}: this project's {@code ZmqProxy}. */
    public static final String LOOP_ZMQZSTD = "zmqzstd";
    /** {@code loop}: libzmq's {@code zmq_proxy_steerable}. */
    public static final String LOOP_LIBZMQ = "libzmq";

    @Param({LOOP_ZMQZSTD, LOOP_LIBZMQ})
    public String loop;

    @Param({"64", "1024"})
    public int size;

    @Param({Endpoints.INPROC, Endpoints.TCP})
    public String transport;

    private Rig rig;

    /** One proxied stream: its context, ends and hop. */
    static final class Rig implements AutoCloseable {
        private final ZmqContext context = new ZmqContext();
        private final ZmqSocket push;
        private final ZmqSocket pull;
        private final LibzmqProxyHop hop;
        private final byte[] payload;
        private final byte[] into;
        private long sent;
        private long received;

        Rig(String loop, String transport, int size) {
            if (!loop.equals(LOOP_ZMQZSTD) && !loop.equals(LOOP_LIBZMQ)) {
                throw new IllegalArgumentException("unknown loop: loop=" + loop + ", expected " + LOOP_ZMQZSTD + " or "
                        + LOOP_LIBZMQ);
            }
            if (size < Stamp.BYTES) {
                throw new IllegalArgumentException("size below the stamp's " + Stamp.BYTES + " bytes: size=" + size);
            }
            payload = new byte[size];
            into = new byte[size];
            try {
                pull = context.socket(SocketType.PULL);
                push = context.socket(SocketType.PUSH);
                pull.lingerMs(0);
                push.lingerMs(0);
                pull.receiveTimeoutMs(5000);
                pull.bind(Endpoints.bindable(transport));
                hop = new LibzmqProxyHop(transport, push, pull, loop.equals(LOOP_LIBZMQ));
                push.connect(hop.senderEndpoint());
            } catch (RuntimeException | Error e) {
                context.close();
                throw e;
            }
        }

        /** Sends and receives {@code messages} (at most {@link #BATCH}), each checked; returns the last sequence. */
        long run(int messages) {
            for (int i = 0; i < messages; i++) {
                Stamp.write(payload, sent);
                if (!push.send(payload, 0)) {
                    throw new IllegalStateException("blocking send returned would-block: sequence=" + sent);
                }
                sent++;
            }
            for (int i = 0; i < messages; i++) {
                int n = pull.receive(into, 0);
                if (n < 0) {
                    hop.checkHealthy();
                    throw new IllegalStateException("no message within 5 s: sequence=" + received);
                }
                Stamp.check(into, n, received, payload.length);
                received++;
            }
            return received;
        }

        @Override
        public void close() {
            io.zmqzstd.benchmark.pipeline.ProxyHop.closeThen(hop, context::close);
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        // the tear-down rehearsed, as in TransportBenchmark: a first close inside the last measured iteration
        // would link its downcalls there
        try (Rig rehearsal = new Rig(loop, transport, size)) {
            rehearsal.run(BATCH);
        }
        rig = new Rig(loop, transport, size);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        rig.close();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long transfer() {
        return rig.run(BATCH);
    }
}
