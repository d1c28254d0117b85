package io.zmqzstd.transport;

import io.zmqzstd.transport.internal.LibZmq;

import java.util.Objects;
import java.util.Set;

/**
 * One event of a monitored socket, as {@link SocketMonitor#receive} returns it: what happened
 * ({@link #type()}, with libzmq's raw {@link #id()}), a number whose meaning depends on the type
 * ({@link #value()}: a file descriptor, an errno, an interval, a protocol error or a ZAP status;
 * see each {@link Type}), and the endpoint it concerns ({@link #endpoint()}).
 *
 * @param type what happened; {@link Type#UNKNOWN} for an id this binding does not know (a later
 *     libzmq's), whose raw value {@link #id()} keeps
 * @param id the event id libzmq sent ({@code ZMQ_EVENT_*}, one bit of the low 16)
 * @param value the event's value, an unsigned 32-bit number (0 to 4294967295); what it means
 *     depends on the type
 * @param endpoint the endpoint the event is about, e.g. {@code tcp://127.0.0.1:41234}; empty for
 *     {@link Type#MONITOR_STOPPED}, without its transport for {@link Type#BIND_FAILED}
 */
public record MonitorEvent(Type type, int id, long value, String endpoint) {

    /**
     * Checks the fields.
     *
     * @throws NullPointerException when {@code type} or {@code endpoint} is null
     * @throws IllegalArgumentException when {@code value} is outside 0 to 4294967295, or
     *     {@code type} is a known one whose id is not {@code id}
     */
    public MonitorEvent {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(endpoint, "endpoint");
        if (value < 0 || value > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("value must be an unsigned 32-bit number: value=" + value);
        }
        if (type != Type.UNKNOWN && type.id != id) {
            throw new IllegalArgumentException("id does not match type: type=" + type + ", id=" + id
                    + ", expected=" + type.id);
        }
    }

    /**
     * The events libzmq 4.3 reports (the stable {@code ZMQ_EVENT_*} of its zmq.h, event version
     * 1). Each {@link #id()} is one bit, and a set of them is the mask given to
     * {@code zmq_socket_monitor}. Events about connections (all but {@link #MONITOR_STOPPED}) come
     * only for tcp, ipc and the other transports that have connections; inproc has none.
     */
    public enum Type {
        /** {@code ZMQ_EVENT_CONNECTED} (0x0001): a connecting socket's connection is made. Value: its file descriptor. */
        CONNECTED(0x0001),
        /**
         * {@code ZMQ_EVENT_CONNECT_DELAYED} (0x0002): a connect did not complete at once and goes on
         * in the background (usual for tcp). Value: the errno of the first attempt (EINPROGRESS,
         * 115 on Linux).
         */
        CONNECT_DELAYED(0x0002),
        /**
         * {@code ZMQ_EVENT_CONNECT_RETRIED} (0x0004): a connect failed, or a connection was lost,
         * and is tried again. Value: the interval before the next attempt, in milliseconds
         * (from {@link ZmqSocket#reconnectIvlMs(int)}, growing towards
         * {@link ZmqSocket#reconnectIvlMaxMs(int)} when that is set).
         */
        CONNECT_RETRIED(0x0004),
        /** {@code ZMQ_EVENT_LISTENING} (0x0008): a bind succeeded. Value: the listening file descriptor. */
        LISTENING(0x0008),
        /**
         * {@code ZMQ_EVENT_BIND_FAILED} (0x0010): a bind failed. Value: its errno. Endpoint: libzmq
         * 4.3.4 gives the address without its transport, e.g. {@code 127.0.0.1:5555} or {@code /tmp/x.sock}.
         */
        BIND_FAILED(0x0010),
        /** {@code ZMQ_EVENT_ACCEPTED} (0x0020): a bound socket accepted a connection. Value: its file descriptor. */
        ACCEPTED(0x0020),
        /** {@code ZMQ_EVENT_ACCEPT_FAILED} (0x0040): accepting a connection failed. Value: the errno. */
        ACCEPT_FAILED(0x0040),
        /** {@code ZMQ_EVENT_CLOSED} (0x0080): a connection's or a listener's descriptor was closed. Value: that (now closed) descriptor. */
        CLOSED(0x0080),
        /** {@code ZMQ_EVENT_CLOSE_FAILED} (0x0100): closing a descriptor failed. Value: the errno. */
        CLOSE_FAILED(0x0100),
        /**
         * {@code ZMQ_EVENT_DISCONNECTED} (0x0200): an established connection broke (the peer closed
         * it, or a heartbeat or handshake timed out). Value: its (now closed) file descriptor.
         */
        DISCONNECTED(0x0200),
        /**
         * {@code ZMQ_EVENT_MONITOR_STOPPED} (0x0400): the last event of a monitor, sent when
         * monitoring stops (the {@link SocketMonitor} was closed, or the monitored socket was).
         * Value: 0. Endpoint: empty.
         */
        MONITOR_STOPPED(0x0400),
        /**
         * {@code ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL} (0x0800): the ZMTP handshake failed for a
         * reason other than the protocol or authentication, e.g. the connection broke during it.
         * Value: an errno.
         */
        HANDSHAKE_FAILED_NO_DETAIL(0x0800),
        /** {@code ZMQ_EVENT_HANDSHAKE_SUCCEEDED} (0x1000): the handshake (and authentication, if any) completed. Value: 0. */
        HANDSHAKE_SUCCEEDED(0x1000),
        /**
         * {@code ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL} (0x2000): the peer broke the ZMTP protocol,
         * or a CURVE message could not be decrypted (a wrong key). Value: one of zmq.h's
         * {@code ZMQ_PROTOCOL_ERROR_*} codes, e.g. 0x11000001 ({@code ZMTP_CRYPTOGRAPHIC}) or
         * 0x10000003 ({@code ZMTP_KEY_EXCHANGE}).
         */
        HANDSHAKE_FAILED_PROTOCOL(0x2000),
        /**
         * {@code ZMQ_EVENT_HANDSHAKE_FAILED_AUTH} (0x4000): a ZAP handler refused the peer. Value: the
         * ZAP status code (300, 400 or 500).
         */
        HANDSHAKE_FAILED_AUTH(0x4000),
        /**
         * An id this binding does not know, from a libzmq newer than 4.3; {@link MonitorEvent#id()}
         * keeps it. Never part of a mask: {@link ZmqSocket#monitor(int)} takes unknown bits as they are.
         */
        UNKNOWN(0);

        /** {@link #values()} once (it copies on every call); UNKNOWN's id, 0, is no event's. */
        private static final Type[] ALL_TYPES = values();

        private final int id;

        Type(int id) {
            this.id = id;
        }

        /**
         * The libzmq event id, the {@code ZMQ_EVENT_*} value.
         *
         * @return one bit of the low 16; 0 for {@link #UNKNOWN}
         */
        public int id() {
            return id;
        }

        /**
         * The type of a libzmq event id.
         *
         * @param id an event id as libzmq sends it
         * @return the type whose {@link #id()} it is, or {@link #UNKNOWN}
         */
        public static Type fromId(int id) {
            for (Type t : ALL_TYPES) {
                if (t.id == id) {
                    return t;
                }
            }
            return UNKNOWN;
        }

        /**
         * The event mask that stands for {@code types}, for {@link ZmqSocket#monitor(int)}.
         *
         * @param types one or more known types
         * @return the bitwise or of their ids
         * @throws IllegalArgumentException when {@code types} is empty or holds {@link #UNKNOWN},
         *     which has no bit
         */
        public static int mask(Set<Type> types) {
            if (types.isEmpty()) {
                throw new IllegalArgumentException("no event types given: types=[] (monitoring nothing would deliver nothing)");
            }
            int mask = 0;
            for (Type t : types) {
                if (t == UNKNOWN) {
                    throw new IllegalArgumentException("UNKNOWN is not an event libzmq can be asked for: types=" + types);
                }
                mask |= t.id;
            }
            return mask;
        }

        /**
         * The mask of every event, libzmq's {@code ZMQ_EVENT_ALL} (0xFFFF): the events above and
         * any a later libzmq adds within the same 16 bits.
         */
        public static final int ALL = LibZmq.ZMQ_EVENT_ALL;
    }
}
