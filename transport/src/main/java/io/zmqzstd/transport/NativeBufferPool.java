package io.zmqzstd.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Native buffers for zero-copy sends, in power-of-two size classes carved out of long-lived
 * slabs.
 *
 * <p>Thread safety: {@link #rent} and {@link PooledBuffer#release} may run on any threads at the
 * same time; in particular libzmq returns zero-copy buffers from its I/O thread, from the
 * receiving thread (inproc) or from the sender itself. Each size class keeps its free slots on a
 * lock-free stack (CAS on a tagged head, so a slot popped and pushed back in between cannot fool
 * it). Neither rent nor return allocates on the heap or blocks, except when a class runs out and a
 * new slab is carved (counted as a miss), and the first rent on a thread (which makes its cache).
 *
 * <p>Thread caches: for the classes below the zero-copy threshold (the higher of the two, for
 * inproc-only sockets and the rest), where a send copies the buffer
 * and hands it back on the same thread at once, each platform thread keeps up to
 * {@value #THREAD_CACHE_SLOTS} free buffers per class of its own, so that a rent and a release on
 * one thread touch no shared word (no CAS on the free stack, no shared counter). Buffers libzmq
 * returns (zero-copy sends) and releases on virtual threads go to the shared stacks. A class's
 * shared stack running dry, or a thread making its cache, takes back the caches of threads that
 * have ended (their buffers and counters); a live thread's cache holds at most
 * {@value #THREAD_CACHE_SLOTS} buffers of each such class.
 *
 * <p>Bounds: each class holds at most {@code maxBuffersPerClass} slots. When a class is exhausted,
 * or a request is larger than the largest class, {@code rent} still succeeds with an unpooled
 * buffer (counted as a miss) of its own memory, freed as soon as it is returned (its release, or
 * libzmq's free callback); a segment kept past that then throws {@link IllegalStateException}. An
 * unpooled buffer never returned is freed once nothing reaches it.
 *
 * <p>Lifetime: slabs are freed by {@link #close()}, which a context that owns its pool calls only
 * after {@code zmq_ctx_term} has returned, i.e. when libzmq holds no message any more. A pool
 * closed while libzmq still holds some of its buffers keeps its memory (and logs why) rather than
 * free memory libzmq may still read. Once {@code close()} has begun, a send of one of its buffers
 * fails with {@link IllegalStateException}; a zero-copy send that got in first makes {@code close()}
 * keep the memory, and a copying send reads the buffer through its segment, whose arena the JDK does
 * not free under a running access, so a send and a close on different threads never let libzmq
 * read freed memory.
 *
 * <p>Leak detection ({@code -Dzmqzstd.leakDetection=disabled|sampled|strict}, default disabled
 * because recording a rent site allocates a stack trace; or
 * {@link Builder#leakDetection}) records where buffers were rented (every rent when strict, one in
 * 64 when sampled) and reports buffers still rented by the application from {@link #checkLeaks()},
 * {@link #assertNoLeaks()} and {@link #close()}.
 */
public final class NativeBufferPool implements AutoCloseable {

    /** How much rent-site information the pool keeps. */
    public enum LeakDetection {
        /** No rent sites: leaked buffers are still found and reported, without their origin. */
        DISABLED,
        /** The rent site of one rent in 64 (a stack trace each). */
        SAMPLED,
        /** The rent site of every rent, a stack trace each; what the test suite runs with. */
        STRICT
    }

    /**
     * Default switch-over between copying and zero-copy sends. Measured with the ways taking turns in
     * one JVM (BENCHMARKS.md, "The zero-copy switch-over"): over inproc zero-copy is 1.34x copying
     * at 512 B and 1.43-1.53x from 2 to 8 KiB; over tcp one sender sees the two level from 512 B to
     * 128 KiB (0.97x-1.02x), but two senders on one pool lose 7 % at 2 KiB and 4 % at 4 KiB with a
     * 2 KiB threshold, consistent with the classes above the threshold having no thread caches. 8 KiB keeps
     * tcp, the inter-process case, at its best; sockets whose every endpoint is inproc use
     * {@link #DEFAULT_INPROC_ZERO_COPY_THRESHOLD_BYTES} instead.
     */
    public static final long DEFAULT_ZERO_COPY_THRESHOLD_BYTES = 8192;

    /**
     * Default switch-over for sockets whose every endpoint is {@code inproc://} (see
     * {@link ZmqSocket#zeroCopyThresholdBytes()}). There the receiver reads the sender's buffer
     * itself and nothing is written to a kernel socket: measured with the two ways taking turns in
     * one JVM (BENCHMARKS.md, "The zero-copy switch-over"), zero-copy is 1.34x copying at 512 B,
     * 1.41x at 1 KiB and 1.43-1.53x from 2 to 8 KiB for one sender, and with two senders on one
     * pool a 2 KiB threshold beats 8 KiB by 1.22x at 2 KiB and 1.35x at 4 KiB.
     */
    public static final long DEFAULT_INPROC_ZERO_COPY_THRESHOLD_BYTES = 512;

    private static final System.Logger LOG = System.getLogger(NativeBufferPool.class.getName());
    private static final int SAMPLE_MASK = 63;
    /** Free buffers a thread keeps per cached class. */
    static final int THREAD_CACHE_SLOTS = 8;

    // Hint layout (64 bits): | 0 | pool id (16) | unpooled (1) | size class (14) | slot (32) |
    private static final int ID_SHIFT = 47;
    private static final long UNPOOLED_BIT = 1L << 46;
    private static final int CLASS_SHIFT = 32;
    private static final int MAX_POOLS = 1 << 16;

    /** Live pools by id; the free callback finds a buffer's pool here without any per-message state. */
    private static final AtomicReferenceArray<NativeBufferPool> POOLS = new AtomicReferenceArray<>(MAX_POOLS);
    private static final AtomicLong CALLBACK_ERRORS = new AtomicLong();
    private static final AtomicLong STRAY_CALLBACKS = new AtomicLong();

    /**
     * Told of every pool as its constructor finishes; null unless a test suite's leak check
     * installs one (it then inspects those pools after each test). Not for production use.
     */
    static volatile Consumer<NativeBufferPool> buildListener;

    /**
     * The one upcall stub for the whole process: {@code void ffn(void *data, void *hint)}, with both
     * pointers taken as {@code long} so that the upcall allocates nothing.
     */
    static final MemorySegment FREE_CALLBACK;

    static {
        try {
            var handle = MethodHandles.lookup().findStatic(NativeBufferPool.class, "freeCallback",
                    MethodType.methodType(void.class, long.class, long.class));
            FREE_CALLBACK = Linker.nativeLinker().upcallStub(handle,
                    FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG), Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int id;
    private final long minBufferBytes;
    private final SizeClass[] classes;
    private final long slabBytes;
    private final long zeroCopyThresholdBytes;
    private final long inprocZeroCopyThresholdBytes;
    private final LeakDetection leakDetection;
    private final Arena slabArena = Arena.ofShared();
    private final ConcurrentHashMap<Long, PooledBuffer> unpooled = new ConcurrentHashMap<>();
    private final AtomicLong unpooledSeq = new AtomicLong();
    /** Classes {@code [0, cachedClasses)} have thread caches: those whose buffers are copied when sent. */
    private final int cachedClasses;
    private final ThreadLocal<ThreadCache> threadCache = new ThreadLocal<>();
    /**
     * The cache of the first platform thread that rented or released here, found by one identity
     * test instead of a ThreadLocal lookup: the thread of a one-sender service. Racy on purpose: set
     * once while null, cleared when its owner has ended; a cache's fields are final, so any thread
     * that reads it sees it whole, and only its owner passes the test.
     */
    private ThreadCache firstCache;
    /** Every thread cache made so far and not yet retired; guarded by itself. */
    private final ArrayList<ThreadCache> caches = new ArrayList<>();
    /** Counters of retired caches; guarded by {@link #caches}. */
    private long retiredHits;
    private long retiredMisses;
    private long retiredReturns;

    // rented = hits + misses: each rent counts as exactly one of them, in the renting thread's
    // cache or (virtual threads) in these shared counters. Returns by libzmq's free callback and on
    // virtual threads count here, other releases in the releasing thread's cache.
    private final AtomicLong returned = new AtomicLong();
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong unpooledRents = new AtomicLong();
    /**
     * Buffers libzmq holds (zero-copy sends) in the low bits, plus {@link #CLOSED_BIT}: one word,
     * so that close() and a zero-copy send decide with one CAS each who came first. A send adds 1
     * only while the bit is clear; close() sets the bit and frees the slabs
     * only if the count it replaced was 0.
     */
    private final AtomicLong inFlight = new AtomicLong();
    private static final long CLOSED_BIT = 1L << 62;
    private final AtomicLong slabBytesAllocated = new AtomicLong();
    private final AtomicLong doubleReleases = new AtomicLong();
    /** Whether the slabs' arena is closed: {@link #freeMemory} moves it LIVE, FREEING, then FREED or back. */
    private final AtomicInteger memory = new AtomicInteger();
    private static final int MEMORY_LIVE = 0;
    private static final int MEMORY_FREEING = 1;
    private static final int MEMORY_FREED = 2;
    private int sampleCounter; // racy on purpose: only decides which rents to sample
    private volatile boolean closed;

    private NativeBufferPool(Builder b) {
        this.minBufferBytes = b.minBufferBytes;
        this.slabBytes = b.slabBytes;
        this.zeroCopyThresholdBytes = b.zeroCopyThresholdBytes;
        this.inprocZeroCopyThresholdBytes = b.inprocZeroCopyThresholdBytes >= 0 ? b.inprocZeroCopyThresholdBytes
                : b.zeroCopyThresholdSet ? b.zeroCopyThresholdBytes : DEFAULT_INPROC_ZERO_COPY_THRESHOLD_BYTES;
        this.leakDetection = b.leakDetection;
        int n = Long.numberOfTrailingZeros(b.maxBufferBytes) - Long.numberOfTrailingZeros(b.minBufferBytes) + 1;
        this.classes = new SizeClass[n];
        try {
            for (int c = 0; c < n; c++) {
                long bufferBytes = b.minBufferBytes << c;
                int max = b.maxBuffersPerClass > 0 ? b.maxBuffersPerClass : defaultMaxBuffers(bufferBytes);
                classes[c] = new SizeClass(c, bufferBytes, max);
            }
        } catch (OutOfMemoryError e) {
            throw allocationFailed("cannot allocate the pool's slot tables (one reference per slot and class, made at"
                    + " build): maxBuffersPerClass=" + b.maxBuffersPerClass + ", classes=" + n, e);
        }
        // Registered only once nothing else can fail: the table of live pools held on to a pool whose
        // build failed after it, and to its id, for good (PoolBuildFailureTest).
        this.id = register(this);
        int cached = 0;
        long copiedUpTo = Math.max(zeroCopyThresholdBytes, inprocZeroCopyThresholdBytes);
        while (cached < n && (b.minBufferBytes << cached) <= copiedUpTo) {
            cached++;
        }
        this.cachedClasses = cached;
        Consumer<NativeBufferPool> listener = buildListener;
        if (listener != null) {
            listener.accept(this);
        }
    }

    /**
     * Default slots per class: enough for every message libzmq can hold at its default high-water
     * marks (1000 queued on the sending pipe plus 1000 on the receiving one, plus the tcp batch),
     * so a sender that fills the pipes never falls back to unpooled buffers, which allocate on the
     * heap. Measured: with 256 slots, 64 KiB zero-copy over tcp missed on most messages and
     * allocated 150-205 B per message. Memory is carved only when buffers are really in flight;
     * the cap on what a class keeps afterwards is {@link #DEFAULT_RETAINED_BYTES_PER_CLASS}.
     */
    static final int DEFAULT_MAX_BUFFERS_PER_CLASS = 4096;
    /** Large classes keep fewer slots: at most this many bytes each, and never fewer than 256 slots. */
    static final long DEFAULT_RETAINED_BYTES_PER_CLASS = 512L << 20;
    private static final int MIN_DEFAULT_BUFFERS_PER_CLASS = 256;

    static int defaultMaxBuffers(long bufferBytes) {
        long byBytes = DEFAULT_RETAINED_BYTES_PER_CLASS / bufferBytes;
        return (int) Math.max(MIN_DEFAULT_BUFFERS_PER_CLASS, Math.min(DEFAULT_MAX_BUFFERS_PER_CLASS, byBytes));
    }

    /**
     * A pool with the defaults: 256 B to 4 MiB, 1 MiB slabs, 4096 buffers per class up to 128 KiB
     * and fewer above (512 MiB per class, at least 256 buffers).
     */
    public NativeBufferPool() {
        this(new Builder());
    }

    /**
     * Settings for a pool other than the defaults of {@link #NativeBufferPool()}.
     *
     * @return a builder with the defaults, leak detection from {@code -Dzmqzstd.leakDetection}
     * @throws IllegalArgumentException when {@code -Dzmqzstd.leakDetection} is not disabled,
     *     sampled or strict
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A buffer of at least {@code minCapacityBytes}; never null. The caller owns it until
     * {@link PooledBuffer#release()} or a successful {@link ZmqSocket#sendPooled}.
     *
     * @param minCapacityBytes the bytes needed, 0 or more: the smallest size class that holds
     *     them serves the rent, and a request above the largest class gets an unpooled buffer
     * @return a buffer of at least {@code minCapacityBytes}, owned by the caller; an unpooled one
     *     (a miss) when every slot of its class is out already
     * @throws IllegalArgumentException when {@code minCapacityBytes} is negative
     * @throws IllegalStateException when the pool is closed
     * @throws OutOfMemoryError when the buffer's memory cannot be allocated (for an unpooled
     *     buffer the message names {@code minCapacityBytes}, for a pooled one its size class and
     *     the slab being carved); nothing is counted then
     */
    public PooledBuffer rent(long minCapacityBytes) {
        if (closed) {
            throw new IllegalStateException(POOL_CLOSED);
        }
        if (minCapacityBytes < 0) {
            throw new IllegalArgumentException("negative capacity: minCapacityBytes=" + minCapacityBytes);
        }
        int c = classIndex(minCapacityBytes);
        ThreadCache tc = cache();
        PooledBuffer b = null;
        if (c < classes.length) {
            SizeClass sc = classes[c];
            if (tc != null && c < cachedClasses) {
                b = tc.pop(c, classes);
            }
            if (b == null) {
                b = sc.pop();
            }
            if (b == null && reclaimDeadCaches()) {
                b = sc.pop();
            }
            if (b != null) {
                countHit(tc);
            } else {
                b = sc.create(); // may throw (slab allocation, closed pool): count the miss only once it did not
                if (b != null) {
                    countMiss(tc);
                }
            }
        }
        if (b == null) {
            b = newUnpooled(minCapacityBytes);
            countMiss(tc);
            unpooledRents.incrementAndGet(); // after its miss: stats() reads it before the misses
        }
        // The site before the state: a leak check on another thread that sees RENTED (a volatile
        // read after this release store) sees the site too. Marked first, until 2026-11-29, a strict
        // pool's buffer was reported "rent site not recorded" while its stack trace was being made
        // (LeakReportRaceTest).
        if (leakDetection == LeakDetection.STRICT
                || (leakDetection == LeakDetection.SAMPLED && (++sampleCounter & SAMPLE_MASK) == 0)) {
            b.rentSite = new Throwable("buffer rented here: capacity=" + b.capacity);
        }
        // Release order suffices: the slot was free, so no other thread may change its state now.
        b.setStateRelease(PooledBuffer.RENTED);
        return b;
    }

    /**
     * Carves buffers ahead of use, so that the first rents (and the first bursts that push more
     * buffers into libzmq's queues than the stream needed so far) are hits instead of misses: a miss
     * allocates a small object on the heap and may carve a slab. Size {@code count} to what the
     * stream keeps in flight at most, e.g. the sender's high-water mark plus a few.
     *
     * @param capacityBytes the size a rent will ask for; it selects the size class
     * @param count how many buffers of that class should exist; never more than the class bound
     * @return how many buffers this call carved (0 when the class already had {@code count})
     * @throws IllegalArgumentException when the capacity is beyond the largest class or a value is negative
     * @throws IllegalStateException when the pool is closed
     * @throws OutOfMemoryError when a slab cannot be allocated, naming the size class and the slab;
     *     the buffers carved before it stay
     */
    public int reserve(long capacityBytes, int count) {
        if (closed) {
            throw new IllegalStateException(POOL_CLOSED);
        }
        if (capacityBytes < 0 || count < 0) {
            throw new IllegalArgumentException("negative value: capacityBytes=" + capacityBytes + ", count=" + count);
        }
        int c = classIndex(capacityBytes);
        if (c >= classes.length) {
            throw new IllegalArgumentException("capacity beyond the largest size class: capacityBytes="
                    + capacityBytes + ", maxBufferBytes=" + classes[classes.length - 1].bufferBytes);
        }
        SizeClass sc = classes[c];
        int target = Math.min(count, sc.slots.length);
        int carved = 0;
        while (sc.created.get() < target) {
            PooledBuffer b = sc.create();
            if (b == null) {
                break;
            }
            b.setState(PooledBuffer.FREE);
            sc.push(b);
            carved++;
        }
        return carved;
    }

    /**
     * Below this length {@link ZmqSocket#sendPooled} copies the buffer into a libzmq message
     * instead of handing it over, on a socket with any endpoint that is not {@code inproc://}.
     *
     * @return the threshold in bytes (default {@value #DEFAULT_ZERO_COPY_THRESHOLD_BYTES})
     */
    public long zeroCopyThresholdBytes() {
        return zeroCopyThresholdBytes;
    }

    /**
     * The same switch-over on a socket whose every endpoint is {@code inproc://}
     * ({@link ZmqSocket#zeroCopyThresholdBytes()}).
     *
     * @return the threshold in bytes (default {@value #DEFAULT_INPROC_ZERO_COPY_THRESHOLD_BYTES},
     *     or the builder's {@link Builder#zeroCopyThresholdBytes(long)} when only that one was
     *     set)
     */
    public long inprocZeroCopyThresholdBytes() {
        return inprocZeroCopyThresholdBytes;
    }

    /**
     * The leak detection mode in force.
     *
     * @return the builder's mode, or the one {@code -Dzmqzstd.leakDetection} named
     */
    public LeakDetection leakDetection() {
        return leakDetection;
    }

    /**
     * A snapshot of the counters (allocates; not for the hot path).
     *
     * @return the counters since the pool was built, read one after another (not atomically),
     *     in an order that keeps a snapshot possible: {@code rented} is {@code hits + misses},
     *     {@code outstanding} is {@code rented - returned} and never below the true count (see
     *     {@link #outstanding()}; it may be above it while other threads rent and release), and
     *     {@code unpooled} is never above {@code misses}
     */
    public Stats stats() {
        // Unpooled rents before the misses, each counted after its miss: so a snapshot never shows
        // more of them than misses. Read after, as until 2026-11-29, they overtook the misses
        // while threads rented above the largest class (PoolStatsConsistencyTest).
        long unpooledCount = unpooledRents.get();
        Totals t = totals();
        long r = t.rented();
        return new Stats(r, t.returned(), r - t.returned(), t.hits(), t.misses(), unpooledCount,
                inFlight.get() & ~CLOSED_BIT, slabBytesAllocated.get(), CALLBACK_ERRORS.get(), STRAY_CALLBACKS.get(),
                doubleReleases.get());
    }

    /**
     * Buffers rented and not yet returned (including those libzmq still holds). Cheap: a lock and
     * a walk over the thread caches; not for the per-message path. Never below
     * the true count at the moment of the call, so 0 means every buffer really was back: returned
     * is read first, and every buffer counted there was counted in rented (hits plus misses, each
     * counted before rent returns) before, so a rent and a return racing with this call can only
     * make the answer too high, never 0 too early.
     *
     * @return buffers out of the pool right now, in the caller's hands or libzmq's
     */
    public long outstanding() {
        Totals t = totals();
        return t.rented() - t.returned();
    }

    /** Returns, hits and misses of the shared counters and every thread cache, summed. */
    private record Totals(long returned, long hits, long misses) {
        long rented() {
            return hits + misses;
        }
    }

    /**
     * The counters summed under the caches' lock, returns read before hits and misses: a buffer
     * counted as returned was counted as rented before, so rented minus returned is never below
     * the true count (see {@link #outstanding()}).
     */
    private Totals totals() {
        synchronized (caches) {
            long ret = returned.get() + retiredReturns;
            for (ThreadCache tc : caches) {
                ret += tc.returns();
            }
            long h = hits.get() + retiredHits;
            long m = misses.get() + retiredMisses;
            for (ThreadCache tc : caches) {
                h += tc.hits();
                m += tc.misses();
            }
            return new Totals(ret, h, m);
        }
    }

    /**
     * Counters since the pool was built.
     *
     * @param rented buffers handed out by {@code rent}
     * @param returned buffers given back (by release, or by libzmq after a zero-copy send)
     * @param outstanding rented minus returned
     * @param hits rents served from a free slot
     * @param misses rents that had to carve a new slot or fall back to an unpooled buffer
     * @param unpooled rents served by an unpooled buffer (class exhausted or request too large)
     * @param inFlight buffers libzmq holds right now
     * @param slabBytes native memory carved into slabs so far
     * @param callbackErrors throwables caught in the free callback, process-wide (should stay 0)
     * @param strayCallbacks free callbacks for a buffer that libzmq did not hold: a second callback
     *     for the same send, or a hint that names no live buffer; process-wide, because such a hint
     *     may name no pool at all (should stay 0: anything else is a double return)
     * @param doubleReleases {@link PooledBuffer#release()} calls on a buffer the caller no longer
     *     owned (released already, or taken by a send); harmless to the pool, but a sign that a
     *     stale handle is about: a second release after someone else rented the slot again would
     *     take their buffer
     */
    public record Stats(long rented, long returned, long outstanding, long hits, long misses, long unpooled,
                        long inFlight, long slabBytes, long callbackErrors, long strayCallbacks,
                        long doubleReleases) {
    }

    /**
     * Logs every buffer the application still holds (rented, not released, not sent) with its rent
     * site when one was recorded.
     *
     * @return how many such buffers there are
     */
    public int checkLeaks() {
        List<Throwable> leaks = leakSites();
        for (Throwable t : leaks) {
            LOG.log(System.Logger.Level.ERROR, "LEAK: a pooled buffer was never released nor sent", t);
        }
        return leaks.size();
    }

    /**
     * Throws when the application still holds buffers, each rent site attached as a suppressed
     * exception (rent sites are recorded in strict mode, and for one rent in 64 when sampled).
     *
     * @throws IllegalStateException describing the leaks
     */
    public void assertNoLeaks() {
        List<Throwable> leaks = leakSites();
        if (!leaks.isEmpty()) {
            IllegalStateException e = new IllegalStateException("pooled buffers leaked: count=" + leaks.size()
                    + ", leakDetection=" + leakDetection.name().toLowerCase(Locale.ROOT));
            leaks.forEach(e::addSuppressed);
            throw e;
        }
    }

    /**
     * One throwable per buffer the application still holds: its rent site when one was recorded.
     * Also valid after close (the handles outlive the slabs).
     */
    List<Throwable> leakSites() {
        List<Throwable> out = new ArrayList<>();
        for (SizeClass sc : classes) {
            int n = Math.min(sc.created.get(), sc.slots.length);
            for (int i = 0; i < n; i++) {
                addIfLeaked(sc.slots[i], out);
            }
        }
        for (PooledBuffer b : unpooled.values()) {
            addIfLeaked(b, out);
        }
        return out;
    }

    /**
     * Adds {@code b} when the application holds it. The state is read before the site: a rent
     * records the site before it marks the buffer rented, so a buffer seen rented shows its site.
     * A release clears the site after it marks the buffer free, so a site found missing is read
     * again with the state: a buffer no longer rented was released in between (not held), and one
     * rented again shows the new rent's site on the next pass. Bounded, as a strict pool's site can
     * be missing only while a release and a rent run on another thread.
     */
    private static void addIfLeaked(PooledBuffer b, List<Throwable> out) {
        if (b == null) {
            return;
        }
        Throwable site = null;
        for (int pass = 0; pass < 4 && site == null; pass++) {
            if (b.state() != PooledBuffer.RENTED) {
                return;
            }
            site = b.rentSite;
        }
        out.add(site != null ? site : new Throwable("buffer leaked: capacity=" + b.capacity
                + " (rent site not recorded; run with -Dzmqzstd.leakDetection=strict)"));
    }

    /**
     * Reports leaks and frees the slabs. If libzmq still holds buffers of this pool (messages not
     * yet sent or freed: close the context first), or a copying {@code sendPooled} is reading one,
     * the memory is kept alive until they are done instead, so that libzmq never reads freed
     * memory. Idempotent once the memory is freed.
     *
     * <p>A channel operation (a {@code FileChannel} or {@code SocketChannel} read or write, say)
     * running on another thread on a buffer's {@code segment().asByteBuffer()} holds the slabs'
     * arena for as long as it runs, and the JDK refuses to free memory under it. Then this method
     * throws {@link IllegalStateException} saying so, and the memory stays: the pool is closed
     * (rents and sends fail) but its memory is freed only by a later {@code close()}, once the
     * operation has ended. The same holds when the last buffer libzmq held comes back during such
     * an operation (that return logs a warning instead of throwing).
     *
     * @throws IllegalStateException when a running I/O operation on one of the pool's buffers
     *     keeps its memory from being freed now; call {@code close()} again once it has ended
     */
    @Override
    public void close() {
        boolean first;
        synchronized (this) {
            first = !closed;
            closed = true;
        }
        if (first) {
            checkLeaks();
            // From here on no send can take a buffer (acquireForSend sees the bit); one that got in
            // first is counted in held, and then the memory stays.
            long held = inFlight.getAndAdd(CLOSED_BIT);
            if (held != 0) {
                LOG.log(System.Logger.Level.WARNING, "pool closed while libzmq still holds buffers or a send reads one:"
                        + " inFlight=" + held + "; keeping its memory alive until they are done (close the ZmqContext"
                        + " and stop the senders before closing its pool)");
                return;
            }
        } else if (inFlight.get() != CLOSED_BIT) {
            return; // the last buffer libzmq gives back frees the memory
        }
        IllegalStateException busy = freeMemory();
        if (busy != null) {
            throw busy;
        }
    }

    /**
     * Frees the slabs of a closed pool that libzmq holds nothing of: from close(), or from the
     * callback that brought the last in-flight buffer back (exactly one of them sees that moment),
     * or from a later close() when an I/O operation kept the memory then.
     *
     * @return null when the memory is freed (now or before), else why it could not be
     */
    private IllegalStateException freeMemory() {
        POOLS.compareAndSet(id, this, null);
        for (;;) {
            int m = memory.get();
            if (m == MEMORY_FREED) {
                return null;
            }
            if (m == MEMORY_LIVE && memory.compareAndSet(MEMORY_LIVE, MEMORY_FREEING)) {
                break;
            }
            Thread.onSpinWait(); // another thread is closing the arena: a handshake, short
        }
        try {
            slabArena.close();
            memory.set(MEMORY_FREED);
            return null;
        } catch (IllegalStateException acquired) {
            // The JDK's "Session is acquired by N clients": a channel operation (or another
            // holder of the segment's session) is using a buffer. Nothing was freed.
            memory.set(MEMORY_LIVE);
            return new IllegalStateException("pool memory is in use by an I/O operation on one of its buffers"
                    + " (a channel read or write on segment().asByteBuffer() running on another thread): slabBytes="
                    + slabBytesAllocated.get() + "; the pool is closed and keeps its memory until close() is called"
                    + " again after that operation has ended", acquired);
        }
    }

    /**
     * One buffer fewer in libzmq's hands, or a copying send from the pool's memory over; the last
     * one of a closed pool frees its memory.
     */
    void endInFlight() {
        if (inFlight.decrementAndGet() == CLOSED_BIT) {
            IllegalStateException busy = freeMemory();
            if (busy != null) {
                LOG.log(System.Logger.Level.WARNING, "the last buffer libzmq held came back, but the closed pool's"
                        + " memory could not be freed yet", busy);
            }
        }
    }

    /**
     * True after {@link #close()}.
     *
     * @return whether close has begun
     */
    public boolean isClosed() {
        return closed;
    }

    // ---- package-private: used by ZmqSocket ----

    /**
     * RENTED -> IN_FLIGHT just before zmq_msg_init_data. Throws, changing nothing, when the caller
     * does not own the buffer or the pool is closed.
     */
    void markInFlight(PooledBuffer b) {
        if (!b.casState(PooledBuffer.RENTED, PooledBuffer.IN_FLIGHT)) {
            // Not the caller's (any more): say so even if another thread has just changed it back.
            throw PooledBuffer.notOwned(b.state());
        }
        try {
            acquireForSend(b);
        } catch (IllegalStateException closed) {
            b.setState(PooledBuffer.RENTED); // still the caller's: nothing was handed over
            throw closed;
        }
    }

    /**
     * Counts a zero-copy send that is about to let libzmq read {@code b}'s memory, so that
     * {@link #close()} keeps the slabs; fails when close has begun. The free callback (or a reclaim)
     * undoes it.
     */
    void acquireForSend(PooledBuffer b) {
        for (;;) {
            long v = inFlight.get();
            if ((v & CLOSED_BIT) != 0) {
                throw closedForSend(b);
            }
            if (inFlight.compareAndSet(v, v + 1)) {
                return;
            }
        }
    }

    static IllegalStateException closedForSend(PooledBuffer b) {
        return new IllegalStateException("buffer pool is closed: cannot send its buffer, capacity=" + b.capacity
                + " (close the pool only after the context and the senders that use it)");
    }

    /** A zero-copy send failed: the caller keeps the buffer once zmq_msg_close has run the callback. */
    void beginReclaim(PooledBuffer b) {
        b.casState(PooledBuffer.IN_FLIGHT, PooledBuffer.RECLAIMING);
    }

    /** zmq_msg_init_data failed, so no callback will come: the caller owns the buffer again. */
    void reclaimWithoutCallback(PooledBuffer b) {
        if (b.casState(PooledBuffer.RECLAIMING, PooledBuffer.RENTED)) {
            endInFlight();
        }
    }

    /** Process-wide count of free callbacks for a buffer libzmq did not hold (see {@link Stats#strayCallbacks()}). */
    static long strayCallbacks() {
        return STRAY_CALLBACKS.get();
    }

    /** Process-wide count of throwables caught in the free callback (see {@link Stats#callbackErrors()}). */
    static long callbackErrors() {
        return CALLBACK_ERRORS.get();
    }

    /** release() found the buffer not rented: counted only, the release itself is a no-op. */
    void countDoubleRelease() {
        doubleReleases.incrementAndGet();
    }

    /**
     * The application released {@code b} (already marked free) on this thread: into the thread's
     * cache when its class has one and there is room, else as {@link #recycle}.
     */
    void released(PooledBuffer b) {
        ThreadCache tc = cache();
        if (tc == null) {
            recycle(b);
            return;
        }
        int c = b.sizeClass;
        b.rentSite = null;
        if (c < 0 || c >= cachedClasses || !tc.push(b)) {
            share(b);
        }
        tc.countReturn();
    }

    /** A slot became free (libzmq's callback, or a release without a thread cache): shared, counted here. */
    void recycle(PooledBuffer b) {
        b.rentSite = null;
        share(b);
        returned.incrementAndGet();
    }

    /** Back on its class's shared stack, or, if unpooled, dropped and its memory freed. */
    private void share(PooledBuffer b) {
        if ((b.hint & UNPOOLED_BIT) != 0) {
            unpooled.remove(b.hint);
            if (b.unpooledMemory != null) {
                freeUnpooled(b);
            }
        } else {
            classes[b.sizeClass].push(b);
        }
    }

    /**
     * Frees a returned unpooled buffer's memory now, where until 2026-11-29 the garbage collector
     * freed it at some later collection (see {@link UnpooledMemory}). Never throws: it may run in
     * the free callback. A running I/O operation or downcall on another thread that holds the
     * buffer's segment keeps the memory (the JDK will not close its arena under it): that is logged,
     * and the memory is freed once nothing reaches it.
     */
    private static void freeUnpooled(PooledBuffer b) {
        IllegalStateException busy = b.unpooledMemory.free();
        if (busy != null) {
            LOG.log(System.Logger.Level.WARNING, "an unpooled buffer came back while an I/O operation or a native"
                    + " call on another thread still used its memory (a channel read or write on segment().asByteBuffer(),"
                    + " say): capacity=" + b.capacity + "; its memory is freed once nothing reaches it any more,"
                    + " not now", busy);
        }
    }

    // ---- thread caches ----

    /** This thread's cache, made on first use; null on virtual threads, which come and go too often to cache for. */
    private ThreadCache cache() {
        Thread t = Thread.currentThread();
        ThreadCache first = firstCache;
        if (first != null && first.owner == t) {
            return first;
        }
        ThreadCache tc = threadCache.get();
        if (tc != null) {
            return tc;
        }
        if (t.isVirtual()) {
            return null;
        }
        tc = new ThreadCache(t, cachedClasses);
        // Retire the caches of ended threads here too, not only when a shared stack runs dry:
        // a thread that rents only classes sent zero-copy (never cached) leaves an empty cache,
        // and with stacks that never run dry each such thread stayed in the list, its Thread
        // object reachable, for as long as the pool lived. Once per new thread, off the hot path.
        reclaimDeadCaches();
        synchronized (caches) {
            caches.add(tc);
        }
        threadCache.set(tc);
        if (firstCache == null) {
            firstCache = tc;
        }
        return tc;
    }

    private void countHit(ThreadCache tc) {
        if (tc != null) {
            tc.countHit();
        } else {
            hits.incrementAndGet();
        }
    }

    private void countMiss(ThreadCache tc) {
        if (tc != null) {
            tc.countMiss();
        } else {
            misses.incrementAndGet();
        }
    }

    /**
     * Moves the buffers cached by threads that have ended back onto the shared stacks and folds
     * their counters into the pool's. Runs when a shared stack is empty, before a new slot is
     * carved, and when a thread makes its cache. A thread that has ended touches its cache no
     * more, and {@code isAlive() == false} makes everything it did visible here.
     *
     * @return whether any buffer came back
     */
    private boolean reclaimDeadCaches() {
        boolean any = false;
        synchronized (caches) {
            for (int i = caches.size() - 1; i >= 0; i--) {
                ThreadCache tc = caches.get(i);
                if (tc.owner.isAlive()) {
                    continue;
                }
                if (firstCache == tc) {
                    firstCache = null; // not to keep an ended thread reachable
                }
                any |= tc.drainTo(classes);
                retiredHits += tc.hits();
                retiredMisses += tc.misses();
                retiredReturns += tc.returns();
                caches.set(i, caches.get(caches.size() - 1));
                caches.remove(caches.size() - 1);
            }
        }
        return any;
    }

    /** Buffers in thread caches right now (for tests; racy while their threads run). */
    int cachedBuffers() {
        synchronized (caches) {
            int n = 0;
            for (ThreadCache tc : caches) {
                n += tc.size();
            }
            return n;
        }
    }

    /**
     * One platform thread's free buffers and counters. Only the owner writes to it while it lives;
     * the counters are published with release stores for {@link #outstanding()} and {@link #stats()},
     * which read them with acquire loads.
     */
    private static final class ThreadCache {
        private static final VarHandle HITS;
        private static final VarHandle MISSES;
        private static final VarHandle RETURNS;

        static {
            try {
                var l = MethodHandles.lookup();
                HITS = l.findVarHandle(ThreadCache.class, "hits", long.class);
                MISSES = l.findVarHandle(ThreadCache.class, "misses", long.class);
                RETURNS = l.findVarHandle(ThreadCache.class, "returns", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final Thread owner;
        /**
         * Per class: a stack of up to THREAD_CACHE_SLOTS free slot indices, and its depth. Indices,
         * not the buffers: a buffer references its pool, and a ThreadLocal value that reaches the
         * pool (whose field is the ThreadLocal key) would keep a closed pool alive for as long as
         * this thread lives.
         */
        private final int[][] free;
        private final int[] depth;
        @SuppressWarnings("unused") private long hits;
        @SuppressWarnings("unused") private long misses;
        @SuppressWarnings("unused") private long returns;

        ThreadCache(Thread owner, int classes) {
            this.owner = owner;
            this.free = new int[classes][THREAD_CACHE_SLOTS];
            this.depth = new int[classes];
        }

        PooledBuffer pop(int c, SizeClass[] classes) {
            int d = depth[c];
            if (d == 0) {
                return null;
            }
            depth[c] = --d;
            return classes[c].slots[free[c][d]];
        }

        boolean push(PooledBuffer b) {
            int c = b.sizeClass;
            int d = depth[c];
            if (d == THREAD_CACHE_SLOTS) {
                return false;
            }
            free[c][d] = b.slot;
            depth[c] = d + 1;
            return true;
        }

        /** Only once the owner has ended. */
        boolean drainTo(SizeClass[] classes) {
            boolean any = false;
            for (int c = 0; c < depth.length; c++) {
                PooledBuffer b;
                while ((b = pop(c, classes)) != null) {
                    classes[c].push(b);
                    any = true;
                }
            }
            return any;
        }

        int size() {
            int n = 0;
            for (int d : depth) {
                n += d;
            }
            return n;
        }

        void countHit() {
            HITS.setRelease(this, (long) HITS.get(this) + 1);
        }

        void countMiss() {
            MISSES.setRelease(this, (long) MISSES.get(this) + 1);
        }

        void countReturn() {
            RETURNS.setRelease(this, (long) RETURNS.get(this) + 1);
        }

        long hits() {
            return (long) HITS.getAcquire(this);
        }

        long misses() {
            return (long) MISSES.getAcquire(this);
        }

        long returns() {
            return (long) RETURNS.getAcquire(this);
        }
    }

    // ---- the free callback ----

    /** Runs on whatever thread libzmq drops the last reference on. Never throws, never blocks. */
    private static void freeCallback(long data, long hint) {
        try {
            NativeBufferPool pool = POOLS.get((int) (hint >>> ID_SHIFT) & (MAX_POOLS - 1));
            PooledBuffer b = pool == null ? null : pool.resolve(hint);
            if (b == null) {
                STRAY_CALLBACKS.incrementAndGet();
                return;
            }
            pool.returnedByLibzmq(b);
        } catch (Throwable t) {
            CALLBACK_ERRORS.incrementAndGet();
        }
    }

    private void returnedByLibzmq(PooledBuffer b) {
        for (;;) {
            int s = b.state();
            if (s == PooledBuffer.IN_FLIGHT) {
                if (b.casState(PooledBuffer.IN_FLIGHT, PooledBuffer.FREE)) {
                    recycle(b);
                    endInFlight();
                    return;
                }
            } else if (s == PooledBuffer.RECLAIMING) {
                if (b.casState(PooledBuffer.RECLAIMING, PooledBuffer.RENTED)) {
                    endInFlight();
                    return;
                }
            } else {
                STRAY_CALLBACKS.incrementAndGet();
                return;
            }
        }
    }

    private PooledBuffer resolve(long hint) {
        if ((hint & UNPOOLED_BIT) != 0) {
            return unpooled.get(hint);
        }
        int c = (int) ((hint >>> CLASS_SHIFT) & 0x3FFF);
        int slot = (int) hint;
        return c < classes.length && slot >= 0 && slot < classes[c].slots.length ? classes[c].slots[slot] : null;
    }

    private int classIndex(long n) {
        if (n <= minBufferBytes) {
            return 0;
        }
        int bits = 64 - Long.numberOfLeadingZeros(n - 1); // ceil(log2(n))
        return bits - Long.numberOfTrailingZeros(minBufferBytes);
    }

    /**
     * From this capacity on an unpooled buffer's memory is freed when it comes back
     * ({@link UnpooledMemory}); below it, it is the garbage collector's, as before 2026-11-29.
     * Freeing closes a shared arena, a handshake with every Java thread: nothing beside compressing
     * a megabyte, but a cost per message for the small rents of a class that ran dry in a burst,
     * whose memory a collection frees soon enough.
     */
    static final long FREED_ON_RETURN_BYTES = 1L << 20;

    private PooledBuffer newUnpooled(long capacity) {
        UnpooledMemory memory = null;
        MemorySegment small = null;
        try {
            if (capacity >= FREED_ON_RETURN_BYTES) {
                memory = UnpooledMemory.allocate(capacity); // before any counter moves
            } else {
                small = Arena.ofAuto().allocate(Math.max(capacity, 1), 64);
            }
        } catch (OutOfMemoryError e) {
            // Say what was asked for: near Long.MAX_VALUE the JDK's aligned size overflows and its
            // error has no message at all.
            throw allocationFailed("cannot allocate an unpooled buffer: minCapacityBytes=" + capacity, e);
        }
        long hint = ((long) id << ID_SHIFT) | UNPOOLED_BIT | (unpooledSeq.incrementAndGet() & (UNPOOLED_BIT - 1));
        PooledBuffer b = new PooledBuffer(this, hint, -1, -1, Math.max(capacity, 1));
        b.unpooledMemory = memory;
        b.segment = memory != null ? memory.segment : small;
        b.address = b.segment.address();
        unpooled.put(hint, b);
        return b;
    }

    /** {@code e} again, with a message that says what was being allocated (the JDK's own, if any, in brackets). */
    private static OutOfMemoryError allocationFailed(String what, OutOfMemoryError e) {
        OutOfMemoryError named = new OutOfMemoryError(what + (e.getMessage() != null ? " (" + e.getMessage() + ")" : ""));
        named.initCause(e);
        return named;
    }

    private static final String POOL_CLOSED = "pool is closed";

    /**
     * A new slab of the pool's arena for the class of {@code bufferBytes}. A close that came after
     * the caller's check of {@link #closed} has closed the arena: that is said as {@link #rent} and
     * {@link #reserve} say it for a closed pool, where the JDK's own words, "Already closed", named
     * neither the pool nor the buffer. Memory the JDK cannot allocate is named the same way: its
     * "Unable to allocate N bytes" named neither the class nor the setting behind it (a
     * {@code maxBufferBytes} of 2^62 made every rent of that class fail so).
     */
    private MemorySegment carveSlab(long bufferBytes, long bytes) {
        try {
            return slabArena.allocate(bytes, 64);
        } catch (IllegalStateException arenaClosed) {
            throw new IllegalStateException(POOL_CLOSED + " (it closed while this call was carving a slab: slabBytes="
                    + bytes + ")", arenaClosed);
        } catch (OutOfMemoryError e) {
            throw allocationFailed("cannot allocate a slab of the pool's size class: bufferBytes=" + bufferBytes
                    + ", slabBytes=" + bytes + ", buffersPerSlab=" + bytes / bufferBytes + " (free native memory, or lower"
                    + " the builder's maxBufferBytes, above which rents are unpooled"
                    + (bytes > bufferBytes ? ", or its slabBytes" : "") + ")", e);
        }
    }

    private static int register(NativeBufferPool pool) {
        for (int i = 1; i < MAX_POOLS; i++) {
            if (POOLS.get(i) == null && POOLS.compareAndSet(i, null, pool)) {
                return i;
            }
        }
        throw new IllegalStateException("too many open buffer pools: max=" + (MAX_POOLS - 1));
    }

    /** One size class: its slots, a tagged lock-free free stack, and lazily carved slabs. */
    private final class SizeClass {
        final int index;
        final long bufferBytes;
        final PooledBuffer[] slots;
        final int perSlab;
        /** (tag << 32) | (slot + 1); low half 0 = empty. The tag changes on every push and pop (ABA). */
        final AtomicLong head = new AtomicLong();
        final AtomicInteger created = new AtomicInteger();

        SizeClass(int index, long bufferBytes, int maxBuffers) {
            this.index = index;
            this.bufferBytes = bufferBytes;
            this.slots = new PooledBuffer[maxBuffers];
            this.perSlab = (int) Math.max(1, Math.min(maxBuffers, slabBytes / bufferBytes));
        }

        PooledBuffer pop() {
            for (;;) {
                long h = head.get();
                int top = (int) h;
                if (top == 0) {
                    return null;
                }
                PooledBuffer b = slots[top - 1];
                long next = (((h >>> 32) + 1) << 32) | (b.nextFree & 0xFFFFFFFFL);
                if (head.compareAndSet(h, next)) {
                    return b;
                }
            }
        }

        void push(PooledBuffer b) {
            for (;;) {
                long h = head.get();
                b.nextFree = (int) h;
                long next = (((h >>> 32) + 1) << 32) | ((b.slot + 1) & 0xFFFFFFFFL);
                if (head.compareAndSet(h, next)) {
                    return;
                }
            }
        }

        /** A never-used slot, carving a new slab when needed; null when the class is full. */
        PooledBuffer create() {
            synchronized (this) {
                int s = created.get();
                if (s >= slots.length) {
                    return null;
                }
                MemorySegment slab;
                if (s % perSlab == 0) {
                    slab = carveSlab(bufferBytes, bufferBytes * perSlab);
                    slabBytesAllocated.addAndGet(slab.byteSize());
                    currentSlab = slab;
                } else {
                    slab = currentSlab;
                }
                long hint = ((long) id << ID_SHIFT) | ((long) index << CLASS_SHIFT) | s;
                PooledBuffer b = new PooledBuffer(NativeBufferPool.this, hint, index, s, bufferBytes);
                b.segment = slab.asSlice((s % perSlab) * bufferBytes, bufferBytes);
                b.address = b.segment.address();
                slots[s] = b;
                created.set(s + 1);
                return b;
            }
        }

        private MemorySegment currentSlab;
    }

    /** Settings for a {@link NativeBufferPool}. */
    public static final class Builder {
        private long minBufferBytes = 256;
        private long maxBufferBytes = 4L << 20;
        /** 0: the per-class default ({@link #defaultMaxBuffers}). */
        private int maxBuffersPerClass;
        private long slabBytes = 1L << 20;
        private long zeroCopyThresholdBytes = DEFAULT_ZERO_COPY_THRESHOLD_BYTES;
        private boolean zeroCopyThresholdSet;
        /** -1: not set (then it follows a set zeroCopyThresholdBytes, or its own default). */
        private long inprocZeroCopyThresholdBytes = -1;
        private LeakDetection leakDetection = defaultLeakDetection();

        private Builder() {
        }

        /**
         * Smallest size class (a power of two, default 256).
         *
         * @param bytes the smallest buffer size in bytes, a power of two
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is not a power of two
         */
        public Builder minBufferBytes(long bytes) {
            this.minBufferBytes = powerOfTwo("minBufferBytes", bytes);
            return this;
        }

        /**
         * Largest size class (a power of two, default 4 MiB); larger rents are unpooled.
         *
         * @param bytes the largest buffer size in bytes, a power of two, not below
         *     {@link #minBufferBytes(long)}
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is not a power of two
         */
        public Builder maxBufferBytes(long bytes) {
            this.maxBufferBytes = powerOfTwo("maxBufferBytes", bytes);
            return this;
        }

        /**
         * Most buffers every class keeps; beyond that rents fall back to unpooled buffers (which
         * allocate). Default: 4096 per class up to 128 KiB buffers, then 512 MiB worth per class
         * and at least 256, enough to fill libzmq's default high-water marks without a miss.
         *
         * @param count the slots of every class, at least 1 (the same for all classes); each class's
         *     table of slots is allocated at build, a reference per slot, though a slot's memory is
         *     carved only when it is first used
         * @return this builder
         * @throws IllegalArgumentException when {@code count} is below 1
         */
        public Builder maxBuffersPerClass(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("maxBuffersPerClass must be positive: maxBuffersPerClass=" + count);
            }
            this.maxBuffersPerClass = count;
            return this;
        }

        /**
         * Bytes carved at once for a class (default 1 MiB; a class of larger buffers carves one at
         * a time).
         *
         * @param bytes the size of a slab, at least 1; a slab holds at least one buffer
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is below 1
         */
        public Builder slabBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("slabBytes must be positive: slabBytes=" + bytes);
            }
            this.slabBytes = bytes;
            return this;
        }

        /**
         * Messages shorter than this are copied into a libzmq message; longer ones go zero-copy
         * (default {@value #DEFAULT_ZERO_COPY_THRESHOLD_BYTES}). Unless
         * {@link #inprocZeroCopyThresholdBytes} is set too, this also sets the threshold of
         * inproc-only sockets: one value then holds for every socket.
         *
         * @param bytes the threshold in bytes, 0 or more (0: every pooled send is zero-copy)
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is negative
         */
        public Builder zeroCopyThresholdBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("zeroCopyThresholdBytes must not be negative: zeroCopyThresholdBytes=" + bytes);
            }
            this.zeroCopyThresholdBytes = bytes;
            this.zeroCopyThresholdSet = true;
            return this;
        }

        /**
         * The threshold for sockets whose every endpoint is {@code inproc://} (default
         * {@value #DEFAULT_INPROC_ZERO_COPY_THRESHOLD_BYTES}, or the value given to
         * {@link #zeroCopyThresholdBytes} when only that one is set).
         *
         * @param bytes the threshold in bytes, 0 or more (0: every pooled send is zero-copy)
         * @return this builder
         * @throws IllegalArgumentException when {@code bytes} is negative
         */
        public Builder inprocZeroCopyThresholdBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("inprocZeroCopyThresholdBytes must not be negative: inprocZeroCopyThresholdBytes="
                        + bytes);
            }
            this.inprocZeroCopyThresholdBytes = bytes;
            return this;
        }

        /**
         * Overrides {@code -Dzmqzstd.leakDetection}.
         *
         * @param mode how many rent sites to record
         * @return this builder
         */
        public Builder leakDetection(LeakDetection mode) {
            this.leakDetection = java.util.Objects.requireNonNull(mode);
            return this;
        }

        /**
         * Makes the pool. No slab is carved yet: that happens on first use, or in
         * {@link NativeBufferPool#reserve}.
         *
         * @return a new open pool
         * @throws IllegalArgumentException when the largest size class is below the smallest
         * @throws IllegalStateException when 65,535 pools are live in this process already
         * @throws OutOfMemoryError when the slot tables ({@link #maxBuffersPerClass}) do not fit in
         *     the heap; the message names the setting, and the failed pool holds on to nothing
         */
        public NativeBufferPool build() {
            if (maxBufferBytes < minBufferBytes) {
                throw new IllegalArgumentException("maxBufferBytes below minBufferBytes: maxBufferBytes="
                        + maxBufferBytes + ", minBufferBytes=" + minBufferBytes);
            }
            return new NativeBufferPool(this);
        }

        private static long powerOfTwo(String name, long v) {
            if (v < 1 || Long.bitCount(v) != 1) {
                throw new IllegalArgumentException(name + " must be a power of two: " + name + "=" + v);
            }
            return v;
        }

        private static LeakDetection defaultLeakDetection() {
            String v = System.getProperty("zmqzstd.leakDetection", "disabled").trim().toUpperCase(Locale.ROOT);
            try {
                return LeakDetection.valueOf(v);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("zmqzstd.leakDetection must be disabled, sampled or strict: zmqzstd.leakDetection="
                        + v.toLowerCase(Locale.ROOT), e);
            }
        }
    }
}
