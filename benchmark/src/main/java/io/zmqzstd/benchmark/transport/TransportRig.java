package io.zmqzstd.benchmark.transport;

import io.zmqzstd.benchmark.Closing;
import io.zmqzstd.benchmark.CreditedSender;
import io.zmqzstd.benchmark.Payloads;
import io.zmqzstd.transport.ZmqSocket;

/**
 * One contestant of the transport comparison, ready to run: a {@link RouterPair}, a strategy's payload,
 * a {@link CreditedSender} on its own thread and the receiving side. {@link #run} grants the sender a
 * number of messages and receives exactly those on the calling thread, checking each one, so nothing is
 * counted that did not arrive intact. Used by {@code TransportBenchmark} (one rig per JMH trial) and by
 * {@code TransportOverhead} (two rigs alive at once, taking turns).
 */
public final class TransportRig implements AutoCloseable {

    private final RouterPair sockets;
    private final TransportStrategy payloads;
    private final CreditedSender sender;
    private final ReceiveMode.Receiver receiver;
    private long nextSequence;

    /** {@code strategy} as in {@link TransportStrategy#create}, {@code transport} tcp or inproc. */
    public TransportRig(String strategy, String transport, int size, long zeroCopyThresholdBytes) {
        this(strategy, transport, size, zeroCopyThresholdBytes, TransportStrategy.READ_STAMP);
    }

    /** As above, the receiver reading {@code read} of each payload ({@link TransportStrategy#read}). */
    public TransportRig(String strategy, String transport, int size, long zeroCopyThresholdBytes, String read) {
        this(strategy, transport, size, zeroCopyThresholdBytes, read, 1);
    }

    /** As above, on a context with {@code ioThreads} libzmq I/O threads ({@link RouterPair}). */
    public TransportRig(String strategy, String transport, int size, long zeroCopyThresholdBytes, String read,
            int ioThreads) {
        RouterPair r = null;
        TransportStrategy p = null;
        CreditedSender s = null;
        try {
            r = new RouterPair(transport, zeroCopyThresholdBytes, ioThreads);
            p = TransportStrategy.create(strategy, Payloads.generate(Payloads.BINARY, size, 7));
            p.read(read);
            ZmqSocket out = r.sender;
            TransportStrategy strategyOnSender = p;
            s = new CreditedSender("transport-sender-" + strategy, sequence -> {
                if (!out.send(RouterPair.RECEIVER_ID, ZmqSocket.SNDMORE)) {
                    throw new IllegalStateException("routing frame not sent");
                }
                strategyOnSender.sendPayload(out, sequence);
            });
            receiver = new ReceiveMode.Receiver(r.receiver, p, s);
        } catch (RuntimeException | Error e) {
            // undo in close()'s order: the sender thread, the strategy's messages, then the sockets
            Closing.afterFailure(e, s, p, r);
            throw e;
        }
        sockets = r;
        payloads = p;
        sender = s;
    }

    /** Has the sender send {@code messages} messages and receives them in {@code mode}; returns the count so far. */
    public long run(ReceiveMode mode, int messages) {
        sender.grant(messages);
        nextSequence = receiver.receive(mode, nextSequence, messages);
        return nextSequence;
    }

    /**
     * The sender thread, the receiver, then the strategy's messages (the last one received may hold a pooled
     * buffer, inproc zero-copy, which must be back before the pool closes) and the sockets; each even when an
     * earlier close fails.
     */
    @Override
    public void close() {
        Closing.inOrder(sender, receiver, payloads, sockets);
    }
}
