package io.zmqzstd.transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.nio.charset.StandardCharsets;

/** A fresh context per test, closed after it with no pooled buffer leaked, and socket helpers. */
abstract class ContextTestBase {

    protected ZmqContext ctx;

    @BeforeEach
    void openContext() {
        ctx = new ZmqContext();
    }

    @AfterEach
    void closeContext() {
        ctx.close();
        ctx.bufferPool().assertNoLeaks();
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Blocking calls on {@code s} give up after 5 s, so a lost message fails the test instead of hanging it. */
    static ZmqSocket timed(ZmqSocket s) {
        s.receiveTimeoutMs(5000);
        s.sendTimeoutMs(5000);
        return s;
    }

    /** A new socket of this test's context, {@link #timed}. */
    ZmqSocket socket(SocketType type) {
        return timed(ctx.socket(type));
    }
}
