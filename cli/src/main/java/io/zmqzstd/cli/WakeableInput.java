package io.zmqzstd.cli;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * send's standard input, read through its {@link FileChannel} so that another thread can end a
 * read that waits: {@link #wake()} closes the channel, and the JDK then signals the thread blocked
 * in its {@code read(2)}, which fails with {@code AsynchronousCloseException} having consumed
 * nothing (a later read fails with {@code ClosedChannelException}). A {@link FileInputStream}'s
 * own read cannot be woken that way: a signal found send there, on a quiet pipe or terminal, and
 * what it had read of an unfinished line or chunk was lost.
 *
 * <p>Each read asks for at most {@link #MAX_READ_BYTES}: the channel reads a heap array through a
 * temporary direct buffer of the size asked for, which a {@code --chunk 1G} would make 1 GiB of
 * direct memory. A read returns what the stream has, as before, so this changes no message.
 */
final class WakeableInput extends InputStream {

    /** The most one read asks the channel for. */
    static final int MAX_READ_BYTES = 1 << 20;

    private final FileChannel channel;

    private WakeableInput(FileChannel channel) {
        this.channel = channel;
    }

    /** {@code in} read through its channel when it is a file stream (standard input is), else null. */
    static WakeableInput of(InputStream in) {
        return in instanceof FileInputStream f ? new WakeableInput(f.getChannel()) : null;
    }

    /** Ends a read that waits now, and every later one (closes the channel, and the descriptor). Idempotent. */
    void wake() {
        try {
            channel.close();
        } catch (IOException e) {
            // the descriptor could not be closed: the read that waits has been signalled first all the same
        }
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n;
        do {
            n = read(one, 0, 1);
        } while (n == 0);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        return channel.read(ByteBuffer.wrap(b, off, Math.min(len, MAX_READ_BYTES)));
    }
}
