package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.ADDRESS;

import io.zmqzstd.nativelib.NativeLibrary;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;

/**
 * Run in a forked JVM by {@link LibraryLoadingTest}, so that the libraries' system properties
 * take effect before anything is opened. Prints one line per attempt: {@code <library>
 * attempt=<n> ok} or {@code <library> attempt=<n> <exception class> <message>}.
 */
public final class LibraryProbe {

    private LibraryProbe() {
    }

    public static void main(String[] args) {
        for (int attempt = 1; attempt <= 2; attempt++) {
            try (ZstdCompressor c = new ZstdCompressor(3); ZstdDecompressor d = new ZstdDecompressor()) {
                byte[] data = TestData.text(10_000, attempt);
                boolean same = Arrays.equals(data, d.decompress(c.compress(data)));
                System.out.println("zstd attempt=" + attempt + (same ? " ok" : " wrong content"));
            } catch (Throwable t) {
                System.out.println("zstd attempt=" + attempt + " " + t.getClass().getName() + " " + t.getMessage());
            }
        }
        if (args.length > 0 && args[0].equals("zmq")) {
            // The transport's bindings capture errno on most calls: the extra leading parameter
            // must be there in the throwing stand-in too.
            MethodHandle version = NativeLibrary.ZMQ.downcall("zmq_version",
                    FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS), Linker.Option.captureCallState("errno"));
            for (int attempt = 1; attempt <= 2; attempt++) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
                    MemorySegment v = arena.allocate(ValueLayout.JAVA_INT, 3);
                    version.invokeExact(state, v, v.asSlice(4), v.asSlice(8));
                    System.out.println("zmq attempt=" + attempt + " ok");
                } catch (Throwable t) {
                    System.out.println("zmq attempt=" + attempt + " " + t.getClass().getName() + " " + t.getMessage());
                }
            }
        }
    }
}
