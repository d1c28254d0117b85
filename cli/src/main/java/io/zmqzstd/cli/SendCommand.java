package io.zmqzstd.cli;

import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.pipeline.CompressingSender;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ParallelCompressingSender;
import io.zmqzstd.transport.SocketType;
import io.zmqzstd.transport.ZmqContext;
import io.zmqzstd.transport.ZmqException;
import io.zmqzstd.transport.ZmqSocket;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * {@code send}: standard input, cut into messages, each compressed into one zstd frame and sent.
 * At the end of the input it waits (the socket's linger) until libzmq has handed every message
 * to the network.
 */
@Command(name = "send", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Read standard input, compress each message into one zstd frame and send it.",
                "By default every line (without its newline) is one message; --chunk and --whole send binary data.",
                "At the end of input, waits until every message has been handed to the network, then exits 0.",
                "",
                "PUSH, DEALER and PAIR block until a peer is connected (and at the high-water mark), so nothing is lost.",
                "PUB drops messages while no subscriber is connected: use --wait-subscribers N (or --delay).",
                "",
                "Peers: push to recv --type pull, pub to recv --type sub (through a proxy: its frontend, pipeline or pubsub),"
                        + " dealer to dealer, pair to pair. libzmq drops a connection between other types during its handshake,"
                        + " without an error: a --connect then warns once on stderr, and send waits as for an absent peer."},
        exitCodeListHeading = "%nExit codes:%n", exitCodeList = {ExitCodes.HELP_OK, ExitCodes.HELP_FAILURE,
                ExitCodes.HELP_USAGE, "3:--timeout fired: no peer took a message (or not enough subscribers) in time.",
                ExitCodes.HELP_INTERRUPTED})
final class SendCommand implements Callable<Integer> {

    /** Socket types that can send a stream, and the peers each takes (libzmq drops any other). */
    enum Type {
        push(SocketType.PUSH, "push sends only to pull (recv --type pull, or a proxy --type pipeline frontend)"),
        pub(SocketType.PUB, "pub sends only to sub (recv --type sub, or a proxy --type pubsub frontend)"),
        dealer(SocketType.DEALER, "dealer talks only to dealer or router (recv --type dealer)"),
        pair(SocketType.PAIR, "pair talks only to pair (recv --type pair)");

        final SocketType socketType;
        final String peers;

        Type(SocketType socketType, String peers) {
            this.socketType = socketType;
            this.peers = peers;
        }
    }

    /** How standard input is cut into messages: one of these at most (checked by {@link #validate()}). */
    static final class Framing {
        @Option(names = "--delimiter", paramLabel = "BYTE", converter = Values.Delimiter.class,
                description = "Messages end at this byte (default: newline). Escapes: \\n \\r \\t \\0 \\\\ \\xHH.")
        Values.Bytes delimiter;

        @Option(names = "--chunk", paramLabel = "BYTES", converter = Values.ByteSize.class,
                description = "Fixed-size binary messages of BYTES, 1 to 1G (e.g. 64K, 1M); the last may be shorter.")
        Long chunkBytes;

        @Option(names = "--whole", description = "All of standard input is one message.")
        boolean whole;
    }

    @Spec
    CommandSpec spec;

    @Mixin
    EndpointOptions endpoints;

    @Option(names = "--type", paramLabel = "TYPE", defaultValue = "push",
            description = "Socket type: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
    Type type;

    @Option(names = "--level", paramLabel = "N", defaultValue = "3",
            description = "zstd level, negative (fastest) to 22 (default ${DEFAULT-VALUE}).")
    int level;

    @Option(names = "--dict", paramLabel = "FILE",
            description = "Compress with this zstd dictionary (e.g. from 'train'); the receiver needs it too.")
    Path dictionary;

    @Option(names = "--raw-dict",
            description = "With --dict: accept a FILE that is not a zstd dictionary, as raw content: frames then carry no dictionary ID,"
                    + " and a checksum (as with --checksum).")
    boolean rawDictionary;

    @Option(names = "--no-dict-id",
            description = "With --dict: leave the dictionary ID out of every frame (4 bytes less, as zstd --no-dictID);"
                    + " the receiver then needs the file as --dict-for-no-id.")
    boolean noDictionaryId;

    @Option(names = "--checksum", description = "Add a content checksum to every frame.")
    boolean checksum;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "0",
            description = "Compress on N threads at once (0 to 256) and send in order, for large messages or high levels "
                    + "(default ${DEFAULT-VALUE}: compress on the sending thread).")
    int threads;

    @Option(names = "--topic", paramLabel = "T",
            description = "PUB only: send T as an uncompressed first part of every message (subscribers filter on it; default empty;"
                    + " at most 64K bytes, what recv takes).")
    String topic;

    // A mixin, not an exclusive @ArgGroup: picocli's group named a repeated option as
    // "expected only one match but got [--delimiter=BYTE | --chunk=BYTES | --whole]={--whole} and ...";
    // as plain options a repeat is "option '--whole' should be specified only once", and validate() names a conflict.
    @Mixin
    Framing framing;

    @Option(names = "--wait-subscribers", paramLabel = "N", defaultValue = "0",
            description = "PUB only: before sending, wait until N subscriptions to a prefix of --topic arrived, those that receive"
                    + " its messages (one per subscriber and such prefix; through a proxy, one per such prefix); unsubscriptions count back.")
    int waitSubscribers;

    @Option(names = "--delay", paramLabel = "DURATION", converter = Values.Time.class, defaultValue = "0ms",
            description = "Wait this long after bind/connect before the first message (e.g. 500ms).")
    Duration delay;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Values.Time.class, defaultValue = "forever",
            description = "Give up (exit 3) when no peer takes a message, or --wait-subscribers is not met, within DURATION"
                    + " (default ${DEFAULT-VALUE}). PUB never waits for a peer: with --type pub it needs --wait-subscribers.")
    Duration timeout;

    @Option(names = "--linger", paramLabel = "DURATION", converter = Values.Time.class, defaultValue = "forever",
            description = "At the end, wait at most this long for queued messages to reach the network (default ${DEFAULT-VALUE}: lose nothing).")
    Duration linger;

    @Mixin
    CurveOptions curve;

    @Mixin
    StatsOptions statsOptions;

    @Mixin
    EventOptions eventOptions;

    /** Standard input; a test may swap it. */
    InputStream stdin = new FileInputStream(FileDescriptor.in);

    /** The longest --whole input: the longest Java array; a test may lower it. */
    int wholeMaxBytes = MessageReader.MAX_ARRAY_BYTES;

    /** The longest message cut at a delimiter (a line): the longest Java array; a test may lower it. */
    int delimitedMaxBytes = MessageReader.MAX_ARRAY_BYTES;

    /** With --wait-subscribers: how often at most the XPUB's queued (un)subscriptions are drained; a test may lower it. */
    long drainIntervalNanos = SubscriptionDrain.DEFAULT_INTERVAL_NANOS;

    /** Given the socket once it is made; a test may set it to look at the socket while send waits for input. */
    Consumer<ZmqSocket> socketMade = s -> { };

    @Override
    public Integer call() throws IOException {
        validate();
        ClosedStandardInput.check(stdin); // before connecting: it would send the JVM's own file
        ZstdDictionary dict = dictionary == null ? null : loadDictionary(dictionary, rawDictionary);
        byte[] topicBytes = type == Type.pub ? (topic == null ? new byte[0] : topic.getBytes(StandardCharsets.UTF_8)) : null;
        // Linger 0 until every message is in libzmq, --linger only then: a run that ends otherwise (an
        // error, --timeout, a signal) does not wait for a peer that is not coming. Set here, not cut
        // after a failure, because a context shut down to wake a parallel sender's workers takes no
        // socket option any more (ETERM).
        ZmqContext context = ZmqContext.builder().defaultLinger(Duration.ZERO).build();
        ZmqSocket socket = null;
        PrintWriter err = spec.commandLine().getErr();
        EndpointOptions bound = endpoints; // closed after the context: removes the ipc socket files the binds made
        // Standard input through its channel: a signal wakes a read that waits, and what was read goes out
        WakeableInput wakeable = WakeableInput.of(stdin);
        InputStream input = wakeable == null ? stdin : wakeable;
        try (bound; context; Session session = new Session(spec.qualifiedName(), statsOptions, true, context, err)) {
            if (wakeable != null) {
                session.endInputOnSignal(wakeable::wake);
            }
            try {
                socket = context.socket(waitSubscribers > 0 ? SocketType.XPUB : type.socketType);
                socketMade.accept(socket);
                if (waitSubscribers > 0) {
                    // every subscriber's subscription, not only the first per prefix, and every unsubscription
                    // (ZMQ_XPUB_VERBOSE passes only the last per prefix), a leaving subscriber's included
                    socket.setIntOption(ZMQ_XPUB_VERBOSER, 1);
                }
                curve.apply(socket);
                // Queue nothing for a peer whose connection (or CURVE handshake) is not complete:
                // a send then blocks until one is, instead of filling a pipe to nowhere.
                socket.immediate(true);
                socket.sendTimeoutMs(Values.millis(timeout));
                // Closed before the linger: no thread is in a call on the socket any more (a parallel
                // sender's workers have stopped), and events during the linger would come too late.
                try (EventReporter reporter = eventOptions.start(socket, spec.qualifiedName(), null, curve.peers(type.peers),
                        endpoints.binds, err)) {
                    endpoints.attach(socket);
                    if (threads == 0) {
                        try (CompressingSender sender = CompressingSender.builder(socket).level(level).checksum(checksum)
                                .dictionary(dict).dictionaryIdInFrame(!noDictionaryId).build()) {
                            session.watch(sender::stats);
                            start(socket, topicBytes);
                            sendAll((r, t) -> t != null
                                    ? sender.sendEnvelope(t, ZmqSocket.SNDMORE) && sender.send(r.segment(), r.offset(), r.length(), 0)
                                    : sender.send(r.segment(), r.offset(), r.length(), 0), reader(input), topicBytes, session,
                                    subscriptionDrain(socket, null));
                        }
                    } else {
                        sendParallel(socket, dict, topicBytes, session, input);
                    }
                }
                // every message is in libzmq, and no other thread uses the socket; after a signal ended the
                // input, only as long as the shutdown hook waits
                socket.linger(session.interrupted() ? Session.lingerAfterSignal(linger) : linger);
                context.close(); // lingers: returns once every queued message is on the network
                if (session.interrupted()) {
                    session.finish();
                    return ExitCodes.INTERRUPTED;
                }
                return ExitCodes.OK;
            } catch (ZmqException e) {
                if (e.isContextTerminated() && session.interrupted()) {
                    session.finish();
                    return ExitCodes.INTERRUPTED;
                }
                throw new CliException(ExitCodes.FAILURE, e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ExitCodes.INTERRUPTED;
            }
        }
    }

    /** Waits for subscribers and the --delay, if asked: what comes between connecting and the first message. */
    private void start(ZmqSocket socket, byte[] topicBytes) throws InterruptedException {
        awaitSubscribers(socket, topicBytes);
        if (delay.toMillis() > 0) {
            Thread.sleep(delay);
        }
    }

    /**
     * --threads N: a {@link ParallelCompressingSender} of N workers. Its workers send; a send that
     * --timeout ends fails the sender, which the next send, or close at the end, reports.
     */
    private void sendParallel(ZmqSocket socket, ZstdDictionary dict, byte[] topicBytes, Session session, InputStream input)
            throws IOException, InterruptedException {
        ParallelCompressingSender sender = ParallelCompressingSender.builder(socket).workers(threads)
                .failOnSendTimeout(true).level(level).checksum(checksum).dictionary(dict)
                .dictionaryIdInFrame(!noDictionaryId).build();
        session.watch(sender::stats);
        try {
            start(socket, topicBytes);
            sendAll((r, t) -> t != null
                    ? sender.publish(t, r.segment(), r.offset(), r.length(), 0)
                    : sender.send(r.segment(), r.offset(), r.length(), 0), reader(input), topicBytes, session,
                    subscriptionDrain(socket, sender));
            sender.close(); // waits until every message is in libzmq
        } catch (IllegalStateException e) {
            throw parallelFailure(e, sender);
        } catch (IOException | RuntimeException e) {
            // The run ends for another reason (standard input failed, --whole past its limit) with
            // messages read ahead: a worker may be blocked for a peer for ever, and close() would
            // wait for it. Wake it (ETERM): what is not yet sent is dropped and counted, as after --timeout.
            if (sender.inFlight() > 0) {
                socket.context().shutdown();
            }
            throw e;
        } finally {
            try {
                sender.close(); // after a failure: stops the workers (idempotent)
            } catch (IllegalStateException alreadyReported) {
                // the failure that brought us here
            }
        }
    }

    /** A parallel sender's failure as the command reports it: the socket's error, --timeout, or as it is. */
    private RuntimeException parallelFailure(IllegalStateException e, ParallelCompressingSender sender) {
        if (e.getCause() instanceof ZmqException z) {
            return z; // as a send on this thread would have thrown it (ETERM after a signal)
        }
        if (e.getCause() instanceof TimeoutException) {
            long sent = sender.stats().messages(); // in order: every message before the refused one went out
            return timeout(sent + 1, sent);
        }
        return e;
    }

    private CliException timeout(long message, long sent) {
        return new CliException(ExitCodes.TIMEOUT, "timeout: no peer took message=" + message + " within "
                + Values.show(timeout) + " (sent=" + sent + ")");
    }

    /** Hands one message (and the topic, for PUB) to a sender; false when --timeout ended the send. */
    @FunctionalInterface
    private interface Send {
        boolean send(MessageReader reader, byte[] topic);
    }

    /**
     * With --wait-subscribers, what reads away the (un)subscriptions the XPUB queues while send goes
     * on (libzmq keeps them all until read); null without it (a PUB queues none).
     */
    private SubscriptionDrain subscriptionDrain(ZmqSocket socket, ParallelCompressingSender parallel) {
        return waitSubscribers > 0 ? new SubscriptionDrain(socket, parallel, drainIntervalNanos, SubscriptionDrain.FORCE_AFTER_NANOS) : null;
    }

    private void sendAll(Send sender, MessageReader reader, byte[] topicBytes, Session session, SubscriptionDrain drain)
            throws IOException {
        long n = 0;
        while (next(reader, session)) {
            n++;
            if (drain != null) {
                drain.beforeMessage(reader); // at most every 100 ms, and only after a read of the input
            }
            boolean sent;
            try {
                sent = sender.send(reader, topicBytes);
            } catch (RuntimeException e) {
                if (!session.interrupted()) { // a signal ends the run; it is not an error of this message
                    session.messageFailed();
                }
                throw e;
            }
            if (!sent) {
                session.messageFailed();
                throw timeout(n, n - 1);
            }
            session.messageDone();
        }
    }

    /**
     * {@code ZMQ_XPUB_VERBOSER} (zmq.h, libzmq 4.2 and later): as {@code ZMQ_XPUB_VERBOSE}, and every
     * unsubscription is passed too, also each of a subscriber that disconnects.
     */
    private static final int ZMQ_XPUB_VERBOSER = 78;

    /**
     * XPUB: each subscription arrives as a message {@code 0x01 + prefix}, each unsubscription as
     * {@code 0x00 + prefix}. Only prefixes of the topic sent count: a subscriber of another topic
     * would receive none of the messages. An unsubscription takes back what its subscription counted.
     */
    private void awaitSubscribers(ZmqSocket socket, byte[] topicBytes) {
        if (waitSubscribers == 0) {
            return;
        }
        // one deadline for the whole wait: a receive timeout alone started again at every subscription
        long deadlineNanos = System.nanoTime() + timeout.toNanos();
        socket.receiveTimeoutMs(Values.millis(timeout));
        int matching = 0;
        int others = 0;
        while (matching < waitSubscribers) {
            if (!timeout.isNegative()) {
                long leftMs = Math.ceilDiv(deadlineNanos - System.nanoTime(), 1_000_000L);
                if (leftMs <= 0) {
                    throw subscribersTimeout(matching, others);
                }
                socket.receiveTimeoutMs((int) Math.min(Integer.MAX_VALUE, leftMs));
            }
            byte[] m = socket.receiveBytes(0);
            if (m == null) {
                throw subscribersTimeout(matching, others);
            }
            if (m.length == 0 || m[0] > 1) {
                continue; // not a (un)subscription
            }
            int change = m[0] == 1 ? 1 : -1;
            if (isPrefixOf(m, topicBytes)) {
                matching = Math.max(0, matching + change);
            } else {
                others = Math.max(0, others + change);
            }
        }
    }

    /** Whether the prefix of the (un)subscription {@code m} (after its first byte) starts {@code topic}: SUB's filter. */
    private static boolean isPrefixOf(byte[] m, byte[] topic) {
        int length = m.length - 1;
        return length <= topic.length && Arrays.equals(m, 1, m.length, topic, 0, length);
    }

    private CliException subscribersTimeout(int matching, int others) {
        return new CliException(ExitCodes.TIMEOUT, "timeout: subscriptions=" + matching + " of " + waitSubscribers
                + " within " + Values.show(timeout) + " (counting those to a prefix of topic=" + shownTopic()
                + ", which receive its messages; others=" + others + ")");
    }

    /** The --topic for a line: quoted, and a long one cut (it may have 64 KiB). */
    private String shownTopic() {
        String t = topic == null ? "" : topic;
        int characters = t.codePointCount(0, t.length());
        return characters <= 80 ? "'" + t + "'"
                : "'" + t.substring(0, t.offsetByCodePoints(0, 80)) + "…' (" + characters + " characters)";
    }

    /**
     * The next message, or false at the end; a message too long to hold, or standard input that
     * cannot be read, ends the run in one line. A read that a signal ended (the shutdown hook closed
     * standard input's channel) ends the input instead: what was read and not yet sent (an
     * unfinished line or chunk) is the last message, as at the end of input.
     */
    private boolean next(MessageReader reader, Session session) throws IOException {
        try {
            return reader.next();
        } catch (MessageReader.TooLongException e) {
            if (e.heap()) {
                throw new CliException(ExitCodes.FAILURE, e.getMessage() + "; give java more heap (java -Xmx...) or cut the input"
                        + " into smaller messages (--chunk BYTES)", e);
            }
            if (framing.whole) {
                throw wholeTooLong("standard input is longer");
            }
            // no delimiter within the largest array: the messages before it went out (with --threads, those read
            // ahead are dropped, as after a failed read), this one cannot
            throw new CliException(ExitCodes.FAILURE, "message longer than the limit: limit=" + e.limitBytes()
                    + " bytes (one message is one Java array), no " + Values.delimiterName(delimiter()) + " within it; send such input"
                    + " in messages of a fixed size with --chunk BYTES (at most 1G each)", e);
        } catch (IOException e) {
            if (session.interrupted()) {
                // woken by the shutdown hook (AsynchronousCloseException), or the channel it closed: the end
                reader.endInput();
                return reader.next();
            }
            throw Main.cannotReadStandardInput(e);
        }
    }

    /** --whole past its limit: a usage error, as the remedy is another option; nothing was sent. */
    private ParameterException wholeTooLong(String what) {
        return usage("--whole takes at most " + wholeMaxBytes + " bytes (one message is one Java array): " + what
                + "; cut it into messages with --chunk BYTES (at most 1G each)");
    }

    private MessageReader reader(InputStream input) {
        if (framing.whole) {
            return MessageReader.whole(input, wholeMaxBytes);
        }
        if (framing.chunkBytes != null) {
            return MessageReader.chunked(input, framing.chunkBytes.intValue());
        }
        return MessageReader.delimited(input, delimiter(), delimitedMaxBytes);
    }

    private byte delimiter() {
        return framing.delimiter == null ? (byte) '\n' : framing.delimiter.value()[0];
    }


    private void validate() {
        endpoints.requireOne();
        if (topic != null && type != Type.pub) {
            throw usage("--topic needs --type pub: type=" + type);
        }
        if (topic != null && topic.getBytes(StandardCharsets.UTF_8).length > DecompressingReceiver.DEFAULT_MAX_ENVELOPE_SIZE) {
            // every message would be sent (exit 0) and refused by every recv as TOO_LARGE
            throw usage("--topic longer than recv takes: bytes=" + topic.getBytes(StandardCharsets.UTF_8).length + ", limit="
                    + DecompressingReceiver.DEFAULT_MAX_ENVELOPE_SIZE + " (recv refuses a message with a longer topic as TOO_LARGE)");
        }
        if (Main.given(spec, "--wait-subscribers") && type != Type.pub) { // given at all, even as 0: it is for PUB only
            throw usage("--wait-subscribers needs --type pub: type=" + type);
        }
        if (waitSubscribers < 0) {
            throw usage("--wait-subscribers must not be negative: N=" + waitSubscribers);
        }
        if (type == Type.pub && waitSubscribers == 0 && Main.given(spec, "--timeout")) {
            // PUB (lossy XPUB underneath) never refuses a send: libzmq drops what no subscriber takes. Given as 0,
            // "needs --wait-subscribers N" read as if the option had been overlooked
            String given = Main.given(spec, "--wait-subscribers") ? " of 1 or more (--wait-subscribers 0 waits for nothing)" : "";
            throw usage("--timeout with --type pub needs --wait-subscribers N" + given + ": PUB never waits for a peer (libzmq"
                    + " drops what no subscriber takes), so only the wait for subscribers can time out");
        }
        if (rawDictionary && dictionary == null) {
            throw usage(RAW_DICT_WITHOUT_DICT);
        }
        if (noDictionaryId && dictionary == null) {
            throw usage("--no-dict-id needs --dict FILE: without a dictionary frames carry no dictionary ID to leave out");
        }
        if (threads < 0 || threads > 256) {
            throw usage("--threads out of range: N=" + threads + ", range=0..256");
        }
        if (level < -131072 || level > 22) {
            throw usage("--level out of range: level=" + level + ", range=-131072..22");
        }
        List<String> framings = new ArrayList<>();
        if (framing.delimiter != null) {
            framings.add("--delimiter");
        }
        if (framing.chunkBytes != null) {
            framings.add("--chunk");
        }
        if (framing.whole) {
            framings.add("--whole");
        }
        if (framings.size() > 1) {
            throw usage(framings.get(0) + " and " + framings.get(1) + " exclude each other: give one of --delimiter, --chunk, --whole");
        }
        if (framing.delimiter != null && framing.delimiter.value().length != 1) {
            throw usage("--delimiter must be exactly one byte: bytes=" + framing.delimiter.value().length);
        }
        if (framing.chunkBytes != null && (framing.chunkBytes <= 0 || framing.chunkBytes > (1L << 30))) {
            throw usage("--chunk out of range: bytes=" + framing.chunkBytes + ", range=1..1G");
        }
        if (framing.whole) {
            long size = MessageReader.knownRemainingBytes(stdin);
            if (size > wholeMaxBytes) {
                // a file: refused before connecting, and before reading gigabytes into the heap
                throw wholeTooLong("standard input has " + size + " bytes");
            }
        }
        if (timeout.isZero()) {
            throw usage(Values.ZERO_TIMEOUT);
        }
        if (delay.isNegative()) {
            // "forever" parses for --timeout; as a delay it would mean never sending (it was taken as 0)
            throw usage("--delay must be a finite duration: delay=" + Values.show(delay));
        }
    }

    /** --raw-dict reads nothing by itself (send and recv): the line that refuses it. */
    static final String RAW_DICT_WITHOUT_DICT = "--raw-dict needs --dict FILE: it says how to read a --dict file, and none was given";

    /**
     * The largest --dict file, and the largest dictionary train makes: zstd's own limit (its CLI's
     * {@code DICTSIZE_MAX}). A larger file is a wrong file (an image, a log, {@code /dev/zero}),
     * which read whole would fill the heap.
     */
    static final int MAX_DICTIONARY_BYTES = 32 << 20;

    /**
     * Reads a --dict file, at most {@link #MAX_DICTIONARY_BYTES} of it. A file with the zstd
     * dictionary magic that is cut short or damaged before its content is refused by
     * {@link ZstdDictionary#of}, which says which. A file without the magic is refused unless
     * {@code raw} (--raw-dict): zstd would take it as raw content, whose frames carry no dictionary
     * ID, so a receiver without it reports them as corrupt instead of naming the missing dictionary.
     */
    static ZstdDictionary loadDictionary(Path file, boolean raw) {
        return loadDictionary(file, raw, "or pass --raw-dict to use the file as raw content, whose frames carry no"
                + " dictionary ID");
    }

    /**
     * {@link #loadDictionary(Path, boolean)}, {@code otherwise} ending the refusal of a file
     * without the magic: the way out for the option that named the file (--raw-dict reads only
     * --dict files).
     */
    static ZstdDictionary loadDictionary(Path file, boolean raw, String otherwise) {
        ZstdDictionary dict;
        try (InputStream in = Files.newInputStream(file)) {
            // not Files.readAllBytes: a device or FIFO has no size, and a huge file is not a dictionary
            byte[] bytes = in.readNBytes(MAX_DICTIONARY_BYTES + 1);
            if (bytes.length > MAX_DICTIONARY_BYTES) {
                throw cannotReadDictionary(file, "larger than a zstd dictionary may be: limit=" + MAX_DICTIONARY_BYTES
                        + " bytes (zstd's own limit; is it the right file?)", null);
            }
            dict = ZstdDictionary.of(bytes);
        } catch (IOException | IllegalArgumentException e) {
            throw cannotReadDictionary(file, Main.describe(e), e);
        }
        if (!raw && !dict.isStructured()) {
            throw new CliException(ExitCodes.FAILURE, "not a zstd dictionary: file=" + file
                    + " (it does not start with the dictionary magic 37 A4 30 EC; make one with 'train' or zstd --train, "
                    + otherwise + ")");
        }
        return dict;
    }

    private static CliException cannotReadDictionary(Path file, String error, Exception cause) {
        return new CliException(ExitCodes.FAILURE, "cannot read dictionary: file=" + file + ", error=" + error, cause);
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
