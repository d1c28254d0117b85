package io.zmqzstd.benchmark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A contestant's close closes everything it owns, in order, even what comes after a close that fails. */
class ClosingTest {

    @Test
    void shouldCloseEveryResourceInOrderAndThrowTheFirstFailureWithTheRestSuppressed() {
        List<String> closed = new ArrayList<>();
        IllegalStateException first = new IllegalStateException("receiver");
        IllegalStateException second = new IllegalStateException("pool");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> Closing.inOrder(
                () -> closed.add("sender"),
                null, // a part the contestant does not have
                () -> {
                    closed.add("receiver");
                    throw first;
                },
                () -> closed.add("context"),
                () -> {
                    closed.add("pool");
                    throw second;
                },
                () -> closed.add("arena")));
        assertSame(first, thrown);
        assertArrayEquals(new Throwable[] {second}, thrown.getSuppressed());
        assertEquals(List.of("sender", "receiver", "context", "pool", "arena"), closed);
    }

    @Test
    void shouldWrapACheckedFailure() {
        Exception checked = new Exception("closed twice");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> Closing.inOrder(() -> {
            throw checked;
        }));
        assertSame(checked, thrown.getCause());
    }
}
