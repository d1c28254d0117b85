package io.zmqzstd.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Thread#interrupt()} does not reach a thread blocked in libzmq: the JDK cannot end a
 * downcall, so the call goes on until what it waits for comes (a message, a timeout, the
 * context's shutdown), and returns as it would have, the interrupt status kept for the caller.
 * The README's Threading section says so; these tests pin it.
 */
class InterruptedCallTest extends ContextTestBase {

    /** How long an interrupted call is watched for not returning. */
    private static final long STILL_BLOCKED_MS = 300;

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldKeepAPollWithoutTimeoutWaitingWhenItsThreadIsInterrupted() throws Exception {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        ZmqSocket push = socket(SocketType.PUSH);
        push.connect(Endpoints.bindAny(pull, "inproc"));
        try (ZmqPoller poller = new ZmqPoller(1)) {
            int i = poller.register(pull, ZmqPoller.POLLIN);
            AtomicReference<Integer> ready = new AtomicReference<>();
            AtomicBoolean interruptKept = new AtomicBoolean();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread polling = BlockedCalls.start("pollEntered", thrown, () -> {
                ready.set(poller.poll(-1));
                interruptKept.set(Thread.currentThread().isInterrupted());
            });
            polling.interrupt();
            polling.join(STILL_BLOCKED_MS);
            assertTrue(polling.isAlive() && BlockedCalls.inside(polling, "pollEntered"),
                    "the interrupted poll is still waiting in libzmq");

            assertTrue(push.send(b("wake"), 0));
            polling.join(10_000);
            assertFalse(polling.isAlive());
            assertNull(thrown.get());
            assertEquals(1, ready.get(), "the poll returned as it would have, for the message");
            assertTrue(interruptKept.get(), "the interrupt status is the caller's to see");
            assertTrue(poller.isReadable(i));
        }
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldKeepAReceiveWaitingWhenItsThreadIsInterruptedUntilTheContextShutsDown() throws Exception {
        ZmqSocket pull = ctx.socket(SocketType.PULL);
        pull.bind("inproc://interrupted-receive");
        AtomicBoolean interruptKept = new AtomicBoolean();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread receiver = BlockedCalls.start("invokeFast", thrown, () -> {
            try {
                pull.receive(new byte[16], 0);
            } finally {
                interruptKept.set(Thread.currentThread().isInterrupted());
            }
        });
        receiver.interrupt();
        receiver.join(STILL_BLOCKED_MS);
        assertTrue(receiver.isAlive() && BlockedCalls.inside(receiver, "invokeFast"),
                "the interrupted receive is still waiting in libzmq");

        ctx.shutdown(); // what does end it
        receiver.join(10_000);
        assertFalse(receiver.isAlive());
        assertTrue(assertInstanceOf(ZmqException.class, thrown.get()).isContextTerminated());
        assertTrue(interruptKept.get());
    }

    /**
     * A send blocked at the high-water mark, interrupted, waits on; once the receiver makes room it
     * goes through, nothing lost or reordered, and the socket goes on sending.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldKeepASendAtTheHighWaterMarkWaitingWhenItsThreadIsInterruptedAndLoseNothing() throws Exception {
        ZmqSocket pull = socket(SocketType.PULL);
        pull.receiveHwm(1);
        ZmqSocket push = ctx.socket(SocketType.PUSH);
        push.sendHwm(1);
        push.connect(Endpoints.bindAny(pull, "inproc"));
        int queued = 0;
        while (push.send(b("m" + queued), ZmqSocket.DONTWAIT)) {
            queued++;
        }
        int last = queued;
        AtomicReference<Boolean> sent = new AtomicReference<>();
        AtomicBoolean interruptKept = new AtomicBoolean();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread sender = BlockedCalls.start("invokeFast", thrown, () -> {
            sent.set(push.send(b("m" + last), 0));
            interruptKept.set(Thread.currentThread().isInterrupted());
            push.send(b("after"), 0); // the socket goes on, the interrupt status still set
        });
        sender.interrupt();
        sender.join(STILL_BLOCKED_MS);
        assertTrue(sender.isAlive() && BlockedCalls.inside(sender, "invokeFast"),
                "the interrupted send is still waiting in libzmq");

        for (int i = 0; i <= last; i++) {
            assertEquals("m" + i, pull.receiveString(0), "every message, in order");
        }
        assertEquals("after", pull.receiveString(0));
        sender.join(10_000);
        assertFalse(sender.isAlive());
        assertNull(thrown.get());
        assertEquals(Boolean.TRUE, sent.get(), "the interrupted send returned as it would have: sent");
        assertTrue(interruptKept.get());
    }
}
