/**
 * Test support shared by the modules' tests, a test-scoped dependency only: {@link
 * io.zmqzstd.testkit.ForkedJvm} runs a test class's {@code main} in a child JVM.
 */
package io.zmqzstd.testkit;
