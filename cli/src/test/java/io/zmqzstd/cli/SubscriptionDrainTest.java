package io.zmqzstd.cli;

import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SubscriptionDrain} with {@code --threads}: a worker may be in a call on the XPUB while
 * messages are in flight, so the drain waits for an empty ring, and only once the ring has not been
 * empty for its force interval does it wait for the workers ({@code flush()}) and drain. A ring that
 * never empties is made for certain with a real XPUB set {@code ZMQ_XPUB_NODROP} and a subscriber
 * that does not read over inproc: the worker blocks in its send at the high-water mark until it does.
 */
class SubscriptionDrainTest {

    private static final int ZMQ_XPUB_NODROP = 69;
    private static final int ZMQ_XPUB_VERBOSER = 78;
    private static final int MESSAGES = 20;

    private final ZmqContext context = ZmqContext.builder().defaultLinger(Duration.ZERO).build();

    @AfterEach
    void close() {
        context.close();
    }

    @Test
    void shouldWaitForTheWorkersAndDrainOnceTheRingHasNotEmptiedForTheForceInterval() throws Exception {
        ZmqSocket xpub = context.socket(SocketType.XPUB);
        xpub.setIntOption(ZMQ_XPUB_VERBOSER, 1); // as send sets it
        xpub.setIntOption(ZMQ_XPUB_NODROP, 1); // blocks at the high-water mark instead of dropping
        xpub.sendHwm(1);
        xpub.bind("inproc://drain");
        ZmqSocket sub = context.socket(SocketType.SUB);
        sub.receiveHwm(1);
        sub.subscribe("");
        sub.connect("inproc://drain");
        xpub.receiveTimeoutMs(10_000);
        assertArrayEquals(new byte[] {1}, xpub.receiveBytes(0), "the subscription to ''");

        try (ParallelCompressingSender sender = ParallelCompressingSender.builder(xpub).workers(1).build()) {
            for (int i = 0; i < MESSAGES; i++) {
                assertTrue(sender.send(new byte[] {(byte) i}, 0));
            }
            // two fit in the pipe (its and the subscriber's high-water mark): the worker is blocked in a
            // send with the rest in the ring, until the subscriber reads
            sub.subscribe("x");
            sub.unsubscribe("x"); // two changes for the drain to read away, queued behind the blocked send
            MessageReader reader = MessageReader.delimited(new ByteArrayInputStream("line\n".getBytes(StandardCharsets.UTF_8)), (byte) '\n');
            assertTrue(reader.next()); // a read of the input: the drain looks at the clock

            // Before the force interval: no drain while the ring is not empty (a drain would be a call on
            // the XPUB while the worker is in one, which the socket refuses), and no wait
            new SubscriptionDrain(xpub, sender, 0, TimeUnit.HOURS.toNanos(1)).beforeMessage(reader);
            assertTrue(sender.inFlight() > MESSAGES - 4, "the ring stays filled while the worker is blocked: " + sender.inFlight());

            // Past it: waits until the workers have handed every message to libzmq, which the
            // subscriber's reads let them do, and then drains
            FutureTask<Long> forced = new FutureTask<>(() -> {
                new SubscriptionDrain(xpub, sender, 0, 0).beforeMessage(reader);
                return sender.inFlight();
            });
            Thread sending = new Thread(forced, "send");
            sending.start();
            awaitDoneOrWaitingInSender(forced, sending);
            sub.receiveTimeoutMs(10_000);
            for (int i = 0; i < MESSAGES; i++) {
                byte[] frame = sub.receiveBytes(0);
                assertNotNull(frame, "message " + i + " of " + MESSAGES);
            }
            assertEquals(0, forced.get(10, TimeUnit.SECONDS), "messages in flight when the forced drain returned");
            assertNull(xpub.receiveBytes(ZmqSocket.DONTWAIT), "a subscription change the drain left queued");
        }
    }

    /**
     * Waits until {@code task} has ended or {@code thread} waits inside the sender (its flush), so
     * that the subscriber does not empty the ring before the drain has looked at it.
     */
    private static void awaitDoneOrWaitingInSender(FutureTask<?> task, Thread thread) {
        long deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String sender = ParallelCompressingSender.class.getName();
        while (!task.isDone() && !(thread.getState() == Thread.State.WAITING
                && Arrays.stream(thread.getStackTrace()).anyMatch(f -> f.getClassName().equals(sender)))) {
            assertTrue(System.nanoTime() < deadlineNanos, "the drain neither returned nor waited for the sender");
            Thread.onSpinWait();
        }
    }
}
