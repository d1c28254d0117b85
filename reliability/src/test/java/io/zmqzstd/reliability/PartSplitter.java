package io.zmqzstd.reliability;

import java.util.Arrays;

/**
 * How a multipart fuzz input is cut into message parts, so that the fuzzer controls both the
 * number of parts and their sizes and seeds stay readable:
 *
 * <pre>
 *   byte 0            : bits 0-1: number of parts - 1 (1..4 parts)
 *                       bits 2-3: the socket pair ({@link #route}: 0 PUSH/PULL, 1 DEALER/ROUTER,
 *                       2 PUB/SUB, 3 PUSH/PULL again)
 *   per part but last : length, 3 bytes little-endian (clamped to what is left)
 *   then              : the parts' bytes one after another; the last part takes the rest
 * </pre>
 */
final class PartSplitter {

    static final int MAX_PARTS = 4;

    private PartSplitter() {
    }

    static byte[][] split(byte[] input) {
        if (input.length == 0) {
            return new byte[][] {new byte[0]};
        }
        int parts = (input[0] & 3) + 1;
        int header = 1 + 3 * (parts - 1);
        int at = Math.min(header, input.length);
        byte[][] out = new byte[parts][];
        for (int i = 0; i < parts; i++) {
            int len;
            if (i == parts - 1) {
                len = input.length - at;
            } else {
                int h = 1 + 3 * i;
                int declared = h + 2 < input.length
                        ? (input[h] & 0xFF) | (input[h + 1] & 0xFF) << 8 | (input[h + 2] & 0xFF) << 16
                        : 0;
                len = Math.min(declared, input.length - at);
            }
            out[i] = Arrays.copyOfRange(input, at, at + len);
            at += len;
        }
        return out;
    }

    /** Number of socket pairs {@link #route} chooses from. */
    static final int ROUTES = 3;

    /** Which socket pair carries the message, 0..{@link #ROUTES}-1 (0 for an empty input). */
    static int route(byte[] input) {
        return input.length == 0 ? 0 : ((input[0] >> 2) & 3) % ROUTES;
    }

    /** {@link #join} for {@code route}. */
    static byte[] joinRouted(int route, byte[]... parts) {
        byte[] out = join(parts);
        out[0] |= (byte) (route << 2);
        return out;
    }

    static byte[] join(byte[]... parts) {
        if (parts.length < 1 || parts.length > MAX_PARTS) {
            throw new IllegalArgumentException("parts=" + parts.length);
        }
        int header = 1 + 3 * (parts.length - 1);
        int total = header;
        for (byte[] p : parts) {
            total += p.length;
        }
        byte[] out = new byte[total];
        out[0] = (byte) (parts.length - 1);
        int at = header;
        for (int i = 0; i < parts.length; i++) {
            if (i < parts.length - 1) {
                int h = 1 + 3 * i;
                out[h] = (byte) parts[i].length;
                out[h + 1] = (byte) (parts[i].length >>> 8);
                out[h + 2] = (byte) (parts[i].length >>> 16);
            }
            System.arraycopy(parts[i], 0, out, at, parts[i].length);
            at += parts[i].length;
        }
        return out;
    }
}
