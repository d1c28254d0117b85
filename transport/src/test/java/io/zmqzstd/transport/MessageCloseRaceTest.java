package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A ZmqMessage closed on one thread while another thread calls it in a loop (misuse). Until
 * 2026-11-29 the close got through between the downcalls of a set, copyFrom or moveFrom, and that
 * call threw the JDK's bare "Already closed", or the close threw the JDK's "Session is acquired by
 * 1 clients" (wrapped in a message that blamed a send or receive and named no thread) with the
 * frame already freed and the message's native memory never freed after it; a read (size,
 * address, ...) met "Already closed" too. Now the close is refused naming the other thread, the
 * message open and untouched, or it closes between two calls, and the other thread's next call
 * says "message is closed".
 */
class MessageCloseRaceTest {

    private static final int ROUNDS = 100;
    private static final int CLOSE_TRIES = 300;

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRefuseACloseUnderAnotherThreadsChangeNamingItOrCloseBetweenTwoCalls() throws Exception {
        MemorySegment bytes = MemorySegment.ofArray(new byte[1000]);
        try (ZmqMessage other = new ZmqMessage()) {
            other.set(bytes);
            long refused = race(m -> {
                m.set(bytes);
                m.copyFrom(other);
                m.clear();
            });
            System.out.println("closes refused under set, copyFrom, clear: " + refused + " in " + ROUNDS + " rounds");
            assertEquals(1000, other.size(), "the source of the copies, unchanged");
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRefuseACloseUnderAnotherThreadsReadNamingItOrCloseBetweenTwoCalls() throws Exception {
        MemorySegment dst = MemorySegment.ofArray(new byte[1000]);
        long refused = race(m -> {
            m.size();
            m.hasMore();
            m.address();
            m.copyTo(dst, 0);
            m.toByteArray();
            m.data();
        });
        System.out.println("closes refused under reads: " + refused + " in " + ROUNDS + " rounds");
    }

    /**
     * ROUNDS times: thread "caller" makes {@code calls} on a fresh message of 1000 bytes in a loop
     * until it is told "message is closed", while this thread (named in the messages), once the
     * caller is under way, closes the message, again after each refusal; after CLOSE_TRIES
     * refusals (a close needs the caller between two calls, which a loop of calls leaves for
     * nanoseconds) the caller is stopped and the close must go through.
     *
     * @return how many closes were refused
     */
    private static long race(Consumer<ZmqMessage> calls) throws InterruptedException {
        String me = Thread.currentThread().getName();
        String closeRefused = "message is in a send or receive on another thread than " + me + ", or in another call on"
                + " it: close it once that call has returned (the message stays open; closing the context ends a blocked"
                + " call): message used by two threads at once: thread=" + me + ", while in a call on thread=caller;";
        long refused = 0;
        int closedUnderCalls = 0;
        for (int round = 0; round < ROUNDS; round++) {
            ZmqMessage m = new ZmqMessage();
            m.set(MemorySegment.ofArray(new byte[1000]));
            AtomicLong made = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread caller = Thread.ofPlatform().name("caller").start(() -> {
                try {
                    while (!stop.get()) {
                        try {
                            calls.accept(m);
                            made.incrementAndGet();
                        } catch (IllegalStateException e) {
                            if (e.getMessage().equals("message is closed")) {
                                return;
                            }
                            if (!e.getMessage().startsWith("message used by two threads at once: thread=caller,"
                                    + " while in a call on thread=" + me + ";")) { // the close's own short call
                                throw e;
                            }
                        }
                    }
                } catch (Throwable e) {
                    failed.set(e);
                }
            });
            while (made.get() == 0 && caller.isAlive()) {
                Thread.onSpinWait();
            }
            for (int tries = 1; ; tries++) {
                try {
                    m.close();
                    break;
                } catch (IllegalStateException e) {
                    assertTrue(e.getMessage().startsWith(closeRefused), e.getMessage());
                    refused++;
                    if (tries == CLOSE_TRIES) {
                        stop.set(true);
                        caller.join();
                    }
                }
            }
            if (!stop.get()) {
                closedUnderCalls++;
            }
            stop.set(true);
            caller.join();
            assertNull(failed.get(), () -> "round " + failed.get());
        }
        System.out.println("closed while the caller ran: " + closedUnderCalls + " of " + ROUNDS + " rounds");
        return refused;
    }
}
