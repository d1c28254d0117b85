package io.zmqzstd.pipeline;

import io.zmqzstd.nativelib.internal.OwnerCleaner;
import io.zmqzstd.transport.ZmqMessage;
import io.zmqzstd.transport.ZmqSocket;
import java.lang.foreign.Arena;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The pipeline's safety net for a {@link CompressingSender} or {@link DecompressingReceiver}
 * dropped without {@code close()} (a {@link ParallelCompressingSender} has its own, which also
 * stops its threads, and shares the count and the warning): once it is unreachable, its native memory (the sender's
 * scratch and staging memory, the receiver's region and its libzmq message, with whatever frame that still holds) is
 * freed on the thread {@code zmqzstd-cleaner} (shared with the codec), and a warning names the
 * class at the 1st, 2nd, 4th, 8th... such owner. Its codec context is the codec's to free.
 * Closing stays the rule: a forgotten owner's memory waits for a garbage collection, which a
 * process with little heap garbage may not have for a long time.
 *
 * <p>Every public method of an owner ends with its {@link io.zmqzstd.nativelib.internal.CallGuard#exit(Object)},
 * a reachability fence on the owner, so the cleaner never frees memory that a call is still using.
 */
final class Unclosed {

    /** Owners freed by the cleaner because they were dropped unclosed. */
    static final AtomicLong FREED_UNCLOSED = new AtomicLong();

    private static final System.Logger LOG = System.getLogger("io.zmqzstd.pipeline");

    private Unclosed() {
    }

    /**
     * Counts one owner freed by the cleaner and warns at the 1st, 2nd, 4th... such owner.
     *
     * @param owner its class, for the warning
     * @param freed what was freed, e.g. "its native memory was"
     */
    static void reportUnclosed(String owner, String freed) {
        OwnerCleaner.reportUnclosed(LOG, FREED_UNCLOSED, owner, freed, "senders and receivers");
    }

    /**
     * The native memory of one owner, held apart from it so that the cleaner can free it without
     * reaching the owner. Runs once: from the owner's close(), or on the cleaner's thread once
     * nothing can reach the owner.
     */
    static final class Memory implements Runnable {
        private final String owner;
        /** The owner's current scratch or region arena; replaced when it grows. */
        Arena arena;
        /** The sender's staging arena for array payloads (null until one comes); replaced when it grows. */
        Arena staging;
        /** The receiver's reused libzmq message, or null. */
        private final ZmqMessage frame;
        /**
         * The socket a {@link CompressingSender} counts itself on ({@link SocketCheck#use}), given
         * back here with its memory, so a sender dropped unclosed holds it until it is collected;
         * null for a receiver.
         */
        ZmqSocket socket;
        /** Set by close() before it runs this; unset when the cleaner runs it. */
        private boolean closedByOwner;
        /** Set once everything is freed. */
        private volatile boolean freed;

        private Cleaner.Cleanable cleanable;

        private Memory(String owner, ZmqMessage frame) {
            this.owner = owner;
            this.frame = frame;
        }

        /**
         * The memory of {@code owner}, freed by the cleaner once {@code owner} is unreachable
         * unless {@link #close()} came first.
         *
         * @param owner the sender or receiver; not referred to by what this returns
         * @param name its class, for the warning
         * @param frame the receiver's reused libzmq message, or null
         */
        static Memory register(Object owner, String name, ZmqMessage frame) {
            Memory m = new Memory(name, frame);
            m.cleanable = OwnerCleaner.CLEANER.register(owner, m);
            return m;
        }

        /** Frees it now, from the owner's close() or a failed constructor, without a warning. Idempotent. */
        void close() {
            closedByOwner = true;
            cleanable.clean();
        }

        /**
         * Frees, then warns when the owner was dropped unclosed: the warning goes to the
         * application's logging, which may throw (before 2026-11-27 it came first, and a warning
         * that threw left the memory allocated for ever).
         */
        @Override
        public void run() {
            try {
                if (frame != null) {
                    frame.close();
                }
            } finally {
                if (socket != null) {
                    SocketCheck.unuse(socket);
                    socket = null;
                }
                if (arena != null) {
                    arena.close();
                    arena = null;
                }
                if (staging != null) {
                    staging.close();
                    staging = null;
                }
                freed = true;
                if (!closedByOwner) {
                    reportUnclosed(owner, "its native memory was");
                }
            }
        }

        /** Whether this memory was freed, by close() or by the cleaner: for tests. */
        boolean freed() {
            return freed;
        }
    }
}
