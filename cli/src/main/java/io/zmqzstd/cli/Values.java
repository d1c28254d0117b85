package io.zmqzstd.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.io.ByteArrayOutputStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parsers for option values: endpoints, byte sizes, durations, delimiters. Each rejects a bad
 * value with one sentence; picocli prefixes the option name and the command exits 2.
 */
final class Values {

    /** A duration that means "no limit" ({@code forever}). */
    static final Duration FOREVER = Duration.ofMillis(-1);

    private static final Pattern ENDPOINT = Pattern.compile("(tcp|ipc|inproc|ws|wss|pgm|epgm|norm|udp|vmci|tipc)://(.+)");
    /**
     * host (name, IPv4, [IP literal], interface or *) and port (or *). What is inside brackets is
     * checked by {@link #bracketProblem}.
     */
    private static final String HOST_PORT = "(\\[[^\\[\\]]+]|[^:\\[\\];/]+):(\\d{1,5}|\\*)";
    /** tcp address after an optional {@code source;}: {@link #HOST_PORT}. */
    private static final Pattern TCP_ADDRESS = Pattern.compile("(?:[^;]*;)?" + HOST_PORT);
    /** ws and wss address: {@link #HOST_PORT} and an optional {@code /path}. */
    private static final Pattern WS_ADDRESS = Pattern.compile(HOST_PORT + "(?:/.*)?");
    /** The source of a tcp connect endpoint: an address or interface with a port, as libzmq takes it. */
    private static final Pattern SOURCE_ADDRESS = Pattern.compile(HOST_PORT);
    /** A '[' whose content has a ':' before its ']': an IPv6 address (an IPv4 one has none). */
    private static final Pattern IPV6_IN_BRACKETS = Pattern.compile("\\[[^\\]]*:");
    /** A number libzmq's tipc address takes: an unsigned 32-bit one, written in decimal digits alone. */
    private static final String TIPC_NUMBER = "(\\d{1,10})";
    /**
     * The tipc addresses libzmq 4.3.4 reads ({@code tipc_address_t::resolve}): a service range
     * {@code {TYPE,LOWER,UPPER}} or a service {@code {TYPE,INSTANCE}}, each with an optional domain
     * {@code @Z.C.N}; a port identity {@code <Z.C.N:REF>}; {@code <*>}, a random one.
     */
    private static final Pattern TIPC_SERVICE = Pattern.compile("\\{" + TIPC_NUMBER + "," + TIPC_NUMBER + "(?:," + TIPC_NUMBER
            + ")?}(?:@" + TIPC_NUMBER + "\\." + TIPC_NUMBER + "\\." + TIPC_NUMBER + ")?");
    private static final Pattern TIPC_PORT_IDENTITY = Pattern.compile("<(?:\\*|" + TIPC_NUMBER + "\\." + TIPC_NUMBER + "\\."
            + TIPC_NUMBER + ":" + TIPC_NUMBER + ")>");
    /** TIPC_RESERVED_TYPES: service types up to it are the kernel's own; libzmq refuses them. */
    private static final long TIPC_RESERVED_TYPES = 64;
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(|b|k|kb|kib|m|mb|mib|g|gb|gib)", Pattern.CASE_INSENSITIVE);
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(|ms|s|m|h)", Pattern.CASE_INSENSITIVE);

    private Values() {
    }

    /**
     * {@code tcp://host:port}, {@code ipc://path}, a tipc address as libzmq reads it
     * ({@link #tipcProblem}), ...; libzmq itself checks the rest. Not
     * {@code inproc://name}: it reaches only sockets of the same libzmq context, and each command is
     * a process with one socket (a proxy's two sides may not share an endpoint), so there it waited
     * for a peer that cannot exist, and a send connected to one exited 0 with its messages queued
     * for nobody.
     */
    static String endpoint(String value) {
        Matcher m = ENDPOINT.matcher(value);
        if (!m.matches()) {
            throw new TypeConversionException("malformed endpoint '" + value
                    + "': expected transport://address, e.g. tcp://127.0.0.1:5555, tcp://*:5555, ipc:///tmp/feed");
        }
        if (m.group(1).equals("inproc")) {
            throw new TypeConversionException("'" + value + "': inproc:// reaches only sockets in the same process, and"
                    + " no other socket of this command could be its peer; between processes use ipc:///path or tcp://host:port");
        }
        if (m.group(1).equals("tcp")) {
            String address = m.group(2);
            Matcher t = TCP_ADDRESS.matcher(address);
            if (!t.matches()) {
                throw malformedTcp(value, address.indexOf('[') >= 0 && address.indexOf(']') < 0
                        ? "'[' without ']' (an IPv6 address is written in brackets, e.g. tcp://[::1]:5555)"
                        : "expected tcp://host:port");
            }
            if (t.group(1).startsWith("[")) {
                String problem = bracketProblem(t.group(1).substring(1, t.group(1).length() - 1));
                if (problem != null) {
                    throw malformedTcp(value, problem);
                }
            }
            if (!t.group(2).equals("*") && Integer.parseInt(t.group(2)) > 65535) {
                throw malformedTcp(value, "port=" + t.group(2) + " above 65535");
            }
        }
        if (m.group(1).equals("tipc")) {
            String problem = tipcProblem(m.group(2));
            if (problem != null) {
                // libzmq 4.3.4 refuses such an address without setting errno: bind and connect failed with
                // whatever errno was left, "Resource temporarily unavailable" (EAGAIN)
                throw new TypeConversionException("malformed tipc endpoint '" + value + "': " + problem + "; expected"
                        + " tipc://{TYPE,LOWER,UPPER} (a service range, TYPE 64 or more), tipc://{TYPE,INSTANCE} (a service,"
                        + " TYPE above 64), either with an optional @Z.C.N domain, tipc://<Z.C.N:REF> (a port identity, for"
                        + " --connect) or tipc://<*> (a random one, for --bind), each number 0 to 4294967295");
            }
        }
        return value;
    }

    /** What libzmq 4.3.4 would not take in a tipc address, or null. */
    private static String tipcProblem(String address) {
        Matcher service = TIPC_SERVICE.matcher(address);
        if (service.matches()) {
            String tooLarge = tipcNumberAbove32Bits(service);
            if (tooLarge != null) {
                return tooLarge;
            }
            long type = Long.parseLong(service.group(1));
            if (service.group(3) == null) {
                return type > TIPC_RESERVED_TYPES ? null : "service type=" + type + " not above " + TIPC_RESERVED_TYPES
                        + " (the kernel's own types)";
            }
            if (type < TIPC_RESERVED_TYPES) {
                return "service type=" + type + " below " + TIPC_RESERVED_TYPES + " (the kernel's own types)";
            }
            return Long.parseLong(service.group(2)) <= Long.parseLong(service.group(3)) ? null
                    : "lower=" + service.group(2) + " above upper=" + service.group(3);
        }
        Matcher identity = TIPC_PORT_IDENTITY.matcher(address);
        if (identity.matches()) {
            return tipcNumberAbove32Bits(identity);
        }
        return "'" + address + "' is no tipc address";
    }

    /** {@code number=N above 4294967295} for the first number of a tipc address libzmq would read as another, or null. */
    private static String tipcNumberAbove32Bits(Matcher address) {
        for (int group = 1; group <= address.groupCount(); group++) {
            if (address.group(group) != null && Long.parseLong(address.group(group)) > 0xFFFF_FFFFL) {
                return "number=" + address.group(group) + " above 4294967295";
            }
        }
        return null;
    }

    private static TypeConversionException malformedTcp(String endpoint, String what) {
        return new TypeConversionException("malformed tcp endpoint '" + endpoint + "': " + what);
    }

    /**
     * What is wrong with the text between brackets, or null: libzmq takes any characters there
     * and, for connect, retries the failing resolution for ever in the background. An IPv6 address
     * (with an optional {@code %zone}: an interface name or number) or an IPv4 address.
     */
    private static String bracketProblem(String literal) {
        int percent = literal.indexOf('%');
        String address = percent < 0 ? literal : literal.substring(0, percent);
        if (literal(address) == null) {
            return "'" + address + "' is not an IPv6 (or IPv4) address";
        }
        if (percent >= 0) {
            try {
                Inet6Address.ofLiteral(literal);
            } catch (IllegalArgumentException e) {
                String zone = literal.substring(percent + 1);
                if (zone.isEmpty()) {
                    return "'%' without a zone after it";
                }
                return address.contains(":") ? "no network interface for the zone '%" + zone + "'"
                        : "'%" + zone + "': only an IPv6 address has a zone";
            }
        }
        return null;
    }

    /** The destination part of a well-formed tcp endpoint; null for other transports. */
    private static Matcher tcpDestination(String endpoint) {
        return destination(endpoint, false);
    }

    /**
     * The destination part (host in group 1, port in group 2) of a well-formed tcp endpoint, or with
     * {@code ws} of a ws or wss one too (before its path); null for other transports.
     */
    private static Matcher destination(String endpoint, boolean ws) {
        Matcher m = ENDPOINT.matcher(endpoint);
        if (!m.matches()) {
            return null;
        }
        Pattern address = switch (m.group(1)) {
            case "tcp" -> TCP_ADDRESS;
            case "ws", "wss" -> ws ? WS_ADDRESS : null;
            default -> null;
        };
        if (address == null) {
            return null;
        }
        Matcher t = address.matcher(m.group(2));
        return t.matches() ? t : null;
    }

    /**
     * The destination port of a well-formed tcp, ws or wss endpoint; -1 for {@code *} and other
     * transports.
     */
    static int port(String endpoint) {
        Matcher t = destination(endpoint, true);
        return t != null && !t.group(2).equals("*") ? Integer.parseInt(t.group(2)) : -1;
    }

    /**
     * The path of a well-formed ws or wss endpoint ({@code /feed}; {@code /} when it has none, as
     * libzmq asks for then), or null for other transports.
     */
    static String wsPath(String endpoint) {
        Matcher m = ENDPOINT.matcher(endpoint);
        if (!m.matches() || !(m.group(1).equals("ws") || m.group(1).equals("wss")) || destination(endpoint, true) == null) {
            return null;
        }
        String address = m.group(2);
        int slash = address.indexOf('/', address.lastIndexOf(']') + 1);
        return slash < 0 ? "/" : address.substring(slash);
    }

    /**
     * The destination port of a well-formed tcp, ws or wss endpoint when it is {@code *} or {@code 0}
     * (any free port, which only a bind can take), else null.
     */
    static String anyPort(String endpoint) {
        Matcher t = destination(endpoint, true);
        return t != null && (t.group(2).equals("*") || Integer.parseInt(t.group(2)) == 0) ? t.group(2) : null;
    }

    /**
     * The destination host of a well-formed tcp endpoint as written ({@code [::1]} with its
     * brackets, a name, an address, an interface or {@code *}); null for other transports.
     */
    static String tcpHost(String endpoint) {
        Matcher t = tcpDestination(endpoint);
        return t != null ? t.group(1) : null;
    }

    /**
     * As {@link #tcpHost}, for a tcp, ws or wss endpoint: libzmq reads the host of each the same way
     * (a bind's as an address, an interface or {@code *}, a connect's as an address or a name to
     * resolve).
     */
    static String host(String endpoint) {
        Matcher t = destination(endpoint, true);
        return t != null ? t.group(1) : null;
    }

    /**
     * The source part of a well-formed tcp endpoint, the text before its last {@code ;} (libzmq's
     * {@code tcp://SOURCE;HOST:PORT}); null when it has none or is not tcp.
     */
    static String tcpSource(String endpoint) {
        if (tcpDestination(endpoint) == null) {
            return null;
        }
        int semicolon = endpoint.lastIndexOf(';');
        return semicolon < 0 ? null : endpoint.substring("tcp://".length(), semicolon);
    }

    /**
     * What libzmq would not take in the source part of the tcp connect endpoint {@code endpoint}, or
     * null. It reads the source only when it connects, in the background, as an IP address or a
     * network interface of this machine, always with a port ({@code :0} or {@code :*} for any); it
     * looks no name up (not even {@code localhost}), and a source whose address family differs from
     * the destination's cannot be bound: with such a source it retries for ever without a word.
     */
    static String sourceProblem(String endpoint) {
        String source = tcpSource(endpoint);
        if (source == null) {
            return null;
        }
        Matcher m = SOURCE_ADDRESS.matcher(source);
        if (!m.matches()) {
            return "expected ADDRESS:PORT or INTERFACE:PORT, with port 0 for any, e.g. 10.0.0.2:0, [::1]:0 or eth0:0";
        }
        String host = m.group(1);
        if (!m.group(2).equals("*") && Integer.parseInt(m.group(2)) > 65535) {
            return "port=" + m.group(2) + " above 65535";
        }
        boolean bracketed = host.startsWith("[");
        if (bracketed) {
            String problem = bracketProblem(unbracketed(host));
            if (problem != null) {
                return problem;
            }
        }
        if (host.equals("*")) {
            return "'*' (any interface) is for --bind; a source is an address or a network interface";
        }
        InetAddress address = literal(unbracketed(host));
        if (address == null) {
            return isInterface(host) ? null : "'" + host + "' is neither an IP address nor a network interface of this"
                    + " machine; libzmq looks up no names for a source";
        }
        InetAddress destination = literal(unbracketed(tcpHost(endpoint)));
        if (destination != null && (address instanceof Inet6Address) != (destination instanceof Inet6Address)) {
            return "an " + family(address) + " source cannot connect to the " + family(destination) + " destination";
        }
        return null;
    }

    private static String unbracketed(String host) {
        return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    }

    /** The address an IP literal names (an IPv6 one with or without its {@code %zone}), or null. */
    static InetAddress literal(String text) {
        int percent = text.indexOf('%');
        try {
            return InetAddress.ofLiteral(percent < 0 ? text : text.substring(0, percent));
        } catch (IllegalArgumentException notAnAddress) {
            return null;
        }
    }

    private static String family(InetAddress address) {
        return address instanceof Inet6Address ? "IPv6" : "IPv4";
    }

    /** Whether {@code name} is a network interface of this machine. */
    static boolean isInterface(String name) {
        try {
            return NetworkInterface.getByName(name) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /**
     * Whether a tcp or ws endpoint names an IPv6 address in brackets (destination or source), which
     * libzmq resolves only on a socket with {@code ZMQ_IPV6} set: without it a {@code ws://[::1]:N}
     * bind failed with "No such device" and a connect with "Invalid argument".
     */
    static boolean namesIpv6Address(String endpoint) {
        Matcher m = ENDPOINT.matcher(endpoint);
        return m.matches() && (m.group(1).equals("tcp") || m.group(1).equals("ws") || m.group(1).equals("wss"))
                && IPV6_IN_BRACKETS.matcher(m.group(2)).find();
    }

    /** A one-byte delimiter as an error names it: {@code newline}, or {@code delimiter=0x00}. */
    static String delimiterName(byte delimiter) {
        return delimiter == '\n' ? "newline" : "delimiter=0x" + java.util.HexFormat.of().toHexDigits(delimiter);
    }

    /** {@code 4096}, {@code 64K}, {@code 1MiB}, {@code 2G}: K, M and G are powers of 1024. */
    static long byteSize(String value) {
        Matcher m = SIZE.matcher(value.trim());
        if (!m.matches()) {
            throw new TypeConversionException("'" + value + "' is not a size: expected bytes with an optional K, M or G suffix (powers of 1024), e.g. 65536 or 64K");
        }
        int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "k", "kb", "kib" -> 10;
            case "m", "mb", "mib" -> 20;
            case "g", "gb", "gib" -> 30;
            default -> 0;
        };
        try {
            long n = Long.parseLong(m.group(1));
            if (n > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is too large");
        }
    }

    /** {@code 500ms}, {@code 10s}, {@code 1.5s}, {@code 2m}, {@code 1h}, a bare number of seconds, or {@code forever}. */
    static Duration duration(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("forever") || v.equals("infinite") || v.equals("-1")) {
            return FOREVER;
        }
        Matcher m = DURATION.matcher(v);
        if (!m.matches()) {
            throw new TypeConversionException("'" + value + "' is not a duration: expected e.g. 500ms, 10s, 2m, 1h or forever");
        }
        double unitMs = switch (m.group(2)) {
            case "ms" -> 1;
            case "m" -> 60_000;
            case "h" -> 3_600_000;
            default -> 1000;
        };
        double ms = Double.parseDouble(m.group(1)) * unitMs;
        if (ms > Integer.MAX_VALUE) {
            throw new TypeConversionException("'" + value + "' is too long: at most " + Integer.MAX_VALUE + "ms");
        }
        return Duration.ofMillis(Math.round(ms));
    }

    /**
     * Why a --timeout of zero is refused, for send and recv alike: libzmq takes 0 as "do not wait",
     * so the first send or receive fails before an asynchronous connect can complete.
     */
    static final String ZERO_TIMEOUT = "--timeout must be positive (or 'forever'): timeout=0";

    /** Milliseconds for a libzmq timeout option: -1 for {@link #FOREVER}. */
    static int millis(Duration d) {
        return d.isNegative() ? -1 : (int) Math.min(Integer.MAX_VALUE, d.toMillis());
    }

    /** Human form of a duration for messages: {@code 10s}, {@code 500ms}, {@code forever}. */
    static String show(Duration d) {
        if (d.isNegative()) {
            return "forever";
        }
        long ms = d.toMillis();
        return ms % 1000 == 0 ? (ms / 1000) + "s" : ms + "ms";
    }

    /**
     * Bytes of a delimiter: literal text (UTF-8) with the escapes {@code \n \r \t \0 \\ \xHH};
     * the empty string is no delimiter at all. Encoded by code point: a character outside the Basic
     * Multilingual Plane (an emoji) is two Java chars, which encoded one by one came out as
     * {@code ??}.
     */
    static byte[] delimiter(String value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < value.length(); i++) {
            int c = value.codePointAt(i);
            if (c != '\\') {
                out.writeBytes(Character.toString(c).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                i += Character.charCount(c) - 1;
                continue;
            }
            if (++i == value.length()) {
                throw new TypeConversionException("'" + value + "' ends with a lone backslash");
            }
            switch (value.charAt(i)) {
                case 'n' -> out.write('\n');
                case 'r' -> out.write('\r');
                case 't' -> out.write('\t');
                case '0' -> out.write(0);
                case '\\' -> out.write('\\');
                case 'x' -> {
                    int hi = i + 1 < value.length() ? Character.digit(value.charAt(i + 1), 16) : -1;
                    int lo = i + 2 < value.length() ? Character.digit(value.charAt(i + 2), 16) : -1;
                    if (hi < 0 || lo < 0) {
                        throw new TypeConversionException("'" + value + "': \\x needs two hex digits");
                    }
                    out.write(hi << 4 | lo);
                    i += 2;
                }
                default -> throw new TypeConversionException("'" + value + "': unknown escape \\" + value.charAt(i)
                        + " (known: \\n \\r \\t \\0 \\\\ \\xHH)");
            }
        }
        return out.toByteArray();
    }

    /** picocli adapters: one per value kind. */
    static final class Endpoint implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return endpoint(value);
        }
    }

    static final class ByteSize implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return byteSize(value);
        }
    }

    static final class Time implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return duration(value);
        }
    }

    /**
     * Every option that takes a file path to read ({@code --dict}, {@code --dict-for-no-id}, the CURVE
     * key files): an empty one is a usage error naming the option, and so is one that ends with '/'
     * ({@link #directoryName}). {@code Path.of("")} is the working directory, so {@code --dict ''} or an
     * empty key file failed later, exit 1, as "file=, error=Is a directory".
     */
    static final class FilePath implements ITypeConverter<Path> {
        @Override
        public Path convert(String value) {
            return filePath(value, true);
        }
    }

    /**
     * An output FILE (train's and keygen's {@code --out}): a path as {@link FilePath} takes it, whose
     * message for a trailing '/' points into the directory, as a file to write may well be new.
     */
    static final class OutputFile implements ITypeConverter<Path> {
        @Override
        public Path convert(String value) {
            return filePath(value, false);
        }
    }

    private static Path filePath(String value, boolean read) {
        if (value.isEmpty()) {
            throw new TypeConversionException(EMPTY_PATH);
        }
        String directory = directoryName(value, read);
        if (directory != null) {
            throw new TypeConversionException(directory);
        }
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            throw new TypeConversionException("not a file path: " + e.getMessage());
        }
    }

    /**
     * What a file path that ends with '/' is told (after {@code Invalid value for ...: }), or null for
     * one that does not. Such a path names a directory (open(2) refuses {@code FILE/} with ENOTDIR), but
     * {@code Path.of} drops the '/': {@code --dict d.dict/} read {@code d.dict}, {@code train --out dicts/}
     * with no {@code dicts} there wrote a file named {@code dicts}, keygen's {@code dicts} with the secret
     * key and {@code dicts.pub}, without a word. A path to {@code read} that is a regular file without
     * the '/' is told so; any other, to give a file in the directory.
     */
    static String directoryName(String value, boolean read) {
        if (!value.endsWith("/")) {
            return null;
        }
        String stripped = value.replaceFirst("/+$", "");
        String advice = read && !stripped.isEmpty() && isRegularFile(stripped)
                ? stripped + " is a file: give it without the '/'"
                : "give a file name, e.g. " + value + "NAME";
        return "'" + value + "' ends with '/', which names a directory: " + advice;
    }

    private static boolean isRegularFile(String path) {
        try {
            return Files.isRegularFile(Path.of(path));
        } catch (InvalidPathException e) {
            return false; // refused as not a file path
        }
    }

    /** What an empty path argument is told, after picocli's {@code Invalid value for option '--dict': }. */
    static final String EMPTY_PATH = "empty path: give a file name";

    /** A delimiter's bytes; a record because picocli would take a {@code byte[]} field for a multi-value option. */
    record Bytes(byte[] value) {
    }

    static final class Delimiter implements ITypeConverter<Bytes> {
        @Override
        public Bytes convert(String value) {
            return new Bytes(delimiter(value));
        }
    }
}
