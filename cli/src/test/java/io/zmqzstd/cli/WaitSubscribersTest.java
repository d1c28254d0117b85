package io.zmqzstd.cli;

import io.zmqzstd.cli.InProcess.Result;
import io.zmqzstd.testkit.Ports;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
