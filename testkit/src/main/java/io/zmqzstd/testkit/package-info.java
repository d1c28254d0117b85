/**
 * Test support shared by the modules' tests, a test-scoped dependency only: {@link
 * io.zmqzstd.testkit.ForkedJvm} runs a test class's {@code main} in a child JVM, {@link
 * io.zmqzstd.testkit.Ports} picks a loopback port that a reconnecting socket cannot take as its own.
 */
package io.zmqzstd.testkit;
