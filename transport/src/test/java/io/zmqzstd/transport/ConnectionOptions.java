package io.zmqzstd.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.time.Duration;
import java.util.EnumSet;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** What the kernel holds for a tcp connection libzmq made: an int socket option read from its descriptor. */
final class ConnectionOptions {

    /** int getsockopt(int fd, int level, int option, void *value, socklen_t *length); */
    private static final MethodHandle GETSOCKOPT;

    static {
        Linker linker = Linker.nativeLinker();
        GETSOCKOPT = linker.downcallHandle(linker.defaultLookup().find("getsockopt").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    }

    private ConnectionOptions() {
    }

    /**
     * Connects a PUSH, set up by {@code configure}, to a PULL over tcp, and reads {@code option} at
     * {@code level} of the PUSH's connection, found through its monitor's {@code CONNECTED}.
     */
    static int read(ZmqContext ctx, Consumer<ZmqSocket> configure, int level, int option) throws Throwable {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        String endpoint = Endpoints.bindAny(pull, "tcp");
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        configure.accept(push);
        try (SocketMonitor events = push.monitor(EnumSet.of(MonitorEvent.Type.CONNECTED)); Arena a = Arena.ofConfined()) {
            push.connect(endpoint);
            MonitorEvent connected = events.receive(Duration.ofSeconds(5));
            assertNotNull(connected, "no connection");
            MemorySegment value = a.allocate(ValueLayout.JAVA_INT);
            MemorySegment length = a.allocateFrom(ValueLayout.JAVA_INT, 4);
            int rc = (int) GETSOCKOPT.invokeExact((int) connected.value(), level, option, value, length);
            assertEquals(0, rc, "getsockopt(level=" + level + ", option=" + option + ")");
            return value.get(ValueLayout.JAVA_INT, 0);
        } finally {
            push.close();
            pull.close();
        }
    }
}
