package io.zmqzstd.pipeline;

import io.zmqzstd.codec.ZstdDictionary;

import java.nio.file.Path;
import java.util.List;

/**
 * Dictionary chores for a pipeline: training from sample messages, files. Thin on purpose: the
 * work is the codec's {@link ZstdDictionary}; this class adds the advice on sizes.
 *
 * <p>A dictionary pays for small messages (a few KiB and below) of a recurring shape. Give the
 * same dictionary to the sender ({@link CompressingSender.Builder#dictionary}) and to every
 * receiver ({@link DecompressingReceiver.Builder#dictionary}); frames carry its ID, and a
 * receiver may hold several and picks by ID. A sender that leaves the ID out
 * ({@link CompressingSender.Builder#dictionaryIdInFrame}) saves 4 bytes a frame, and its
 * receivers need the dictionary as
 * {@link DecompressingReceiver.Builder#dictionaryForFramesWithoutId}.
 */
public final class Dictionaries {

    /** A good default size: 16 KiB (zstd's guidance is about 100x smaller than the sample total). */
    public static final int DEFAULT_CAPACITY_BYTES = 16 * 1024;

    private Dictionaries() {
    }

    /**
     * Trains a dictionary of at most {@code capacityBytes} from sample payloads (uncompressed
     * messages as the sender would see them). Wants hundreds of samples and about 100 times the
     * capacity in total.
     *
     * @param samples the sample payloads, at least one
     * @param capacityBytes the dictionary's largest size in bytes, at least
     *     {@link ZstdDictionary#MIN_CAPACITY_BYTES} (256: libzstd trains none smaller)
     * @return the trained dictionary
     * @throws IllegalArgumentException when {@code samples} is empty or {@code capacityBytes} is
     *     below {@link ZstdDictionary#MIN_CAPACITY_BYTES}, naming it
     * @throws NullPointerException when a sample is null, naming its index
     * @throws io.zmqzstd.codec.ZstdException {@code OTHER} when zstd cannot train from them
     */
    public static ZstdDictionary train(List<byte[]> samples, int capacityBytes) {
        return ZstdDictionary.train(samples, capacityBytes);
    }

    /**
     * {@link #train(List, int)} with {@link #DEFAULT_CAPACITY_BYTES}.
     *
     * @param samples the sample payloads, at least one
     * @return the trained dictionary
     * @throws IllegalArgumentException when {@code samples} is empty
     * @throws NullPointerException when a sample is null, naming its index
     * @throws io.zmqzstd.codec.ZstdException {@code OTHER} when zstd cannot train from them
     */
    public static ZstdDictionary train(List<byte[]> samples) {
        return train(samples, DEFAULT_CAPACITY_BYTES);
    }

    /**
     * Reads a standard zstd dictionary file ({@code zstd --train} output, or {@link #save}).
     *
     * @param file the file to read
     * @return the dictionary; a file that does not start with the zstd dictionary magic is taken
     *     as raw content (ID 0)
     * @throws java.io.UncheckedIOException when the file cannot be read
     * @throws IllegalArgumentException when the file is empty, or is a zstd dictionary cut short or
     *     damaged before its content ({@link ZstdDictionary#of(byte[])} says what it checks)
     */
    public static ZstdDictionary load(Path file) {
        return ZstdDictionary.load(file);
    }

    /**
     * Writes {@code dictionary} in the standard format (usable by {@code zstd -D file}).
     *
     * @param dictionary the dictionary to write
     * @param file the file to write; created, or replaced when it exists
     * @throws java.io.UncheckedIOException when the file cannot be written
     * @throws IllegalStateException when the dictionary is closed
     */
    public static void save(ZstdDictionary dictionary, Path file) {
        dictionary.save(file);
    }
}
