package io.zmqzstd.transport;

/**
 * Refuses endpoint strings that libzmq would take as another endpoint than the one written,
 * without a word: a NUL character (libzmq reads a C string, so it stops there) and a tcp or ws
 * port outside 0 to 65535 or with more than digits in it (libzmq reads the port with
 * {@code atoi} and keeps the low 16 bits, so {@code :99999} is port 34463, {@code :-1} port 65535
 * and {@code :5555x} port 5555). Everything else is libzmq's to judge.
 */
final class EndpointCheck {

    private static final int MAX_PORT = 65535;

    private EndpointCheck() {
    }

    /**
     * @throws IllegalArgumentException naming the endpoint and what in it libzmq would misread
     */
    static void check(String endpoint) {
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
            return;
        }
        for (String part : address.split(";", -1)) { // a connect's SOURCE;DESTINATION, each HOST:PORT
            int colon = part.lastIndexOf(':');
            // a ':' inside an IPv6 address's brackets separates no port: "[::1]" has none
            String port = colon < 0 || colon < part.lastIndexOf(']') ? "" : part.substring(colon + 1);
            if (!port.isEmpty() && !port.equals("*") && !isPort(port)) { // no port at all: libzmq refuses it
                throw new IllegalArgumentException("port must be * or a number from 0 to " + MAX_PORT + ": port=" + port
                        + ", endpoint=" + endpoint + " (libzmq would read another port from it)");
            }
        }
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
