package io.zmqzstd.transport;

/**
 * Refuses endpoint strings that libzmq would take as another endpoint than the one written,
 * without a word: a NUL character (libzmq reads a C string, so it stops there) and a tcp or ws
 * port outside 0 to 65535 or with more than digits in it (libzmq reads the port with
 * {@code atoi} and keeps the low 16 bits, so {@code :99999} is port 34463, {@code :-1} port 65535
 * and {@code :5555x} port 5555); and connects libzmq takes and tries for ever: to tcp or ws port 0
 * (every attempt refused: port 0 means "any free port" only to a bind), to an IPv6 address in
 * brackets without a port (libzmq reads one from inside them: {@code tcp://[::1]}) and to a tcp
 * destination with an empty host. Everything else (a missing port, a bind of {@code tcp://[::1]},
 * which libzmq refuses) is libzmq's to judge.
 */
final class EndpointCheck {

    private static final int MAX_PORT = 65535;

    private EndpointCheck() {
    }

    /**
     * @throws IllegalArgumentException naming the endpoint and what in it libzmq would misread
     */
    static void check(String endpoint) {
        destination(endpoint);
    }

    /**
     * {@link #check}, and a tcp or ws destination port of 0 refused: libzmq 4.3.4 takes
     * {@code connect("tcp://127.0.0.1:0")} and tries it every reconnect interval for ever, each
     * attempt refused, without a word (a bind to port 0 picks a free port, so the same text
     * passed to both sides looked right). A source port of 0 ({@code tcp://SOURCE:0;DEST:PORT})
     * is any port, as for a bind, and stays allowed. A tcp destination with an empty host
     * ({@code tcp://:5555}, {@code tcp://[]:5555}) is refused too: libzmq 4.3.4 takes it and
     * reports only {@code CONNECT_RETRIED} on a monitor, for ever, and so is an IPv6 address in
     * brackets without a port ({@code tcp://[::1]}, from which libzmq reads a port inside the
     * brackets and which it retried the same way). Another destination without a port
     * goes to libzmq, which refuses it with EINVAL (until 2026-11-27 this check threw
     * {@link NumberFormatException} for it, {@code For input string: ""}).
     *
     * @throws IllegalArgumentException naming the endpoint and what is wrong with it
     */
    static void checkConnect(String endpoint) {
        String destination = destination(endpoint);
        if (destination == null) {
            return;
        }
        String port = port(destination);
        if (isPort(port) && !port.isEmpty() && Integer.parseInt(port) == 0) {
            throw new IllegalArgumentException("a connect cannot reach port 0: endpoint=" + endpoint
                    + " (port 0 or * means any free port only to a bind: connect to the port lastEndpoint() reports there)");
        }
        if (port.isEmpty() && destination.endsWith("]")) { // libzmq takes the text after the last ':', inside the brackets
            throw new IllegalArgumentException("a port must follow the IPv6 address: endpoint=" + endpoint
                    + " (libzmq would read the port from inside the brackets: write " + destination + ":PORT)");
        }
        String host = destination.substring(0, destination.length() - port.length()).replaceFirst(":$", "");
        if (endpoint.startsWith("tcp://") && (host.isEmpty() || host.equals("[]"))) {
            throw new IllegalArgumentException("a connect needs a host: endpoint=" + endpoint
                    + " (libzmq would take it and try to resolve the empty host for ever, delivering nothing:"
                    + " name one, e.g. tcp://127.0.0.1:" + (port.isEmpty() ? "PORT" : port) + ")");
        }
    }

    /** The port text of one {@code HOST:PORT}: empty when there is none (a ':' inside an IPv6 address's brackets separates no port). */
    private static String port(String part) {
        int colon = part.lastIndexOf(':');
        return colon < 0 || colon < part.lastIndexOf(']') ? "" : part.substring(colon + 1);
    }

    /**
     * Checks {@code endpoint} as {@link #check} says; returns the destination, {@code HOST:PORT} of a
     * tcp or ws endpoint (the part after a connect's {@code SOURCE;}), or null where there is none to check.
     */
    private static String destination(String endpoint) {
        int nul = endpoint.indexOf('\0');
        if (nul >= 0) {
            throw new IllegalArgumentException("endpoint must not contain a NUL character: index=" + nul + ", endpoint="
                    + endpoint.replace("\0", "\\0"));
        }
        String address;
        if (endpoint.startsWith("tcp://")) {
            address = endpoint.substring("tcp://".length());
        } else if (endpoint.startsWith("ws://")) {
            address = endpoint.substring("ws://".length());
            int path = address.indexOf('/');
            address = path < 0 ? address : address.substring(0, path);
        } else {
            return null;
        }
        String part = null;
        for (String each : address.split(";", -1)) { // a connect's SOURCE;DESTINATION, each HOST:PORT
            part = each;
            String port = port(part);
            if (!port.isEmpty() && !port.equals("*") && !isPort(port)) { // no port at all: libzmq refuses it
                throw new IllegalArgumentException("port must be * or a number from 0 to " + MAX_PORT + ": port=" + port
                        + ", endpoint=" + endpoint + " (libzmq would read another port from it)");
            }
        }
        return part; // the last: the destination
    }

    private static boolean isPort(String digits) {
        int value = 0;
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
            value = value * 10 + (c - '0');
            if (value > MAX_PORT) {
                return false;
            }
        }
        return true;
    }
}
