package io.zmqzstd.cli;

import io.zmqzstd.codec.ZstdDictionary;
import io.zmqzstd.pipeline.BadFrameReason;
import io.zmqzstd.pipeline.DecompressingReceiver;
import io.zmqzstd.pipeline.ReceivedMessage;
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
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code recv}: receives messages, decompresses each zstd frame and writes the payload to
 * standard output, followed by a delimiter (a newline by default). Bad frames are reported on
 * stderr, one line each, and skipped.
 */
@Command(name = "recv", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "Receive messages, decompress them and write each payload to standard output, followed by a newline.",
                "A bad frame (not zstd, corrupt, too large, unknown dictionary, ...) is reported as one line on"
                        + " stderr naming the reason; the stream continues and it does not count towards --count.",
                "",
                "Peers: pull from send --type push, sub from send --type pub (through a proxy: its backend, pipeline or pubsub),"
                        + " dealer from dealer, pair from pair. libzmq drops a connection between other types during its handshake,"
                        + " without an error: a --connect then warns once on stderr, and recv waits as for an absent peer."},
        exitCodeListHeading = "%nExit codes:%n", exitCodeList = {"0:Success: --count messages delivered.",
                ExitCodes.HELP_FAILURE, ExitCodes.HELP_USAGE,
                "3:--timeout fired: no message (good or bad) arrived within it.", ExitCodes.HELP_INTERRUPTED})
final class RecvCommand implements Callable<Integer> {

    /** Socket types that can receive a stream, and the peers each takes (libzmq drops any other). */
    enum Type {
        pull(SocketType.PULL, "pull receives only from push (send --type push, or a proxy --type pipeline backend)"),
        sub(SocketType.SUB, "sub receives only from pub (send --type pub, or a proxy --type pubsub backend)"),
        dealer(SocketType.DEALER, "dealer talks only to dealer or router (send --type dealer)"),
        pair(SocketType.PAIR, "pair talks only to pair (send --type pair)");

        final SocketType socketType;
        final String peers;

        Type(SocketType socketType, String peers) {
            this.socketType = socketType;
            this.peers = peers;
        }
    }

    @Spec
    CommandSpec spec;

    @Mixin
    EndpointOptions endpoints;

    @Option(names = "--type", paramLabel = "TYPE", defaultValue = "pull",
            description = "Socket type: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
    Type type;

    @Option(names = "--subscribe", paramLabel = "T",
            description = "SUB only: receive messages whose topic starts with T (repeatable; default: everything).")
    List<String> subscriptions = new ArrayList<>();

    @Option(names = "--dict", paramLabel = "FILE",
            description = "A zstd dictionary frames may use (repeatable; each frame names its dictionary ID).")
    List<Path> dictionaries = new ArrayList<>();

    @Option(names = "--raw-dict",
            description = "With --dict: accept files that are not zstd dictionaries, as raw content (for frames without a dictionary ID).")
    boolean rawDictionaries;

    @Option(names = "--dict-for-no-id", paramLabel = "FILE",
            description = "The zstd dictionary for frames that carry no dictionary ID (send --no-dict-id, zstd --no-dictID -D);"
                    + " every such compressed frame must have been made with it. Frames with its ID need it as --dict too.")
    Path noIdDictionary;

    @Option(names = "--max-size", paramLabel = "BYTES", converter = Values.ByteSize.class, defaultValue = "64M",
            description = "Refuse a frame that decompresses to more than BYTES (default ${DEFAULT-VALUE}).")
    long maxSize;

    @Option(names = "--count", paramLabel = "N", defaultValue = "-1",
            description = "Exit 0 after N delivered messages (default: run until interrupted).")
    long count;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Values.Time.class, defaultValue = "forever",
            description = "Exit 3 when no message arrives for DURATION, e.g. 10s, 500ms (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--delimiter", paramLabel = "TEXT", converter = Values.Delimiter.class, defaultValue = "\\n",
            description = "Written after each message (default: newline; '' for none, to rebuild a binary stream). Escapes: \\n \\r \\t \\0 \\\\ \\xHH.")
    Values.Bytes delimiter;

    @Option(names = "--print-topic", description = "SUB only: write the topic and a space before each payload.")
    boolean printTopic;

    @Mixin
    CurveOptions curve;

    @Mixin
    StatsOptions statsOptions;

    @Mixin
    EventOptions eventOptions;

    /** Standard output; a test may swap it. */
    OutputStream stdout = new FileOutputStream(FileDescriptor.out);

    private static final byte[] SPACE = {' '};

    /** The --dict files by the dictionary ID they serve (0: a raw-content one), for the bad-frame hint; failure path only. */
    private Map<Integer, Path> dictionaryFiles = Map.of();

    /** The --dict-for-no-id dictionary's ID, unsigned; -1 without one. */
    private long noIdDictionaryId = -1;

    /** Set by {@link OutputWatch} when standard output's reader has gone (its reason), before it wakes the receive. */
    private volatile String outputGone;

    @Override
    public Integer call() throws IOException {
        validate();
        List<ZstdDictionary> dicts = dictionaries.stream().map(f -> SendCommand.loadDictionary(f, rawDictionaries)).toList();
        Map<Integer, Path> byId = new HashMap<>();
        for (int i = 0; i < dicts.size(); i++) {
            Path earlier = byId.putIfAbsent(dicts.get(i).id(), dictionaries.get(i));
            if (earlier != null && !dicts.get(i).isStructured()) {
                // it said "has the same dictionary ID as ...: id=0" of two files that have none
                throw usage("--dict " + dictionaries.get(i) + " and --dict " + earlier + " are both raw content (--raw-dict):"
                        + " frames without a dictionary ID can use only one");
            }
            if (earlier != null) {
                throw usage("--dict " + dictionaries.get(i) + " has the same dictionary ID as --dict " + earlier
                        + ": id=" + Integer.toUnsignedString(dicts.get(i).id()));
            }
        }
        // --raw-dict reads --dict files only: raw content for these frames is a --dict of its own
        ZstdDictionary forFramesWithoutId = noIdDictionary == null ? null : SendCommand.loadDictionary(noIdDictionary, false,
                "or, for raw content, give the file as --dict FILE --raw-dict instead of --dict-for-no-id: it serves frames"
                        + " without a dictionary ID by itself");
        if (forFramesWithoutId != null && byId.containsKey(0)) {
            // a raw-content --dict serves the same frames (the receiver's build() refuses the pair too)
            throw usage("--dict-for-no-id " + noIdDictionary + " and --dict " + byId.get(0) + " (dictionary ID 0: raw content)"
                    + " would both decode frames without a dictionary ID: keep one");
        }
        dictionaryFiles = byId;
        noIdDictionaryId = forFramesWithoutId == null ? -1 : Integer.toUnsignedLong(forFramesWithoutId.id());
        // Nothing to send, so nothing to linger for.
        ZmqContext context = ZmqContext.builder().defaultLinger(Duration.ZERO).build();
        PrintWriter err = spec.commandLine().getErr();
        EndpointOptions bound = endpoints; // closed after the context: removes the ipc socket files the binds made
        try (bound; context; Session session = new Session(spec.qualifiedName(), statsOptions, false, context, err);
             OutputSink out = new OutputSink(stdout); OutputWatch watch = watchStandardOutput(context)) {
            try {
                ZmqSocket socket = context.socket(type.socketType);
                curve.apply(socket);
                if (type == Type.sub) {
                    if (subscriptions.isEmpty()) {
                        socket.subscribe("");
                    }
                    subscriptions.forEach(socket::subscribe);
                }
                socket.receiveTimeoutMs(Values.millis(timeout));
                // closed after the receive loop, when the main thread is no longer in a call on the socket
                try (EventReporter reporter = eventOptions.start(socket, spec.qualifiedName(), null, curve.peers(type.peers),
                        endpoints.binds, err)) {
                    endpoints.attach(socket);
                    DecompressingReceiver.Builder b = DecompressingReceiver.builder(socket).maxDecompressedSize(maxSize);
                    dicts.forEach(b::dictionary);
                    try (DecompressingReceiver receiver = b.dictionaryForFramesWithoutId(forFramesWithoutId).build()) {
                        session.countWritten(out::writtenMessages);
                        session.watch(receiver::stats);
                        int code = receiveAll(receiver, out, session, err);
                        out.flush();
                        session.finish(); // while the receiver's counters are still there
                        return code;
                    }
                }
            } catch (IOException e) {
                // e.g. "recv | head -1": the reader went away; say so in one line
                throw outputFailed(Main.describe(e), e);
            } catch (ZmqException e) {
                if (e.isContextTerminated() && session.interrupted()) {
                    try {
                        out.flush();
                    } catch (IOException flushFailed) {
                        throw outputFailed(Main.describe(flushFailed), flushFailed);
                    }
                    session.finish();
                    return ExitCodes.INTERRUPTED;
                }
                if (e.isContextTerminated() && outputGone != null) {
                    // woken between messages, perhaps with some still in the buffer: those are lost
                    throw outputFailed(outputGone, e);
                }
                throw new CliException(ExitCodes.FAILURE, e.getMessage(), e);
            }
        }
    }

    /**
     * "recv | head -1" on a quiet stream: the next write would be the first to fail, and it waits for
     * the next message; wake the receive instead (ETERM), as a signal does. Only for the process's
     * own standard output (a test may swap it).
     */
    private OutputWatch watchStandardOutput(ZmqContext context) throws IOException {
        if (!(stdout instanceof FileOutputStream f && f.getFD() == FileDescriptor.out)) {
            return OutputWatch.none();
        }
        return OutputWatch.start(reason -> {
            outputGone = reason;
            context.shutdown();
        });
    }

    /**
     * Writing standard output failed: the messages received but not written whole are not delivered
     * (the summary, which counts from the sink, says how many), and the run ends with one line.
     */
    private static CliException outputFailed(String error, Exception cause) {
        return new CliException(ExitCodes.FAILURE, "cannot write standard output: error=" + error, cause);
    }

    /**
     * The receive loop: take what is waiting without blocking, and flush standard output only
     * when nothing is, so a busy stream is written in large blocks and a quiet one at once.
     */
    private int receiveAll(DecompressingReceiver receiver, OutputSink out, Session session, PrintWriter err) throws IOException {
        ReceivedMessage m = receiver.message();
        while (count < 0 || out.endedMessages() < count) {
            int status = receive(receiver, ZmqSocket.DONTWAIT);
            if (status == DecompressingReceiver.WOULD_BLOCK) {
                out.flush();
                status = receive(receiver, 0);
                if (status == DecompressingReceiver.WOULD_BLOCK) {
                    err.println(spec.qualifiedName() + ": timeout: no message within " + Values.show(timeout)
                            + " (delivered=" + out.writtenMessages() + (count >= 0 ? ", count=" + count : "") + ")");
                    return ExitCodes.TIMEOUT;
                }
            }
            if (status == DecompressingReceiver.BAD_FRAME) {
                // after the messages before it, also where standard output and error are one file
                out.flush();
                err.println(spec.qualifiedName() + ": " + withFlag(receiver.lastErrorMessage()) + dictionaryHint(receiver));
                continue;
            }
            int parts = m.parts();
            for (int i = 0; i < parts; i++) {
                if (m.isCompressed(i)) {
                    out.write(m.region(), m.partOffset(i), m.partSize(i));
                } else if (printTopic && i == 0) {
                    // the topic is part 0 (sub's one envelope part); a 0-byte part kept between
                    // payload parts (a REQ/REP delimiter) is none, and a space for it went into the payload
                    out.write(m.region(), m.partOffset(i), m.partSize(i));
                    out.write(SPACE);
                }
            }
            out.write(delimiter.value());
            out.endMessage();
            session.messageDone();
        }
        return ExitCodes.OK;
    }

    /**
     * One receive. A message that does not fit in memory decompressed (the receiver's native region
     * grows to hold it whole, up to --max-size; the JVM's heap holds its part table) ends the run in
     * one line, as send's and train's do: it was an OutOfMemoryError and a stack trace, with a
     * --max-size above what the machine (or its ulimit or container) gives. The receiver has skipped
     * the rest of that message; the messages before it are written out as the run ends.
     */
    private int receive(DecompressingReceiver receiver, int flags) {
        try {
            return receiver.receive(flags);
        } catch (OutOfMemoryError e) {
            throw new CliException(ExitCodes.FAILURE, "not enough memory to decompress a message: error=" + e.getMessage()
                    + " (a message is decompressed whole, and --max-size lets one part be up to " + maxSize + " bytes);"
                    + " lower --max-size, which refuses a larger frame as a bad frame (TOO_LARGE), or give recv more memory", e);
        }
    }

    private void validate() {
        endpoints.requireOne();
        if (!subscriptions.isEmpty() && type != Type.sub) {
            throw usage("--subscribe needs --type sub: type=" + type);
        }
        for (String topic : subscriptions) {
            int bytes = topic.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            if (bytes > ZmqSocket.MAX_SUBSCRIPTION_BYTES) {
                throw usage("--subscribe topic longer than a subscription may be: bytes=" + bytes + ", limit="
                        + ZmqSocket.MAX_SUBSCRIPTION_BYTES);
            }
        }
        if (printTopic && type != Type.sub) {
            throw usage("--print-topic needs --type sub: type=" + type);
        }
        if (rawDictionaries && dictionaries.isEmpty()) {
            throw usage(SendCommand.RAW_DICT_WITHOUT_DICT);
        }
        if (Main.given(spec, "--count") && count <= 0) { // -1 is only the default's "no count"
            throw usage("--count must be positive: N=" + count);
        }
        if (maxSize == 0) {
            // not "no limit" (as --hwm 0 is): every non-empty message would be refused as TOO_LARGE
            throw usage("--max-size must be positive: bytes=0 (it would refuse every non-empty message; there is no 'no limit')");
        }
        if (timeout.isZero()) {
            throw usage(Values.ZERO_TIMEOUT);
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /**
     * For a frame that failed in its decoding (CORRUPT, CHECKSUM, or libzstd's "Dictionary is
     * corrupted", DICTIONARY_MISSING) with one of this recv's dictionaries, which one, found from the
     * ID the frame names, and that a frame of another dictionary fails this way: until 2026-11-29 it
     * came out in the words of a damaged frame ("frame content longer than its header declares"),
     * nothing said of a dictionary, except on a recv with --dict-for-no-id and no --dict. Nothing when no dictionary of
     * this recv decoded it: a frame without an ID decoded with none (the codec's message says so), or
     * one naming an ID this recv lacks (DICTIONARY_MISSING before any decoding).
     */
    private String dictionaryHint(DecompressingReceiver receiver) {
        BadFrameReason reason = receiver.lastErrorReason();
        long id = receiver.lastErrorDictionaryId();
        if (id < 0 || reason != BadFrameReason.CORRUPT && reason != BadFrameReason.CHECKSUM
                && reason != BadFrameReason.DICTIONARY_MISSING) {
            return "";
        }
        String decoded;
        if (id == 0 && noIdDictionary != null) {
            decoded = "declares no dictionary ID and was decoded with --dict-for-no-id " + noIdDictionary + " (id=" + noIdDictionaryId + ")";
        } else if (dictionaryFiles.containsKey((int) id)) {
            decoded = id == 0 ? "declares no dictionary ID and was decoded with --dict " + dictionaryFiles.get(0) + " (raw content)"
                    : "names dictionary ID " + id + " and was decoded with --dict " + dictionaryFiles.get((int) id);
        } else {
            return "";
        }
        return "; the frame " + decoded + ": a frame made with another dictionary" + (id == 0 ? "" : " of that ID")
                + " fails this way, as a damaged one does";
    }

    /**
     * A bad frame's message with the flag that does what the codec's advice at its end names by
     * the library's option: dictionaryForFramesWithoutId (a frame without a dictionary ID) is
     * --dict-for-no-id, dictionary(d) for a frame naming the ID of the --dict-for-no-id file is --dict.
     */
    private static String withFlag(String why) {
        if (why.endsWith("dictionaryForFramesWithoutId")) {
            return why + " (zmq-zstd recv --dict-for-no-id FILE)";
        }
        return why.endsWith("for frames that name its ID") ? why + " (zmq-zstd recv --dict FILE)" : why;
    }
}
