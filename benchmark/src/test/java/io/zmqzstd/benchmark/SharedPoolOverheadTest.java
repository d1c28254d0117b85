package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class SharedPoolOverheadTest {

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldCountEveryMessageOfARound() throws Exception {
        try (SharedPoolOverhead.Way way = new SharedPoolOverhead.Way("inproc", 64, 1000, 2, 8192)) {
            assertTrue(way.checkedRound() > 0);
            assertTrue(way.checkedRound() > 0);
        }
    }

    /**
     * The receiver has no timeout: before a sender's failure shut the context down, the round waited
     * forever for the failed sender's messages (the timeout's separate thread abandons it).
     */
    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldEndTheRoundWithTheSendersErrorWhenASenderFails() {
        try (SharedPoolOverhead.Way way = new SharedPoolOverhead.Way("tcp", 64, 1000, 2, 8192)) {
            way.pool().close(); // every sender's first rent fails
            IllegalStateException e = assertThrows(IllegalStateException.class, way::checkedRound);
            assertTrue(e.getMessage().startsWith("a sender failed"), e.getMessage());
            assertEquals("pool is closed", e.getCause().getMessage());
        }
    }
}
