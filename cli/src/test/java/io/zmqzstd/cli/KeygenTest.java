package io.zmqzstd.cli;

import io.zmqzstd.cli.InProcess.Result;
import io.zmqzstd.transport.Curve;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code keygen} as cli/README.md describes it: the pair printed without {@code --out}, and what
 * {@code --out} does to files already there, with and without {@code --force}. keygen prints through
 * {@code System.out} (no String of the secret key), which each run here captures.
 */
class KeygenTest {

    /** A finished keygen: its result, and what it printed on System.out. */
    private record Printed(Result result, String stdout) {
    }

    private static Printed keygen(String... args) {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        String[] all = new String[args.length + 1];
        all[0] = "keygen";
        System.arraycopy(args, 0, all, 1, args.length);
        try {
            System.setOut(new PrintStream(printed, true, StandardCharsets.US_ASCII));
            return new Printed(InProcess.execute(cl -> { }, all), printed.toString(StandardCharsets.US_ASCII));
        } finally {
            System.setOut(saved);
        }
    }

    /** Without --out: a {@code public=} and a {@code secret=} line of 40 Z85 characters each, halves of one pair, and a new pair each run. */
    @Test
    void shouldPrintANewMatchingPairWithoutOut() {
        Printed first = keygen();
        assertEquals(ExitCodes.OK, first.result().code(), first.result()::toString);
        assertEquals("", first.result().err(), first.result()::toString);
        List<String> lines = first.stdout().lines().toList();
        assertEquals(2, lines.size(), first::stdout);
        assertTrue(lines.get(0).startsWith("public="), first::stdout);
        assertTrue(lines.get(1).startsWith("secret="), first::stdout);
        String publicKey = lines.get(0).substring("public=".length());
        String secretKey = lines.get(1).substring("secret=".length());
        assertEquals(Curve.Z85_KEY_CHARS, publicKey.length(), first::stdout);
        assertEquals(Curve.Z85_KEY_CHARS, secretKey.length(), first::stdout);
        assertEquals(publicKey, Curve.publicKey(secretKey), "the printed halves are one pair");
        assertNotEquals(first.stdout(), keygen().stdout(), "a fresh pair each run");
    }

    /**
     * FILE there already (and no FILE.pub): refused without --force, exit 1, one line naming FILE and
     * --force; neither file written, FILE unchanged.
     */
    @Test
    void shouldWriteNeitherFileWhenTheKeyFileExists(@TempDir Path dir) throws Exception {
        Path out = Files.writeString(dir.resolve("server.key"), "an old key file\n");
        Printed p = keygen("--out", out.toString());
        assertEquals(ExitCodes.FAILURE, p.result().code(), p.result()::toString);
        assertEquals("zmq-zstd keygen: file exists: file=" + out + " (use --force to overwrite)\n", p.result().err());
        assertEquals("", p.stdout());
        assertEquals("an old key file\n", Files.readString(out));
        assertFalse(Files.exists(dir.resolve("server.key.pub")), "FILE.pub written beside an old FILE");
    }

    /**
     * --force replaces both key files with a new pair: FILE owner-only again (whatever the old one's
     * permissions were), FILE.pub the new public key, which is printed.
     */
    @Test
    void shouldReplaceBothKeyFilesWithANewPairWithForce(@TempDir Path dir) throws Exception {
        assumeTrue(dir.getFileSystem().supportedFileAttributeViews().contains("posix"), "POSIX permissions");
        Path out = dir.resolve("server.key");
        Path pub = dir.resolve("server.key.pub");
        Printed old = keygen("--out", out.toString());
        assertEquals(ExitCodes.OK, old.result().code(), old.result()::toString);
        byte[] oldPair = Files.readAllBytes(out);
        Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rw-r--r--"));

        Printed p = keygen("--out", out.toString(), "--force");
        assertEquals(ExitCodes.OK, p.result().code(), p.result()::toString);
        assertEquals("", p.result().err(), p.result()::toString);
        String publicKey = p.stdout().strip();
        assertNotEquals(old.stdout().strip(), publicKey, "the same pair as before");
        assertEquals("public=" + publicKey + "\n", Files.readString(pub));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(out)));
        assertFalse(java.util.Arrays.equals(oldPair, Files.readAllBytes(out)), "FILE not replaced");
        CurveOptions.Keys pair = CurveOptions.parse(Files.readString(out));
        assertArrayEquals(publicKey.toCharArray(), pair.publicKey());
        assertEquals(publicKey, Curve.publicKey(new String(pair.secretKey())));
    }
}
