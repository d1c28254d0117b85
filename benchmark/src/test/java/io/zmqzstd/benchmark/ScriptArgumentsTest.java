package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The scripts in benchmark/ and benchmark/scripts given bad arguments say what was wrong and how to call them,
 * and exit 2, before they start anything (no JMH run, no build, and without benchmarks.jar); -h prints the
 * usage and exits 0. {@code {empty}} in the arguments is an empty directory. Each script runs with
 * {@code JAVA_HOME} pointing at no JDK, so that one which went on past a bad argument fails at its first JVM
 * instead of starting a benchmark.
 */
class ScriptArgumentsTest {

    private static final Path MODULE = Path.of("").toAbsolutePath();

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "bash    ; scripts/iothread.sh       ;                            ; foo 1                          ; 2 ; the first argument is c or zmqzstd: foo",
        "bash    ; scripts/iothread.sh       ;                            ; c x                            ; 2 ; RUNS must be a whole number above 0: RUNS=x",
        "bash    ; scripts/iothread.sh       ;                            ; -h                             ; 0 ; Usage: [JMH_ARGS=\"-p maxLead=65536\"] benchmark/scripts/iothread.sh c|zmqzstd RUNS [WINDOW]",
        "bash    ; scripts/alloc-floor.sh    ;                            ; a b                            ; 2 ; one OUT directory at most: a b",
        "bash    ; scripts/cpu-budget.sh     ;                            ; 1024                           ; 2 ; takes no arguments (settings are environment variables): 1024",
        "bash    ; scripts/cpu-budget.sh     ; WORKERS=three              ;                                ; 2 ; WORKERS must be a whole number above 0: WORKERS=three",
        "bash    ; scripts/cpu-by-library.sh ; SAMELIB=yes                ;                                ; 2 ; SAMELIB is 1 or 0: SAMELIB=yes",
        "bash    ; scripts/cli-threads.sh    ; ROUNDS=0                   ;                                ; 2 ; ROUNDS must be a whole number above 0: ROUNDS=0",
        "python3 ; scripts/tables.py         ;                            ; /nonexistent                   ; 2 ; tables.py: not a directory: /nonexistent",
        "python3 ; scripts/tables.py         ;                            ; {empty}                        ; 2 ; no *.json in",
        "python3 ; scripts/verdict.py        ;                            ; {empty}                        ; 2 ; no *-r*.json in",
        "python3 ; scripts/verdict.py        ;                            ; -h                             ; 0 ; Usage: verdict.py [DIR]",
        "python3 ; scripts/interleaved.py    ;                            ; {empty}                        ; 2 ; no *-j*.txt in",
        "python3 ; scripts/alloc-floor.py    ;                            ; {empty}                        ; 2 ; no such file:",
        "python3 ; scripts/hop-table.py      ;                            ;                                ; 2 ; 0 arguments, expected at least 1",
        "python3 ; scripts/hop-table.py      ;                            ; a.json -- b.json c.json        ; 2 ; one run with hop=libzmqProxy per round after --: 2 for 1 rounds",
        "python3 ; scripts/proxy-loop-table.py ;                          ;                                ; 2 ; 0 arguments, expected at least 1",
        "python3 ; scripts/proxy-loop-table.py ;                          ; /nonexistent.json              ; 2 ; no such file: /nonexistent.json",
        "python3 ; scripts/flame-summary.py  ;                            ; wall x.csv                     ; 2 ; the first argument is cpu or alloc: wall",
        "python3 ; scripts/flame-summary.py  ;                            ; cpu /nonexistent               ; 2 ; no such file: /nonexistent",
        "python3 ; scripts/schedstat.py      ;                            ; --                             ; 2 ; no benchmark arguments",
        "bash    ; run-all.sh                ;                            ; codec nope                     ; 2 ; unknown table: nope",
        "bash    ; run-all.sh                ;                            ; codec -h                       ; 0 ; raw-frames            zmqzstd at 64 B",
        "bash    ; verdict.sh                ; ROUNDS=x                   ;                                ; 2 ; ROUNDS must be a whole number above 0: ROUNDS=x",
        "bash    ; verdict.sh                ;                            ; codec nope                     ; 2 ; unknown check: nope",
        "bash    ; verdict.sh                ;                            ; codec codec-lib                ; 2 ; codec-lib needs LIBZSTD=/path/to/libzstd.so or LIBZMQ",
        "bash    ; verdict.sh                ; LIBZSTD=/nonexistent.so    ; codec-lib                      ; 2 ; LIBZSTD is not a file: LIBZSTD=/nonexistent.so",
        "bash    ; verdict.sh                ;                            ; --help                         ; 0 ; transport is zeroCopyPooled against byteArray",
        "bash    ; interleaved.sh            ; JVMS=ten                   ;                                ; 2 ; JVMS must be a whole number above 0: JVMS=ten",
        "bash    ; interleaved.sh            ; ROUNDS=0                   ;                                ; 2 ; ROUNDS must be a whole number above 0: ROUNDS=0",
        "bash    ; interleaved.sh            ; PIPELINE_IO_THREADS=two    ; pipeline:tcp:1024              ; 2 ; PIPELINE_IO_THREADS must be a whole number above 0",
        "bash    ; interleaved.sh            ; SHAREDPOOL_THRESHOLDS=8192 ; sharedpool:tcp:2048            ; 2 ; SHAREDPOOL_THRESHOLDS is two thresholds in bytes",
        "bash    ; interleaved.sh            ; PAIRS=zeroCopyPooled+all   ;                                ; 2 ; a pair of PAIRS is two ways A/B: zeroCopyPooled+all",
        "bash    ; interleaved.sh            ;                            ; transport:tcp:64 transport:tcp ; 2 ; unknown cell: transport:tcp",
        "bash    ; interleaved.sh            ;                            ; codec:tcp:1024                 ; 2 ; unknown cell: codec:tcp:1024",
        "bash    ; interleaved.sh            ;                            ; pipeline:tcp:1k                ; 2 ; unknown cell: pipeline:tcp:1k",
        "bash    ; interleaved.sh            ;                            ; -h                             ; 0 ; Cells:  transport:TRANSPORT:SIZE",
        "bash    ; profile-pipeline.sh       ;                            ; 64K                            ; 2 ; SIZE must be a whole number of bytes, at least 8: SIZE=64K",
        "bash    ; profile-pipeline.sh       ;                            ; 1024 65536                     ; 2 ; one SIZE at most: 1024 65536",
        "bash    ; profile-pipeline.sh       ;                            ; --help                         ; 0 ; Usage: benchmark/profile-pipeline.sh [SIZE]",
    })
    void shouldSayWhatIsWrongWithTheArguments(String interpreter, String script, String env, String args, int exit,
            String text, @TempDir Path empty) throws IOException, InterruptedException {
        List<String> arguments = new ArrayList<>();
        if (args != null) {
            for (String arg : args.split(" ")) {
                arguments.add(arg.equals("{empty}") ? empty.toString() : arg);
            }
        }
        assertRefused(interpreter, script, env, arguments, empty, exit, text);
    }

    /**
     * verdict.py reads a directory of verdict.sh's rounds: a file there named as a round of no check (the
     * JSON of another experiment), or one that is no JMH result, is named, where it died in a KeyError or a
     * JSON traceback before.
     */
    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "inproc-64-r1.json ; []         ; inproc-64-r1.json: inproc-64 is no check of verdict.sh",
        "pipeline-r1.json  ; [{         ; pipeline-r1.json: not a JMH JSON result",
        "codec-r2.json     ; {}         ; codec-r2.json: not a JMH JSON result: a dict, not a list of runs",
    })
    void shouldNameAFileInTheVerdictDirectoryThatIsNoRound(String file, String content, String text, @TempDir Path dir)
            throws IOException, InterruptedException {
        Files.writeString(dir.resolve(file), content);
        assertRefused("python3", "scripts/verdict.py", null, List.of(dir.toString()), dir, 2, text);
    }

    /** Runs {@code script} (from the module directory) with {@code env} (NAME=VALUE or null) in {@code dir}. */
    private static void assertRefused(String interpreter, String script, String env, List<String> args, Path dir,
            int exit, String text) throws IOException, InterruptedException {
        Assumptions.assumeTrue(!interpreter.equals("python3") || runs("python3", "--version"), "no python3 here");
        List<String> command = new ArrayList<>(List.of(interpreter, MODULE.resolve(script).toString()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        builder.environment().put("JAVA_HOME", dir.resolve("no-jdk").toString());
        if (env != null) {
            String[] kv = env.split("=", 2);
            builder.environment().put(kv[0], kv[1]);
        }
        Process p = builder.start();
        boolean ended = p.waitFor(30, TimeUnit.SECONDS);
        if (!ended) {
            // a script that went on with bad arguments: stop it and whatever it started
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(ended, script + " " + args + " was still running after 30 s: " + out);
        assertEquals(exit, p.exitValue(), out);
        assertTrue(out.contains(text), out);
        if (exit != 0) {
            assertTrue(out.toLowerCase(java.util.Locale.ROOT).contains("usage:"), "no usage after the error: " + out);
        }
    }

    private static boolean runs(String... command) {
        try {
            return new ProcessBuilder(command).redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
