package io.zmqzstd.transport;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Which of a socket's endpoints libzmq 4.3.4's zmq_unbind and zmq_disconnect reach with a given
 * text. Both run socket_base_t::term_endpoint, which looks the text up among the socket's
 * endpoints, keyed for a bind by what ZMQ_LAST_ENDPOINT reported (the real port of a wildcard,
 * the address of a host name) and for a connect by the text given to zmq_connect. inproc and ipc
 * are matched as text only (two spellings of one ipc file are two endpoints to libzmq). A tcp
 * text that is no key is resolved as a connect address (resolve_tcp_addr: the destination's host
 * through DNS, a {@code SOURCE;} prefix dropped) and written as libzmq writes an address it
 * resolved, {@code tcp://IPv4:PORT}, or with {@code ZMQ_IPV6} on {@code tcp://[IPv6]:PORT}, an
 * IPv4 address mapped to {@code ::ffff:a.b.c.d}; then that is looked up. So with
 * {@code tcp://127.0.0.1:5555} bound, {@code disconnect("tcp://localhost:5555")} unbinds it, while
 * {@code tcp://*:5555} (reported as {@code tcp://0.0.0.0:5555}), an interface name and a port of
 * {@code *} are not resolved there and reach nothing (ENOENT), as a connected
 * {@code tcp://localhost:5555} is not reached by {@code tcp://127.0.0.1:5555} (measured against
 * libzmq 4.3.4 on 2026-11-27).
 */
final class EndpointMatch {

    private static final String TCP = "tcp://";

    private EndpointMatch() {
    }

    /**
     * The keys among {@code keys} that zmq_unbind or zmq_disconnect of {@code endpoint} ends. A
     * host name is resolved through the JDK, and every address of the socket's family is tried,
     * where libzmq takes the first its resolver gives: of two keys a name could reach, the caller
     * is told both. No lookup is made unless a key has the endpoint's port.
     *
     * @param ipv6 the socket's {@code ZMQ_IPV6} now, which decides how libzmq resolves the host
     * @return {@code endpoint} itself when it is a key, else the keys it resolves to; empty when none
     */
    static List<String> reached(String endpoint, boolean ipv6, Collection<String> keys) {
        if (keys.contains(endpoint)) {
            return List.of(endpoint);
        }
        if (!endpoint.startsWith(TCP)) {
            return List.of();
        }
        String address = endpoint.substring(TCP.length());
        String destination = address.substring(address.lastIndexOf(';') + 1);
        int colon = destination.lastIndexOf(':');
        String port = colon < 0 ? "" : destination.substring(colon + 1);
        if (port.isEmpty() || !Character.isDigit(port.charAt(0))) {
            return List.of(); // "*" (libzmq resolves it only for a bind) or none: EndpointCheck let only these through
        }
        String suffix = ":" + Integer.parseInt(port);
        if (keys.stream().noneMatch(k -> k.startsWith(TCP) && k.endsWith(suffix))) {
            return List.of();
        }
        String host = destination.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty() || host.equals("*") || host.contains("%")) {
            return List.of(); // "*" is any address only to a bind; a zone id is libzmq's to judge
        }
        List<String> reached = new ArrayList<>(1);
        for (String written : addresses(host, ipv6)) {
            String key = TCP + written + suffix;
            if (keys.contains(key) && !reached.contains(key)) {
                reached.add(key);
            }
        }
        return reached;
    }

    /**
     * {@code host}'s addresses as libzmq writes them (getnameinfo with NI_NUMERICHOST): IPv4 only
     * without ipv6 (getaddrinfo with AF_INET); with it the IPv6 ones, or when there are none the
     * IPv4 ones mapped (AF_INET6 with AI_V4MAPPED), in brackets.
     */
    private static List<String> addresses(String host, boolean ipv6) {
        InetAddress[] all;
        try {
            all = InetAddress.getAllByName(host);
        } catch (UnknownHostException | SecurityException e) {
            return List.of(); // libzmq cannot resolve it either, or it finds no key with it
        }
        List<String> written = new ArrayList<>(all.length);
        for (InetAddress a : all) {
            if (ipv6 && a instanceof Inet6Address) {
                written.add("[" + ipv6Text(a.getAddress()) + "]");
            } else if (!ipv6 && a instanceof Inet4Address) {
                written.add(a.getHostAddress());
            }
        }
        if (ipv6 && written.isEmpty()) {
            for (InetAddress a : all) {
                written.add("[::ffff:" + a.getHostAddress() + "]"); // all IPv4 here (the JDK maps ::ffff:a.b.c.d to IPv4 too)
            }
        }
        return written;
    }

    /**
     * An IPv6 address as glibc's inet_ntop writes it (RFC 5952): groups in lower-case hex without
     * leading zeros, the longest run of two or more zero groups (the first of equals) as
     * {@code ::}, and an IPv4-mapped or IPv4-compatible address with its last 32 bits dotted.
     */
    static String ipv6Text(byte[] a) {
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = (a[2 * i] & 0xff) << 8 | a[2 * i + 1] & 0xff;
        }
        int bestStart = -1;
        int bestLength = 1; // a run must be longer than this
        for (int i = 0; i < 8;) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        boolean embeddedIpv4 = bestStart == 0 && (bestLength == 6 || bestLength == 5 && groups[5] == 0xffff);
        StringBuilder text = new StringBuilder(39);
        int end = embeddedIpv4 ? 6 : 8;
        for (int i = 0; i < end; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!text.isEmpty() && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        if (embeddedIpv4) {
            if (text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(a[12] & 0xff).append('.').append(a[13] & 0xff).append('.').append(a[14] & 0xff).append('.')
                    .append(a[15] & 0xff);
        }
        return text.toString();
    }
}
