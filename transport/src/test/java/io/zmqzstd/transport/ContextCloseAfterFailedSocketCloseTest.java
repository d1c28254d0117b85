package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A socket whose own {@link ZmqSocket#close()} threw before it reached zmq_close is closed by its
 * context's {@link ZmqContext#close()}. The socket's close marks it closed first, then stops an open
 * monitor's monitoring, which allocates; out of heap, the {@link OutOfMemoryError} left libzmq with
 * the socket. Until 2026-11-29 the context's close took only the sockets it marked closed itself,
 * skipped this one, and zmq_ctx_term waited for its zmq_close for ever. The check runs in a child
 * JVM with a small heap, filled before the socket's close, the {@link #main} below; the context's
 * close runs on a thread of its own there, given {@value #CLOSE_LIMIT_MS} ms, so that a hang fails.
 *
 * <p>The same socket closed again by its owner, the heap back ({@link #SECOND_CLOSE}): until
 * 2026-11-29 the second close found it marked closed and returned at once, libzmq still having it;
 * now it closes it in libzmq itself.
 */
class ContextCloseAfterFailedSocketCloseTest {

    private static final long CLOSE_LIMIT_MS = 10_000;
    /** The child's argument: the socket's own second close before the context's. */
    private static final String SECOND_CLOSE = "secondClose";

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldTerminateTheContextOfASocketWhoseOwnCloseThrewBeforeZmqClose() throws Exception {
        String out = runChild();
        assertTrue(out.contains("contextClosed=true nativeClosed=true"),
                "the context's close did not end within " + CLOSE_LIMIT_MS + " ms: " + out);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shouldCloseInLibzmqOnTheOwnersSecondCloseASocketWhoseFirstCloseThrewBeforeZmqClose() throws Exception {
        String out = runChild(SECOND_CLOSE);
        assertTrue(out.contains("secondCloseReturned=true threw=nothing nativeClosed=true"),
                "the second close did not close the socket in libzmq: " + out);
        assertTrue(out.contains("contextClosed=true nativeClosed=true"), "the context's close did not end: " + out);
    }

    /** The child's output, once it showed the socket's first close failing before zmq_close. */
    private static String runChild(String... args) throws Exception {
        String out = ForkedJvm.run(Duration.ofMinutes(1), ContextCloseAfterFailedSocketCloseTest.class,
                List.of("-Xmx24m", "-XX:+UseSerialGC"), args);
        assertTrue(out.contains("closeThrew=java.lang.OutOfMemoryError marked=true nativeClosed=false"),
                "the socket's close did not fail before zmq_close: " + out);
        return out;
    }

    /**
     * The child: a monitored socket closed with the heap full, then (with {@value #SECOND_CLOSE})
     * closed again with the heap back, then its context closed.
     */
    public static void main(String[] args) throws Exception {
        ZmqContext ctx = ZmqContext.builder().defaultLinger(Duration.ZERO).build();
        try (ZmqSocket warm = ctx.socket(SocketType.PAIR); SocketMonitor warmMonitor = warm.monitor(MonitorEvent.Type.ALL)) {
            warm.bind("inproc://warm"); // every class and call site of the close path linked with heap to spare
        }
        ZmqSocket socket = ctx.socket(SocketType.PAIR);
        SocketMonitor monitor = socket.monitor(MonitorEvent.Type.ALL); // open: the socket's close stops it first, which allocates
        String threw = closeWithTheHeapFull(socket);
        System.out.println("closeThrew=" + threw + " marked=" + socket.isClosed() + " nativeClosed=" + socket.nativeClosed());
        if (args.length > 0 && args[0].equals(SECOND_CLOSE)) {
            String[] secondThrew = {"nothing"};
            Thread second = Thread.ofPlatform().daemon().name("second-close").start(() -> {
                try {
                    socket.close();
                } catch (Throwable t) {
                    secondThrew[0] = t.toString();
                }
            });
            second.join(CLOSE_LIMIT_MS);
            System.out.println("secondCloseReturned=" + !second.isAlive() + " threw=" + secondThrew[0]
                    + " nativeClosed=" + socket.nativeClosed());
        }
        Thread closer = Thread.ofPlatform().daemon().name("context-close").start(ctx::close);
        closer.join(CLOSE_LIMIT_MS);
        System.out.println("contextClosed=" + !closer.isAlive() + " nativeClosed=" + socket.nativeClosed() + " " + monitor);
    }

    /** {@code socket.close()} with not one more object to be had: what it threw, or "nothing". */
    private static String closeWithTheHeapFull(ZmqSocket socket) {
        Object[] hog = new Object[1 << 16];
        int n = 0;
        for (int size = 1 << 20; size > 0 && n < hog.length; ) {
            try {
                hog[n] = new byte[size];
                n++;
            } catch (OutOfMemoryError e) {
                size >>= 1;
            }
        }
        Throwable thrown = null;
        try {
            socket.close();
        } catch (Throwable t) {
            thrown = t;
        }
        hog = null; // the heap back before anything is printed
        return thrown == null ? "nothing" : thrown.getClass().getName();
    }
}
