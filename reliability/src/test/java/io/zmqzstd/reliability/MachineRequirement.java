package io.zmqzstd.reliability;

import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from the machine (root, the zstd command line, packaged jars) and what happens
 * when it is missing: the test is skipped with the reason, unless the machine is one where every
 * test must run. That is the case when the environment has {@value #REQUIRE_ALL_ENV}=true (.ci/run
 * sets it after installing everything) or the test's own system property is true: then the test
 * fails with the reason, so that it cannot silently stop running.
 */
final class MachineRequirement {

    /** Environment variable set by .ci/run: every test that depends on the machine must run, none may skip. */
    static final String REQUIRE_ALL_ENV = "ZMQZSTD_REQUIRE_ALL";

    private MachineRequirement() {
    }

    /**
     * Does nothing when {@code met}; otherwise skips the calling test with {@code reason}, or fails it
     * where every test must run ({@value #REQUIRE_ALL_ENV}=true, or {@code requireProperty}=true).
     */
    static void require(boolean met, String reason, String requireProperty) {
        if (met) {
            return;
        }
        if (Boolean.getBoolean(requireProperty) || Boolean.parseBoolean(System.getenv(REQUIRE_ALL_ENV))) {
            throw new AssertionError(reason + " (" + requireProperty + "=true or " + REQUIRE_ALL_ENV
                    + "=true: this test must run here)");
        }
        Assumptions.abort(reason + " (set " + requireProperty + "=true to make this a failure)");
    }
}
