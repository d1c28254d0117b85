package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The scripts in benchmark/scripts given bad arguments say what was wrong and how to call them, and exit 2,
 * before they start anything (no JMH run, no build, and without benchmarks.jar); -h prints the usage and
 * exits 0. {@code {empty}} in the arguments is an empty directory.
 */
class ScriptArgumentsTest {

    private static final Path SCRIPTS = Path.of("scripts").toAbsolutePath();

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "bash    ; iothread.sh       ;               ; foo 1           ; 2 ; the first argument is c or zmqzstd: foo",
        "bash    ; iothread.sh       ;               ; c x             ; 2 ; RUNS must be a whole number above 0: RUNS=x",
        "bash    ; iothread.sh       ;               ; -h              ; 0 ; Usage: [JMH_ARGS=\"-p maxLead=65536\"] benchmark/scripts/iothread.sh c|zmqzstd RUNS [WINDOW]",
        "bash    ; alloc-floor.sh    ;               ; a b             ; 2 ; one OUT directory at most: a b",
        "bash    ; cpu-budget.sh     ;               ; 1024            ; 2 ; takes no arguments (settings are environment variables): 1024",
        "bash    ; cpu-budget.sh     ; WORKERS=three ;                 ; 2 ; WORKERS must be a whole number above 0: WORKERS=three",
        "bash    ; cpu-by-library.sh ; SAMELIB=yes   ;                 ; 2 ; SAMELIB is 1 or 0: SAMELIB=yes",
        "bash    ; cli-threads.sh    ; ROUNDS=0      ;                 ; 2 ; ROUNDS must be a whole number above 0: ROUNDS=0",
        "python3 ; tables.py         ;               ; /nonexistent    ; 2 ; tables.py: not a directory: /nonexistent",
        "python3 ; tables.py         ;               ; {empty}         ; 2 ; no *.json in",
        "python3 ; verdict.py        ;               ; {empty}         ; 2 ; no *-r*.json in",
        "python3 ; verdict.py        ;               ; -h              ; 0 ; Usage: verdict.py [DIR]",
        "python3 ; interleaved.py    ;               ; {empty}         ; 2 ; no *-j*.txt in",
        "python3 ; alloc-floor.py    ;               ; {empty}         ; 2 ; no such file:",
        "python3 ; hop-table.py      ;               ;                 ; 2 ; 0 arguments, expected at least 1",
        "python3 ; flame-summary.py  ;               ; wall x.csv      ; 2 ; the first argument is cpu or alloc: wall",
        "python3 ; flame-summary.py  ;               ; cpu /nonexistent ; 2 ; no such file: /nonexistent",
        "python3 ; schedstat.py      ;               ; --              ; 2 ; no benchmark arguments",
    })
    void shouldSayWhatIsWrongWithTheArguments(String interpreter, String script, String env, String args, int exit,
            String text, @TempDir Path empty) throws IOException, InterruptedException {
        Assumptions.assumeTrue(!interpreter.equals("python3") || runs("python3", "--version"), "no python3 here");
        List<String> command = new ArrayList<>(List.of(interpreter, SCRIPTS.resolve(script).toString()));
        if (args != null) {
            for (String arg : args.split(" ")) {
                command.add(arg.equals("{empty}") ? empty.toString() : arg);
            }
        }
        ProcessBuilder builder = new ProcessBuilder(command).directory(empty.toFile()).redirectErrorStream(true);
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
