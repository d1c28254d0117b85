/**
 * zstd compression through FFM: reused compression and decompression contexts that read and
 * write {@link java.lang.foreign.MemorySegment}s without heap allocation, dictionaries, frame
 * inspection and streams. See {@code codec/README.md}.
 */
package io.zmqzstd.codec;
