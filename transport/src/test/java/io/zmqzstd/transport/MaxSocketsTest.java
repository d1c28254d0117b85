package io.zmqzstd.transport;

import com.sun.management.UnixOperatingSystemMXBean;
import io.zmqzstd.transport.internal.LibZmq;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link ZmqContext.Builder#maxSockets}: libzmq's ZMQ_MAX_SOCKETS, 1023 by default, which the
 * builder had no way to raise (the EMFILE of the 1,024th socket named the limit, and nothing
 * offered a way past it).
 */
class MaxSocketsTest {

    private static final int SOCKETS = 1500;

    @Test
    void shouldHoldMoreSocketsThanLibzmqsDefaultWhenRaised() throws Exception {
        // Each socket takes a file descriptor (its mailbox's eventfd): the process must allow them
        var os = (UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long spare = os.getMaxFileDescriptorCount() - os.getOpenFileDescriptorCount();
        assumeTrue(spare > SOCKETS + 100, () -> "the process may open only " + spare + " more file descriptors (ulimit -n "
                + os.getMaxFileDescriptorCount() + "); " + SOCKETS + " sockets need about " + SOCKETS + ": raise ulimit -n");
        try (ZmqContext ctx = ZmqContext.builder().maxSockets(2000).build()) {
            assertEquals(2000, ctx.maxSockets());
            List<ZmqSocket> sockets = new ArrayList<>(SOCKETS);
            for (int i = 0; i < SOCKETS; i++) {
                sockets.add(ctx.socket(SocketType.PAIR));
            }
            // the last one made works: a message through it to the first
            sockets.getFirst().bind("inproc://max-sockets");
            sockets.getLast().connect("inproc://max-sockets");
            assertTrue(sockets.getLast().send("past 1023", 0));
            assertEquals("past 1023", sockets.getFirst().receiveString(0));
        }
    }

    @Test
    void shouldNameTheBuilderOptionWhenTheLimitIsReached() {
        try (ZmqContext ctx = ZmqContext.builder().maxSockets(2).build()) {
            assertEquals(2, ctx.maxSockets());
            ctx.socket(SocketType.PAIR);
            ctx.socket(SocketType.PAIR);
            ZmqException e = assertThrows(ZmqException.class, () -> ctx.socket(SocketType.PAIR));
            assertEquals(LibZmq.EMFILE, e.errno(), e::getMessage);
            assertTrue(e.getMessage().contains("sockets open in this context: 2, its limit ZMQ_MAX_SOCKETS=2;")
                    && e.getMessage().contains("raise the limit with ZmqContext.builder().maxSockets(n)"), e.getMessage());
        }
    }

    /**
     * zmq_socket_monitor makes a PAIR socket of its own in the context, so a monitor takes two
     * slots. The EMFILE that followed blamed the process's file descriptors (the open count was
     * under the limit), and one from monitor() itself named no limit at all.
     */
    @Test
    void shouldCountTheSocketLibzmqMakesForAMonitor() {
        try (ZmqContext ctx = ZmqContext.builder().maxSockets(3).build()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            try (SocketMonitor monitor = push.monitor(MonitorEvent.Type.ALL)) {
                ZmqException e = assertThrows(ZmqException.class, () -> ctx.socket(SocketType.PAIR));
                assertEquals(LibZmq.EMFILE, e.errno(), e::getMessage);
                assertTrue(e.getMessage().contains("sockets open in this context: 2, its limit ZMQ_MAX_SOCKETS=3; so the rest"
                        + " of the limit is held by the sockets libzmq makes for socket monitors (one each),"), e.getMessage());
            }
        }
        try (ZmqContext ctx = ZmqContext.builder().maxSockets(2).build()) {
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            ZmqException e = assertThrows(ZmqException.class, () -> push.monitor(MonitorEvent.Type.ALL));
            assertEquals(LibZmq.EMFILE, e.errno(), e::getMessage);
            assertTrue(e.getMessage().startsWith("zmq_socket_monitor(") && e.getMessage().contains("ZMQ_MAX_SOCKETS=2")
                    && e.getMessage().contains("maxSockets(n)"), e.getMessage());
            // the refused monitor's receiving socket was closed: its place comes free
            LifecycleAndOptionsTest.awaitFreePlace(ctx, "the monitor's socket's place to be free");
        }
    }

    /**
     * Monitors and proxies made and closed, far more of them than the context's room of 16: each
     * gives back both its sockets (a monitor's receiving one and libzmq's, a proxy's two control
     * ones), also a monitor that skipped a name the application had bound (libzmq closes the socket
     * of its failed bind) and a proxy that ran. libzmq frees a closed socket's place on its reaper
     * thread, a little later: a make that finds none free yet is tried again, and at the end all 13
     * places not held by the test's three sockets must come free.
     */
    @Test
    void shouldFreeTheSocketsOfEveryClosedMonitorAndProxy() {
        try (ZmqContext ctx = ZmqContext.builder().maxSockets(16).build()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            ZmqSocket squatter = ctx.socket(SocketType.PAIR);
            for (int i = 0; i < 200; i++) {
                SocketMonitor m = whileReaping(() -> pull.monitor(MonitorEvent.Type.ALL));
                String endpoint = m.endpoint();
                m.close();
                if (i % 10 == 0) {
                    squatter.bind(endpoint.substring(0, endpoint.lastIndexOf('-') + 1)
                            + (SocketMonitorTest.ownNumber(endpoint) + 1)); // the next monitor skips it
                }
                ZmqProxy proxy = whileReaping(() -> new ZmqProxy(pull, push, null));
                if (i % 2 == 0) {
                    proxy.terminate();
                    proxy.run();
                }
                proxy.close();
            }
            List<ZmqSocket> rest = new ArrayList<>();
            for (int i = 0; i < 13; i++) {
                rest.add(whileReaping(() -> ctx.socket(SocketType.PAIR)));
            }
            rest.forEach(ZmqSocket::close);
        }
    }

    /**
     * README "Contexts": a closed socket counts against {@code maxSockets()} until its linger is
     * over. A PUSH with a message queued for a peer that is not there, closed with a linger of
     * 1.5 s, keeps its place: the next socket is refused with EMFILE until libzmq's reaper frees
     * it, which is not before the linger has passed.
     */
    @Test
    void shouldCountAClosedSocketUntilItsLingerIsOver() {
        try (ZmqContext ctx = ZmqContext.builder().maxSockets(2).build()) {
            ZmqSocket keep = ctx.socket(SocketType.PULL);
            keep.bind("tcp://127.0.0.1:*");
            String nobody = keep.lastEndpoint();
            keep.unbind(nobody); // a port nobody listens on now
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            push.lingerMs(1500);
            push.connect(nobody);
            assertTrue(push.send(new byte[] {1}, ZmqSocket.DONTWAIT), "queued for the peer that is not there");
            long closedAt = System.nanoTime();
            push.close();
            ZmqException e = assertThrows(ZmqException.class, () -> ctx.socket(SocketType.PAIR),
                    "the closed socket still counts within its linger");
            assertEquals(LibZmq.EMFILE, e.errno(), e::getMessage);
            assertTrue(e.getMessage().contains("sockets open in this context: 1, its limit ZMQ_MAX_SOCKETS=2")
                    && e.getMessage().contains("by closed sockets still within their linger"), e.getMessage());
            whileReaping(() -> ctx.socket(SocketType.PAIR)).close();
            long freedAfterMs = (System.nanoTime() - closedAt) / 1_000_000;
            assertTrue(freedAfterMs >= 1400, "the place came free before the linger was over: after " + freedAfterMs + " ms");
        }
    }

    /**
     * README "Contexts": a proxy takes two of the context's sockets (its control PAIRs), and gives
     * them back once closed.
     */
    @Test
    void shouldCountTheTwoControlSocketsOfAProxy() {
        try (ZmqContext ctx = ZmqContext.builder().maxSockets(4).build()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            ZmqProxy proxy = new ZmqProxy(pull, push, null);
            ZmqException e = assertThrows(ZmqException.class, () -> ctx.socket(SocketType.PAIR), "2 sockets and a proxy fill 4");
            assertEquals(LibZmq.EMFILE, e.errno(), e::getMessage);
            assertTrue(e.getMessage().contains("sockets open in this context: 4, its limit ZMQ_MAX_SOCKETS=4"), e.getMessage());
            proxy.close();
            ZmqSocket a = whileReaping(() -> ctx.socket(SocketType.PAIR));
            ZmqSocket b = whileReaping(() -> ctx.socket(SocketType.PAIR));
            a.close();
            b.close();
        }
    }

    /** {@code make}, tried again while the context has no free place (EMFILE) for up to 10 s. */
    private static <T> T whileReaping(java.util.function.Supplier<T> make) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        for (;;) {
            try {
                return make.get();
            } catch (ZmqException e) {
                if (e.errno() != LibZmq.EMFILE || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.yield();
            }
        }
    }

    @Test
    void shouldAnswerLibzmqsDefaultWhenNotSet() {
        try (ZmqContext ctx = new ZmqContext()) {
            assertEquals(1023, ctx.maxSockets());
        }
        ZmqContext closed = new ZmqContext();
        closed.close();
        assertThrows(IllegalStateException.class, closed::maxSockets);
    }

    @Test
    void shouldRefuseAMaxSocketsBelowOne() {
        for (int bad : new int[] {0, -1, Integer.MIN_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ZmqContext.builder().maxSockets(bad));
            assertEquals("maxSockets must be at least 1: maxSockets=" + bad, e.getMessage());
        }
    }

    /**
     * libzmq 4.3.4 takes any ZMQ_MAX_SOCKETS from 1, but serves at most ZMQ_SOCKET_LIMIT (65535
     * with epoll): at {@code Integer.MAX_VALUE} the size of its socket table overflows and the
     * first socket aborts the process (checked with pyzmq: exit 134). Refused at build, leaving
     * no native context behind (one file descriptor each).
     */
    @Test
    void shouldRefuseAMaxSocketsAboveLibzmqsSocketLimitLeavingNothingOpen() throws Exception {
        int limit;
        try (ZmqContext ctx = ZmqContext.builder().maxSockets(65535).build()) {
            limit = ctx.maxSockets();
        }
        assertEquals(65535, limit);
        long before = LifecycleAndOptionsTest.openFileDescriptors();
        for (int i = 0; i < 50; i++) {
            int bad = i % 2 == 0 ? limit + 1 : Integer.MAX_VALUE;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ZmqContext.builder().maxSockets(bad).build());
            assertEquals("maxSockets is above what this libzmq can serve: maxSockets=" + bad + ", ZMQ_SOCKET_LIMIT="
                    + limit, e.getMessage());
        }
        long after = LifecycleAndOptionsTest.openFileDescriptors();
        assertTrue(after - before < 10, "file descriptors before=" + before + ", after=" + after);
    }
}
