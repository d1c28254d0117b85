package io.zmqzstd.cli;

import io.zmqzstd.cli.InProcess.Result;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code send --type pub --wait-subscribers N} counts the subscriptions whose prefix matches the
 * --topic sent, those that receive its messages, with real SUB sockets over tcp loopback. Each
 * subscriber connects first (libzmq retries until send has bound), so its subscription reaches send
 * as soon as the connection is up.
 */
class WaitSubscribersTest {

    /** The subscribers' context: closing it closes them (linger 0: nothing to wait for at the end). */
    private final ZmqContext context = ZmqContext.builder().defaultLinger(Duration.ZERO).build();
    private final String endpoint = "tcp://127.0.0.1:" + Ports.unused();

    @AfterEach
    void closeSubscribers() {
        context.close();
    }

    /** send --type pub --topic beta of one line, bound at {@code endpoint}, waiting for {@code n} subscriptions. */
    private Result publishBeta(int n, String timeout) {
        return InProcess.execute(cl -> ((SendCommand) cl.getSubcommands().get("send").getCommand()).stdin
                = new ByteArrayInputStream("hello\n".getBytes(StandardCharsets.UTF_8)), "send", "--type", "pub",
                "--topic", "beta", "--bind", endpoint, "--wait-subscribers", String.valueOf(n), "--timeout", timeout);
    }

    /** A SUB of {@code prefixes}, connected to send's endpoint (libzmq retries until send has bound). */
    private ZmqSocket subscriber(String... prefixes) {
        ZmqSocket sub = context.socket(SocketType.SUB);
        for (String prefix : prefixes) {
            sub.subscribe(prefix);
        }
        sub.connect(endpoint);
        return sub;
    }

    /**
     * Two subscribers of another topic and one of the topic sent: the wait for 2 is not met (it
     * ended at once on any 2 subscriptions, and send published to one subscriber only), and the line
     * says how many subscriptions were to other topics.
     */
    @Test
    void shouldNotEndTheWaitOnSubscriptionsToAnotherTopic() {
        subscriber("alpha");
        subscriber("alpha");
        subscriber("beta");
        Result r = publishBeta(2, "2s");
        assertEquals(ExitCodes.TIMEOUT, r.code(), r::toString);
        assertEquals(1, r.err().lines().count(), r::toString);
        assertTrue(r.err().startsWith("zmq-zstd send: timeout: subscriptions=1 of 2 within 2s (counting those to a prefix"
                + " of topic='beta', which receive its messages; others=2)"), r::toString);
    }

    /**
     * A subscription to everything ("") and one to a prefix of the topic ("be") count; one to
     * another topic does not. The wait ends with the two that match, and both receive the message.
     */
    @Test
    void shouldCountSubscriptionsToEverythingAndToAPrefixOfTheTopic() {
        ZmqSocket all = subscriber("");
        ZmqSocket prefix = subscriber("be");
        ZmqSocket other = subscriber("alpha");
        Result r = publishBeta(2, "30s");
        assertEquals(ExitCodes.OK, r.code(), r::toString);
        for (ZmqSocket sub : new ZmqSocket[] {all, prefix}) {
            sub.receiveTimeoutMs(30_000);
            assertArrayEquals("beta".getBytes(StandardCharsets.UTF_8), sub.receiveBytes(0));
            assertTrue(sub.hasMore()); // the frame behind the topic
        }
        assertNull(other.receiveBytes(ZmqSocket.DONTWAIT)); // libzmq's filter: shown for the count's meaning
    }

    /**
     * An unsubscription takes back what its subscription counted: a subscriber that subscribes to
     * the topic and another, unsubscribes from both and subscribes to the topic again makes 1 of 2
     * (each subscription counted, 2 was met and send published). All of it reaches send in order on
     * one connection (a SUB's connection is attached at connect, so each change is queued on it), so
     * the count is never above 1 on the way.
     */
    @Test
    void shouldTakeBackWhatAnUnsubscriptionUndoes() {
        ZmqSocket sub = subscriber("beta", "alpha");
        sub.unsubscribe("beta");
        sub.unsubscribe("alpha");
        sub.subscribe("beta");
        Result r = publishBeta(2, "2s");
        assertEquals(ExitCodes.TIMEOUT, r.code(), r::toString);
        assertTrue(r.err().startsWith("zmq-zstd send: timeout: subscriptions=1 of 2 within 2s ("), r::toString);
        assertTrue(r.err().contains("others=0)"), r::toString);
    }

    /**
     * The fact behind {@link SubscriptionDrain}: libzmq 4.3.4's XPUB keeps every (un)subscription
     * it has taken from its pipes until it is read, whatever {@code ZMQ_RCVHWM} says. With a
     * receive high-water mark of 10, 200 subscription changes are all there to be read after the
     * XPUB has gone on sending (each send moves what its pipes hold into that queue).
     */
    @Test
    void shouldFindThatAnXpubKeepsEverySubscriptionChangePastItsReceiveHighWaterMark() {
        ZmqSocket xpub = context.socket(SocketType.XPUB);
        xpub.setIntOption(78, 1); // ZMQ_XPUB_VERBOSER, as send sets it
        xpub.receiveHwm(10);
        xpub.bind(endpoint);
        ZmqSocket sub = subscriber("");
        sub.receiveTimeoutMs(10);
        while (sub.receiveBytes(0) == null) { // connected once a message gets through
            xpub.send("m", 0);
        }
        for (int i = 0; i < 100; i++) {
            sub.subscribe("topic-" + i);
            sub.unsubscribe("topic-" + i);
        }
        sub.subscribe("end");
        byte[] end = {1, 'e', 'n', 'd'};
        int changes = 0;
        for (byte[] m = null; !Arrays.equals(end, m); ) { // the SUB's changes reach the XPUB in order: "end" comes last
            xpub.send("m", 0);
            while ((m = xpub.receiveBytes(ZmqSocket.DONTWAIT)) != null && !Arrays.equals(end, m)) {
                changes++;
            }
            if (changes == 0) {
                assertNull(m); // nothing read before every change is there: each round sends once more
            }
        }
        assertEquals(1 + 200, changes, "the subscription to '' and 100 subscriptions and unsubscriptions, with rcvhwm=10");
    }

    /**
     * A publisher that runs on while its subscribers come and go: send read the XPUB until the wait
     * was met and never again, and libzmq kept every later subscription and unsubscription (one each
     * per reconnect) queued, unbounded, for as long as send ran. 100 subscribers that connect,
     * receive a message and leave, against a send fed line by line from a pipe: now send reads them
     * away as it goes (its drain set to every read of the input), so the queue is close to empty when
     * the input pauses (it held about 200 before).
     */
    @ParameterizedTest(name = "--threads {0}")
    @ValueSource(ints = {0, 2})
    void shouldNotKeepTheSubscriptionsOfSubscribersThatComeAndGo(int threads) throws Exception {
        PipedOutputStream feed = new PipedOutputStream();
        PipedInputStream stdin = new PipedInputStream(feed, 1 << 16);
        AtomicReference<ZmqSocket> xpub = new AtomicReference<>();
        AtomicReference<Thread> sendThread = new AtomicReference<>();
        ZmqSocket steady = subscriber(""); // meets the wait, and stays
        CompletableFuture<Result> run = CompletableFuture.supplyAsync(() -> {
            sendThread.set(Thread.currentThread());
            return InProcess.execute(cl -> {
                SendCommand send = (SendCommand) cl.getSubcommands().get("send").getCommand();
                send.stdin = stdin;
                send.drainIntervalNanos = 0;
                send.socketMade = xpub::set;
            }, "send", "--type", "pub", "--bind", endpoint, "--wait-subscribers", "1", "--timeout", "30s",
                    "--threads", String.valueOf(threads));
        });
        try {
            steady.receiveTimeoutMs(30_000);
            int lines = 0;
            int received = 0;
            line(feed, "first");
            lines++;
            received += receiveMessage(steady, 0); // the wait is over: send sends
            for (int i = 0; i < 100; i++) {
                ZmqSocket passing = subscriber("");
                passing.receiveTimeoutMs(5);
                do {
                    line(feed, "m" + i); // until one reaches it: connected, its subscription at send
                    lines++;
                    while (receiveMessage(steady, ZmqSocket.DONTWAIT) == 1) { // keeps the steady subscriber's queue short
                        received++;
                    }
                } while (passing.receiveBytes(0) == null);
                passing.close(); // its unsubscription follows (ZMQ_XPUB_VERBOSER)
            }
            line(feed, "last"); // its send takes in the last unsubscription, or its drain does
            lines++;
            while (received < lines) { // every line sent: send is done with the socket until the next line
                received += receiveMessage(steady, 0);
            }
            awaitReadingInput(sendThread.get());
            int queued = queued(xpub.get());
            assertTrue(queued < 10, "(un)subscriptions still queued in send's XPUB after 100 subscribers came and went: " + queued);
        } finally {
            feed.close();
        }
        Result r = run.get(30, TimeUnit.SECONDS);
        assertEquals(ExitCodes.OK, r.code(), r::toString);
    }

    /** Receives one message ([topic, frame]) whole: 1, or 0 when none came (DONTWAIT, or the receive timeout). */
    private static int receiveMessage(ZmqSocket sub, int flags) {
        if (sub.receiveBytes(flags) == null) {
            return 0;
        }
        assertTrue(sub.hasMore());
        assertNotNull(sub.receiveBytes(0)); // the frame behind the topic
        return 1;
    }

    /**
     * Reads away what {@code xpub} holds, counting it, while send is in a read of the pipe. With
     * --threads a worker may still be on its way out of the call that sent the last message (the
     * message arrives first): tried again then.
     */
    private static int queued(ZmqSocket xpub) {
        long deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int queued = 0;
        for (;;) {
            try {
                while (xpub.receiveBytes(ZmqSocket.DONTWAIT) != null) {
                    queued++;
                }
                return queued;
            } catch (IllegalStateException workerStillInACall) {
                assertTrue(System.nanoTime() < deadlineNanos, workerStillInACall::getMessage);
                Thread.onSpinWait();
            }
        }
    }

    private static void line(PipedOutputStream feed, String text) throws IOException {
        feed.write((text + "\n").getBytes(StandardCharsets.UTF_8));
        feed.flush();
    }

    /** Waits until {@code thread} is in a read of the pipe (PipedInputStream waits in Object.wait). */
    private static void awaitReadingInput(Thread thread) throws InterruptedException {
        long deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Arrays.stream(thread.getStackTrace()).anyMatch(f -> f.getClassName().equals(PipedInputStream.class.getName()))
                || thread.getState() != Thread.State.TIMED_WAITING && thread.getState() != Thread.State.WAITING) {
            assertTrue(System.nanoTime() < deadlineNanos, "send never waited for input again");
            Thread.onSpinWait();
        }
    }
}
