package io.zmqzstd.transport.internal;

import org.junit.jupiter.api.Test;

import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ErrnoTest {

    @Test
    void shouldChooseErrnoValuesByOperatingSystem() {
        assertEquals(LibZmq.Errno.LINUX, LibZmq.Errno.forOs("Linux"));
        assertEquals(LibZmq.Errno.MACOS, LibZmq.Errno.forOs("Mac OS X"));
        assertEquals(new LibZmq.Errno(4, 11, 12, 22, 113, 98, 24, 2, 19, 36, 93), LibZmq.Errno.LINUX);
        assertEquals(new LibZmq.Errno(4, 35, 12, 22, 65, 48, 24, 2, 19, 63, 43), LibZmq.Errno.MACOS);
    }

    @Test
    void shouldUseTheLinuxValuesOnLinux() {
        assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux"), "runs on Linux only");
        assertEquals(LibZmq.Errno.LINUX, LibZmq.ERRNO_VALUES);
        assertEquals(11, LibZmq.EAGAIN);
        assertEquals(113, LibZmq.EHOSTUNREACH);
        assertEquals(4, LibZmq.EINTR);
    }

    /**
     * Whatever the OS, the chosen numbers are the ones libzmq, as compiled for this system, gives
     * those meanings (it names EHOSTUNREACH itself, by the system's constant; the rest come from
     * the C library's strerror).
     */
    @Test
    void shouldMatchTheCLibrarysMessagesForTheChosenValues() {
        assertEquals("Resource temporarily unavailable", LibZmq.strerror(LibZmq.EAGAIN));
        assertEquals("Host unreachable", LibZmq.strerror(LibZmq.EHOSTUNREACH));
        assertEquals("Interrupted system call", LibZmq.strerror(LibZmq.EINTR));
        assertEquals("Cannot allocate memory", LibZmq.strerror(LibZmq.ENOMEM));
        assertEquals("Invalid argument", LibZmq.strerror(LibZmq.EINVAL));
        assertEquals("Address already in use", LibZmq.strerror(LibZmq.EADDRINUSE));
        assertEquals("Too many open files", LibZmq.strerror(LibZmq.EMFILE));
    }
}
