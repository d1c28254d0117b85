package io.zmqzstd.benchmark.transport;

import io.zmqzstd.benchmark.CreditedSender;
import io.zmqzstd.transport.ZmqPoller;
import io.zmqzstd.transport.ZmqSocket;

/**
 * The {@code receiveMode} parameter: how the measuring thread waits for the next message. Each receives
 * exactly {@code count} messages [routing id][payload], checking each payload's sequence.
 */
public enum ReceiveMode {

    /** One blocking receive per message. */
    blocking {
        @Override
        long receive(Receiver r, long next, int count) {
            for (int i = 0; i < count; i++) {
                r.awaitIdentity();
                r.payload(next++);
            }
            return next;
        }
    },

    /** Block for the first message, then take what is already queued with DONTWAIT. */
    blockingBatch {
        @Override
        long receive(Receiver r, long next, int count) {
            int received = 0;
            while (received < count) {
                r.awaitIdentity();
                r.payload(next++);
                received++;
                while (received < count && r.tryIdentity()) {
                    r.payload(next++);
                    received++;
                }
            }
            return next;
        }
    },

    /**
     * DONTWAIT only; when nothing is queued, yield the CPU and try again (no sleep: a 1 ms sleep, as in
     * the seeds, measures the sleep).
     */
    nonBlocking {
        @Override
        long receive(Receiver r, long next, int count) {
            int received = 0;
            while (received < count) {
                if (r.tryIdentity()) {
                    r.payload(next++);
                    received++;
                } else {
                    r.sender.checkHealthy();
                    Thread.yield();
                }
            }
            return next;
        }
    },

    /** zmq_poll for readability, then drain what is queued with DONTWAIT. */
    poller {
        @Override
        long receive(Receiver r, long next, int count) {
            int received = 0;
            while (received < count) {
                if (r.poller.poll(1000) == 0) {
                    r.sender.checkHealthy();
                    continue;
                }
                while (received < count && r.tryIdentity()) {
                    r.payload(next++);
                    received++;
                }
            }
            return next;
        }
    };

    /** Receives {@code count} messages numbered from {@code next}; returns the next expected number. */
    abstract long receive(Receiver r, long next, int count);

    /** What every mode needs: the socket, the payload strategy, the routing-id buffer, the sender's health. */
    public static final class Receiver implements AutoCloseable {
        final ZmqSocket socket;
        final TransportStrategy strategy;
        final CreditedSender sender;
        final ZmqPoller poller;
        private final byte[] identity = new byte[256];

        public Receiver(ZmqSocket socket, TransportStrategy strategy, CreditedSender sender) {
            this.socket = socket;
            this.strategy = strategy;
            this.sender = sender;
            this.poller = new ZmqPoller(1);
            poller.register(socket, ZmqPoller.POLLIN);
        }

        /** Receives {@code count} messages in {@code mode}; returns the next expected sequence number. */
        public long receive(ReceiveMode mode, long next, int count) {
            return mode.receive(this, next, count);
        }

        void awaitIdentity() {
            while (socket.receive(identity, 0) < 0) {
                sender.checkHealthy();
            }
        }

        boolean tryIdentity() {
            return socket.receive(identity, ZmqSocket.DONTWAIT) >= 0;
        }

        void payload(long expectedSequence) {
            strategy.receivePayload(socket, expectedSequence);
        }

        @Override
        public void close() {
            poller.close();
        }
    }
}
