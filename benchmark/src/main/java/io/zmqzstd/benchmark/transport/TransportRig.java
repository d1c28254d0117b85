package io.zmqzstd.benchmark.transport;

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
        sockets = new RouterPair(transport, zeroCopyThresholdBytes, ioThreads);
        TransportStrategy p = null;
        CreditedSender s = null;
        try {
            p = TransportStrategy.create(strategy, Payloads.generate(Payloads.BINARY, size, 7));
            p.read(read);
            ZmqSocket out = sockets.sender;
            TransportStrategy strategyOnSender = p;
            s = new CreditedSender("transport-sender-" + strategy, sequence -> {
                if (!out.send(RouterPair.RECEIVER_ID, ZmqSocket.SNDMORE)) {
                    throw new IllegalStateException("routing frame not sent");
                }
                strategyOnSender.sendPayload(out, sequence);
            });
            receiver = new ReceiveMode.Receiver(sockets.receiver, p, s);
        } catch (RuntimeException e) {
            // undo in close()'s order: the sender thread, the strategy's messages, then the sockets
            if (s != null) {
                s.close();
            }
            if (p != null) {
                p.close();
            }
            sockets.close();
            throw e;
        }
        payloads = p;
        sender = s;
    }

    /** Has the sender send {@code messages} messages and receives them in {@code mode}; returns the count so far. */
    public long run(ReceiveMode mode, int messages) {
        sender.grant(messages);
        nextSequence = receiver.receive(mode, nextSequence, messages);
        return nextSequence;
    }

    @Override
    public void close() {
        try {
            sender.close();
        } finally {
            receiver.close();
            // the strategy's messages first: the last one received may hold a pooled buffer (inproc
            // zero-copy), which must be back before the pool closes
            try {
                payloads.close();
            } finally {
                sockets.close();
            }
        }
    }
}
