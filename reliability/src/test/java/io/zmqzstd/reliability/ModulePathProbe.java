package io.zmqzstd.reliability;

import io.zmqzstd.codec.ZstdCompressor;
import io.zmqzstd.nativelib.NativeLibrary;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Run by {@link ModulePathTest} in a JVM that has zmq-zstd's jars on the module path and only this
 * class on the class path. Prints the modules the library's classes were loaded in and the flag
 * the library asks for; then sends messages through every restricted-method path the library has
 * (downcalls into both libraries, the pool's free-callback upcall of a zero-copy send, received
 * views and their reinterpretation) and prints {@code ok messages=N zeroCopySends=Z}; on any
 * failure prints the chain of causes and exits 2.
 */
final class ModulePathProbe {

    private ModulePathProbe() {
    }

    public static void main(String[] args) {
        System.out.println("modules " + List.of(NativeLibrary.class, ZstdCompressor.class, ZmqContext.class,
                CompressingSender.class).stream().map(c -> String.valueOf(c.getModule().getName()))
                .collect(Collectors.joining(",")));
        System.out.println("flag " + NativeLibrary.nativeAccessFlag());
        try {
            System.out.println("ok " + roundTrips());
        } catch (Throwable t) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                System.out.println("failed " + c);
            }
            System.exit(2);
        }
    }

    /** {@code messages=N zeroCopySends=Z}. */
    private static String roundTrips() {
        int received = 0;
        long zeroCopySends;
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.bind("tcp://127.0.0.1:*");
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.connect(pull.lastEndpoint());
            ZmqSocket inprocPull = ctx.socket(SocketType.PULL);
            inprocPull.bind("inproc://module-path");
            ZmqSocket inprocPush = ctx.socket(SocketType.PUSH);
            inprocPush.connect("inproc://module-path");
            pull.receiveTimeoutMs(30_000);
            inprocPull.receiveTimeoutMs(30_000);
            try (CompressingSender sender = CompressingSender.builder(push).build();
                 ParallelCompressingSender parallel = ParallelCompressingSender.builder(inprocPush).workers(2).build();
                 DecompressingReceiver receiver = DecompressingReceiver.builder(pull).build();
                 DecompressingReceiver inprocReceiver = DecompressingReceiver.builder(inprocPull).build()) {
                // 64 KiB compresses to more than the 8 KiB threshold: a zero-copy send, freed by the upcall.
                for (int size : new int[] {0, 64, 1024, 65536, 262144}) {
                    byte[] payload = payload(size, size);
                    sender.send(payload, 0);
                    received += expect(receiver, payload);
                }
                for (int i = 0; i < 50; i++) {
                    parallel.send(payload(4096, i), 0);
                }
                parallel.flush();
                for (int i = 0; i < 50; i++) {
                    received += expect(inprocReceiver, payload(4096, i));
                }
                zeroCopySends = sender.stats().zeroCopySends();
            }
        }
        return "messages=" + received + " zeroCopySends=" + zeroCopySends;
    }

    private static int expect(DecompressingReceiver receiver, byte[] payload) {
        int outcome = receiver.receive(0);
        if (outcome != DecompressingReceiver.RECEIVED) {
            throw new IllegalStateException("receive returned " + outcome + ": " + receiver.lastErrorMessage());
        }
        byte[] got = receiver.message().partBytes(0);
        if (!Arrays.equals(got, payload)) {
            throw new IllegalStateException("payload of " + payload.length + " B came back as " + got.length + " other bytes");
        }
        return 1;
    }

    /**
     * Sixteen letters in a pseudo-random order, different for each seed: compresses to about half,
     * so the frame of 64 KiB and more is past the zero-copy threshold.
     */
    private static byte[] payload(int size, int seed) {
        byte[] b = new byte[size];
        int x = seed * 0x9E3779B9 + 1;
        for (int i = 0; i < size; i++) {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            b[i] = (byte) ('a' + (x & 15));
        }
        return b;
    }
}
