package io.zmqzstd.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.testkit.ForkedJvm;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A ZmqMessage closed on another thread while a send or receive of it waits in libzmq. Until
 * 2026-11-28 close freed the frame under the call (zmq_msg_close), then threw the JDK's bare
 * "Session is acquired by 1 clients", and the receive, once a frame came, made libzmq abort the
 * process ("Bad address (src/fq.cpp:87)"). Now close is refused and the message stays open: the
 * call completes with its frame, and a close after it works. In a child JVM, as the old code
 * killed the JVM.
 */
class MessageCloseUnderCallTest {

    @Test
    void shouldRefuseToCloseAMessageUnderABlockedReceiveOrSendAndLoseNothing() throws Exception {
        String out = ForkedJvm.run(Duration.ofSeconds(60), MessageCloseUnderCallTest.class,
                List.of("-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/hs_err_pid%p.log"));
        assertTrue(out.contains("receive: refused, frame kept") && out.contains("send: refused, frame kept"), out);
    }

    /** Starts {@code call} on a thread of its own and returns once it waits in libzmq; the future has its outcome. */
    private static CompletableFuture<Boolean> blockedCall(BooleanSupplier call) {
        CompletableFuture<Boolean> outcome = new CompletableFuture<>();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        BlockedCalls.start("invokeFast", thrown, () -> {
            try {
                outcome.complete(call.getAsBoolean());
            } catch (Throwable e) {
                outcome.completeExceptionally(e);
            }
        });
        return outcome;
    }

    private static String refusal(ZmqMessage m) {
        IllegalStateException e = assertThrows(IllegalStateException.class, m::close);
        assertTrue(e.getMessage().startsWith("message is in a send or receive on another thread than main"), e.getMessage());
        return "refused";
    }

    /** The child: a receive, then a send at the high-water mark, each blocked while main closes its message. */
    public static void main(String[] args) throws Exception {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            ZmqSocket push = ctx.socket(SocketType.PUSH);
            pull.receiveHwm(1);
            push.sendHwm(1);
            push.connect(Endpoints.bindAny(pull, "inproc"));

            ZmqMessage received = new ZmqMessage();
            CompletableFuture<Boolean> receive = blockedCall(() -> pull.receive(received, 0));
            String outcome = refusal(received);
            assertTrue(push.send(new byte[] {1, 2, 3}, 0));
            assertTrue(receive.get(10, TimeUnit.SECONDS));
            assertArrayEquals(new byte[] {1, 2, 3}, received.toByteArray(), "the frame the blocked receive took");
            received.close();
            assertThrows(IllegalStateException.class, received::size);
            System.out.println("receive: " + outcome + ", frame kept");

            while (push.send(new byte[] {9}, ZmqSocket.DONTWAIT)) {
                // fills both high-water marks
            }
            ZmqMessage sent = new ZmqMessage();
            sent.set(java.lang.foreign.MemorySegment.ofArray(new byte[] {4, 5}));
            CompletableFuture<Boolean> send = blockedCall(() -> push.send(sent, 0));
            outcome = refusal(sent);
            byte[] frame;
            while ((frame = pull.receiveBytes(0)).length == 1) {
                assertEquals(9, frame[0]);
            }
            assertArrayEquals(new byte[] {4, 5}, frame, "the frame of the blocked send, after the fill");
            assertTrue(send.get(10, TimeUnit.SECONDS));
            assertEquals(0, sent.size(), "sent: libzmq took the frame");
            sent.close();
            assertFalse(pull.receiveBytes(ZmqSocket.DONTWAIT) != null, "nothing else queued");
            System.out.println("send: " + outcome + ", frame kept");
        }
    }
}
