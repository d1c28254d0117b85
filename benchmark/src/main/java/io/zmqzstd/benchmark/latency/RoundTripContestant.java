package io.zmqzstd.benchmark.latency;

/**
 * One request/acknowledgement contestant: the measuring thread compresses and sends a request; a server
 * thread receives it, decompresses it, checks its length and sequence number and answers with an 8-byte
 * acknowledgement carrying that sequence number; the measuring thread waits for it and checks it.
 */
public interface RoundTripContestant extends AutoCloseable {

    /**
     * Sends request {@code sequence} (numbered from 0 without gaps) and returns once its acknowledgement
     * is back. Throws when the acknowledgement is wrong or the server failed.
     */
    void roundTrip(long sequence);

    /** Stops the server thread, closes sockets and contexts. */
    @Override
    void close();
}
