package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ZmqContext#close()} while other threads are blocked inside libzmq on its sockets: the
 * common way to stop a service's receiving thread. The calls must be woken (ETERM), close must
 * wait for them to leave libzmq before it closes their sockets and terminates the context, and
 * it must return with everything freed: before, close closed a socket under a blocked call
 * (undefined behaviour in libzmq), threw from the socket's arena, never terminated the context
 * and left the thread blocked for good.
 */
class CloseUnderBlockedCallTest {

    /** What a blocked thread ran into. */
    private interface BlockingCall {
        void run(ZmqSocket socket) throws Exception;
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // the bug hangs
    void contextCloseWakesAReceiveIntoAMessage() throws Exception {
        try (ZmqMessage msg = new ZmqMessage()) {
            closeUnder(SocketType.PULL, s -> s.receive(msg, 0), "invokeFast");
        }
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void contextCloseWakesAReceiveIntoAnArray() throws Exception {
        closeUnder(SocketType.PULL, s -> s.receive(new byte[16], 0), "invokeFast");
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void contextCloseWakesASendWithNoPeer() throws Exception {
        // a PUSH with no peer has nowhere to queue: a blocking send waits for one
        closeUnder(SocketType.PUSH, s -> s.send(new byte[16], 0), "invokeFast");
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void contextCloseWakesAReceiveWithATimeout() throws Exception {
        closeUnder(SocketType.PULL, s -> {
            s.receiveTimeoutMs(600_000);
            s.receive(new byte[16], 0);
        }, "invokeFast");
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void contextCloseWakesAPoll() throws Exception {
        closeUnder(SocketType.PULL, s -> {
            try (ZmqPoller poller = new ZmqPoller(1)) {
                poller.register(s, ZmqPoller.POLLIN);
                poller.poll(-1);
            }
        }, "pollEntered");
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void contextCloseWakesAZeroCopySendAndTheBufferComesBack() throws Exception {
        try (NativeBufferPool pool = new NativeBufferPool()) {
            AtomicReference<PooledBuffer> rented = new AtomicReference<>();
            closeUnder(ZmqContext.builder().bufferPool(pool).build(), SocketType.PUSH, s -> {
                PooledBuffer b = pool.rent(65536);
                rented.set(b);
                b.segment().fill((byte) 7);
                s.sendPooled(b, 65536, 0);
            }, "invokeFast");
            // libzmq did not take the buffer (the send failed with ETERM): it is the caller's again
            rented.get().release();
            assertEquals(0, pool.outstanding());
        }
    }

    /**
     * A socket close from another thread waits while the receive is inside libzmq; a context
     * shutdown, or a context close (which then completes the waiting socket close), ends it.
     */
    @ParameterizedTest(name = "woken by context {0}")
    @ValueSource(strings = {"shutdown", "close"})
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void socketCloseFromAnotherThreadWaitsForTheBlockedCall(String wake) throws Exception {
        ZmqContext ctx = new ZmqContext();
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.bind("inproc://close-from-elsewhere-" + wake);
        AtomicReference<Throwable> seen = new AtomicReference<>();
        Thread receiver = BlockedCalls.start("invokeFast", seen, () -> pull.receive(new byte[16], 0));
        CompletableFuture<Void> closing = BlockedCalls.async(pull::close);
        // close waits: the native socket must not go while the receive is inside it
        assertThrows(TimeoutException.class, () -> closing.get(300, TimeUnit.MILLISECONDS));
        assertTrue(receiver.isAlive());
        if (wake.equals("shutdown")) {
            ctx.shutdown();
        } else {
            BlockedCalls.async(ctx::close).get(10, TimeUnit.SECONDS);
        }
        closing.get(10, TimeUnit.SECONDS);
        receiver.join(10_000);
        assertFalse(receiver.isAlive());
        assertTrue(assertInstanceOf(ZmqException.class, seen.get()).isContextTerminated());
        assertTrue(pull.isClosed());
        ctx.close();
    }

    private static void closeUnder(SocketType type, BlockingCall call, String nativeFrame) throws Exception {
        closeUnder(new ZmqContext(), type, call, nativeFrame);
    }

    /**
     * Blocks a thread in {@code call} on a fresh socket of {@code type}, proves it is inside the
     * downcall ({@code nativeFrame} is the innermost Java frame, twice in a row), closes the
     * context from this thread and checks the outcome.
     */
    private static void closeUnder(ZmqContext ctx, SocketType type, BlockingCall call, String nativeFrame) throws Exception {
        ZmqSocket socket = ctx.socket(type);
        socket.bind("tcp://127.0.0.1:*");
        AtomicReference<Throwable> seen = new AtomicReference<>();
        Thread caller = BlockedCalls.start(nativeFrame, seen, () -> call.run(socket));
        BlockedCalls.async(ctx::close).get(20, TimeUnit.SECONDS);
        caller.join(10_000);
        assertFalse(caller.isAlive(), "the blocked call did not return");
        ZmqException e = assertInstanceOf(ZmqException.class, seen.get());
        assertTrue(e.isContextTerminated(), e::toString);
        assertTrue(ctx.isClosed());
        assertTrue(socket.isClosed());
        assertThrows(IllegalStateException.class, () -> socket.receive(new byte[1], ZmqSocket.DONTWAIT));
    }
}
