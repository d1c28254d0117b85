package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zmqzstd.benchmark.pipeline.PipelineContestants;
import org.junit.jupiter.api.Test;

/**
 * {@code -Dzmqzstd.bench.ioThreads} is read strictly: {@code Integer.getInteger} ran a run given
 * {@code two} (or 0) with 1 I/O thread, so its results were labelled with a setting it did not have.
 */
class IoThreadsPropertyTest {

    @Test
    void shouldTakeAWholeNumberOfOneOrMoreAndNameAnythingElse() {
        assertEquals(1, PipelineContestants.ioThreads(null), "unset: the libraries' default");
        assertEquals(2, PipelineContestants.ioThreads("2"));
        assertEquals(3, PipelineContestants.ioThreads(" 3 "));
        for (String bad : new String[] {"two", "0", "-1", "", "2.5", "99999999999"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PipelineContestants.ioThreads(bad), bad);
            assertEquals("-Dzmqzstd.bench.ioThreads is a whole number of I/O threads, 1 or more: \"" + bad + "\"", e.getMessage());
        }
    }
}
