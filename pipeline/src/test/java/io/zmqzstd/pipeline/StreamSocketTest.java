package io.zmqzstd.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqSocket;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A STREAM socket carries TCP bytes cut and joined anywhere, not messages, so the wire format's
 * one zstd frame per part cannot hold on it. Before 2026-11-27 every builder took one: a receiver
 * refused every message, a valid frame from a plain TCP peer included, as {@code NOT_ZSTD} (it
 * read the routing id in front as a frame), and a sender's single-part message, which libzmq took
 * as a routing id and dropped, returned true and counted in {@code messages}.
 */
class StreamSocketTest {

    @Test
    void shouldRefuseAStreamSocketInEveryBuilderNamingWhy() {
        try (ZmqContext ctx = new ZmqContext()) {
            ZmqSocket stream = ctx.socket(SocketType.STREAM);
            stream.bind("tcp://127.0.0.1:*");
            AtomicInteger threads = new AtomicInteger();
            List<Runnable> builds = List.of(() -> CompressingSender.builder(stream).build().close(),
                    () -> ParallelCompressingSender.builder(stream).workers(2).threadFactory(r -> {
                        threads.incrementAndGet();
                        return new Thread(r);
                    }).build().close(),
                    () -> DecompressingReceiver.builder(stream).build().close());
            for (Runnable build : builds) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build::run);
                assertTrue(e.getMessage().startsWith("socket type carries no messages: type=STREAM ")
                        && e.getMessage().contains("zstd frame") && e.getMessage().contains("takes [PAIR")
                        && !e.getMessage().contains(", STREAM"), e::getMessage);
            }
            assertEquals(0, threads.get(), "no worker started");
            assertEquals(0, ctx.bufferPool().outstanding());
            assertFalse(stream.isClosed(), "the socket stays the caller's");
        }
    }
}
