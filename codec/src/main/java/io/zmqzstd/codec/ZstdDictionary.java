package io.zmqzstd.codec;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.zmqzstd.codec.internal.LibZstd;
import io.zmqzstd.nativelib.internal.IoErrors;
import io.zmqzstd.nativelib.internal.JavaArrays;
import io.zmqzstd.nativelib.internal.WholeFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * A zstd dictionary in the standard format ({@code zstd --train} writes it, {@code zstd -D}
 * reads it), with its ID.
 *
 * <p>A dictionary is plain bytes held on the heap. Compressors and decompressors given one make
 * their own native digested copy (CDict/DDict) that they own and free, so closing a dictionary
 * never invalidates a compressor or decompressor, and one dictionary may feed any number of
 * them. {@link #close()} only makes further use of this object an error. Thread-safe.
 */
public final class ZstdDictionary implements AutoCloseable {

    /** The magic number a zstd dictionary starts with, little-endian ({@code 37 A4 30 EC} on disk). */
    public static final int MAGIC = 0xEC30A437;

    private final byte[] bytes;
    private final int id;
    private volatile boolean closed;

    private ZstdDictionary(byte[] bytes, int id) {
        this.bytes = bytes;
        this.id = id;
    }

    /**
     * Trains a dictionary of at most {@code capacityBytes} from {@code samples}
     * ({@code ZDICT_trainFromBuffer}). zstd wants many samples (hundreds at least) and a total
     * sample size of about 100 times the capacity; with too few it fails. zstd calls about
     * 100 KiB a reasonable dictionary size ({@code zstd --train} defaults to 110 KiB).
     *
     * <p>The dictionary's content is taken from the samples, so it is never much larger than
     * they are: libzstd is given a buffer of the smaller of {@code capacityBytes} and the samples'
     * total size plus 64 KiB (room for the header and for zstd's largest trial segment),
     * and trains the same dictionary as with any larger capacity. A capacity of
     * {@code Integer.MAX_VALUE} costs no more memory than one of the samples' size; the training
     * itself uses a few MiB of native memory besides.
     *
     * @param samples the samples, typical messages, one per array
     * @param capacityBytes the largest dictionary wanted, in bytes, at least 256 (libzstd trains
     *     none smaller); a capacity above the samples' total size plus 64 KiB is used as that
     * @return the trained dictionary, in the standard format with its ID
     * @throws ZstdException {@code OTHER}, with zstd's error code and name, when zstd cannot
     *     train; for fewer than 7 samples, under 8 bytes of them in all, or 2^32&nbsp;&minus;&nbsp;1
     *     bytes (4 GiB less one) or more, which libzstd's trainer refuses as "Src size is
     *     incorrect", the message names that cause (the last without calling libzstd or copying
     *     the samples, with libzstd's code and name all the same); also, without calling libzstd,
     *     when the first three quarters of the samples, which its trainer learns from, hold fewer
     *     than 8 bytes (libzstd 1.5.4 crashes the process there)
     * @throws IllegalArgumentException when {@code capacityBytes} is less than 256, or
     *     {@code samples} is empty
     * @throws NullPointerException when {@code samples} is null ("samples", before the capacity
     *     is checked) or one of them is (the message names its index)
     */
    public static ZstdDictionary train(List<byte[]> samples, int capacityBytes) {
        Objects.requireNonNull(samples, "samples");
        if (capacityBytes < MIN_CAPACITY_BYTES) {
            // libzstd's trainer refuses it too, as "Destination buffer is too small"
            throw new IllegalArgumentException("capacityBytes=" + capacityBytes + " (zstd trains no dictionary under "
                    + MIN_CAPACITY_BYTES + " bytes)");
        }
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("no samples to train from: samples=0");
        }
        long total = 0;
        long learnedBytes = 0;
        int learned = learnedSamples(samples.size());
        int index = 0;
        for (byte[] s : samples) {
            if (s == null) {
                throw new NullPointerException("samples[" + index + "] is null");
            }
            total += s.length;
            learnedBytes += index < learned ? s.length : 0;
            index++;
        }
        long bufferBytes = Math.min(capacityBytes, total + TRAINING_ROOM_BYTES);
        if (samples.size() >= TRAINER_MIN_SAMPLES && total >= TRAINER_MIN_SAMPLE_BYTES && learnedBytes < TRAINER_MIN_SAMPLE_BYTES) {
            // libzstd checks the total but not the part it learns from: fastCover's count of
            // 8-byte windows there (a size_t) wraps around, its reads run past the samples, and the
            // process dies of SIGSEGV (libzstd 1.5.4; zstd --train on 8 one-byte files too)
            throw new ZstdException(ZstdException.Reason.OTHER, "dictionary training failed: not tried ("
                    + trainingSizes(samples.size(), total, capacityBytes, bufferBytes)
                    + "): too little data in the samples libzstd's trainer learns from, the first " + learned
                    + " (three quarters) hold " + learnedBytes + " bytes and it needs " + TRAINER_MIN_SAMPLE_BYTES
                    + " or more there; given fewer, libzstd 1.5.4 reads past them and crashes the process, as"
                    + " zstd --train does");
        }
        if (total >= TRAINER_MAX_SAMPLE_BYTES) {
            // libzstd refuses these before it reads a sample; copying them into native memory
            // first cost their whole size (4 GiB and more, seconds of copying) for that refusal
            long r = -(long) LibZstd.ERR_SRC_SIZE_WRONG;
            throw ZstdException.withResult(ZstdException.Reason.OTHER, "dictionary training failed: "
                    + LibZstd.errorName(r) + " (" + trainingSizes(samples.size(), total, capacityBytes, bufferBytes)
                    + ")" + trainingRefusal(r, samples.size(), total) + " (not tried: refused before the samples"
                    + " are copied)", r);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment all = arena.allocate(Math.max(1, total));
            MemorySegment sizes = arena.allocate(JAVA_LONG, samples.size());
            long p = 0;
            for (int i = 0; i < samples.size(); i++) {
                byte[] s = samples.get(i);
                MemorySegment.copy(s, 0, all, JAVA_BYTE, p, s.length);
                sizes.setAtIndex(JAVA_LONG, i, s.length);
                p += s.length;
            }
            MemorySegment dict = arena.allocate(bufferBytes);
            long r = (long) LibZstd.ZDICT_TRAIN_FROM_BUFFER.invokeExact(dict.address(), bufferBytes,
                    all.address(), sizes.address(), samples.size());
            // ZDICT results share zstd's error space: ZDICT_isError and ZDICT_getErrorName are
            // ZSTD_isError and ZSTD_getErrorName.
            if (LibZstd.isError(r)) {
                throw ZstdException.withResult(ZstdException.Reason.OTHER, "dictionary training failed: "
                        + LibZstd.errorName(r) + " (" + trainingSizes(samples.size(), total, capacityBytes, bufferBytes)
                        + ")" + trainingRefusal(r, samples.size(), total), r);
            }
            return of(dict.asSlice(0, r).toArray(JAVA_BYTE));
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
    }

    /** The sizes a failed training names: samples, their bytes, the capacity and, when bounded, the buffer used. */
    private static String trainingSizes(int samples, long sampleBytes, int capacityBytes, long bufferBytes) {
        return "samples=" + samples + ", sampleBytes=" + sampleBytes + ", capacityBytes=" + capacityBytes
                + (bufferBytes < capacityBytes ? ", used=" + bufferBytes + " (sampleBytes + " + TRAINING_ROOM_BYTES + ")" : "");
    }

    /**
     * How many of {@code samples} libzstd's trainer learns from, the first ones in order:
     * fastCover's 3:1 split, {@code (unsigned) (nbSamples * 0.75)}. The rest test the dictionary.
     */
    private static int learnedSamples(int samples) {
        return (int) (samples * 0.75);
    }

    /**
     * Which of its limits libzstd's trainer refused the samples for: {@code ZDICT_trainFromBuffer}
     * (fastCover, d=8) says only "Src size is incorrect" for each of them. Empty when {@code r} is
     * another error or the samples meet them all.
     */
    private static String trainingRefusal(long r, int samples, long sampleBytes) {
        if (LibZstd.errorCode(r) != LibZstd.ERR_SRC_SIZE_WRONG) {
            return "";
        }
        if (sampleBytes < TRAINER_MIN_SAMPLE_BYTES) {
            return ": too little sample data, libzstd's trainer needs " + TRAINER_MIN_SAMPLE_BYTES + " bytes or more in all";
        }
        if (sampleBytes >= TRAINER_MAX_SAMPLE_BYTES) {
            return ": too much sample data, libzstd's trainer takes under " + TRAINER_MAX_SAMPLE_BYTES + " bytes in all";
        }
        if (samples < TRAINER_MIN_SAMPLES) {
            return ": too few samples, libzstd's trainer needs " + TRAINER_MIN_SAMPLES
                    + " or more (it learns from three quarters of them, at least 5, and tests on the rest)";
        }
        return "";
    }

    /** fastCover splits the samples 3:1 into training and test sets and wants 5 to train on: 7 samples. */
    private static final int TRAINER_MIN_SAMPLES = 7;
    /**
     * fastCover reads the samples 8 bytes at a time and refuses fewer in all; {@link #train}
     * refuses fewer in the samples it learns from, which libzstd does not check.
     */
    private static final int TRAINER_MIN_SAMPLE_BYTES = 8;
    /** fastCover indexes the samples with 32 bits and refuses {@code (unsigned) -1} bytes or more. */
    private static final long TRAINER_MAX_SAMPLE_BYTES = 0xFFFF_FFFFL;

    /**
     * The smallest capacity libzstd's trainer takes (ZDICT_DICTSIZE_MIN): {@link #train} refuses
     * less.
     */
    public static final int MIN_CAPACITY_BYTES = 256;

    /**
     * The room {@link #train} leaves beyond the samples' total size: a trained dictionary holds at
     * most 256 bytes of header (magic, ID, entropy tables, repeat offsets; zstd's
     * {@code HBUFFSIZE}) before content taken from the samples, and libzstd's trainer skips the
     * segment sizes it tries (up to 2,000 bytes) that exceed the capacity. 64 KiB covers both,
     * so a capacity bounded to the samples' size plus this trains what an unbounded one does.
     */
    private static final int TRAINING_ROOM_BYTES = 64 * 1024;

    /**
     * Reads a dictionary file (as written by {@link #save} or {@code zstd --train}), checked as
     * {@link #of(byte[])} checks bytes.
     *
     * @param file the file; a file that does not start with the dictionary magic is taken as raw
     *     content
     * @return the dictionary
     * @throws java.io.UncheckedIOException when the file cannot be read ("cannot read dictionary:
     *     file=…, error=…", saying why: "no such file", "permission denied", "Is a directory")
     * @throws IllegalArgumentException when the file is empty, larger than an array holds (2 GiB
     *     less 8 bytes; "dictionary file too large"), or is a zstd dictionary cut short or
     *     damaged before its content (as {@link #of(byte[])}; the message names the file)
     * @throws NullPointerException when {@code file} is null
     */
    public static ZstdDictionary load(Path file) {
        Objects.requireNonNull(file, "file");
        byte[] bytes;
        try {
            long size = Files.size(file);
            if (size > JavaArrays.MAX_LENGTH) {
                // Files.readAllBytes throws OutOfMemoryError "Required array size too large" here,
                // an Error that names neither the file nor its size
                throw new IllegalArgumentException("dictionary file too large: bytes=" + size
                        + " (a dictionary is one byte[], at most " + JavaArrays.MAX_LENGTH + " bytes), file=" + file);
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read dictionary: file=" + file + ", error=" + IoErrors.describe(e), e);
        }
        try {
            return of(bytes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + ", file=" + file, e);
        }
    }

    /**
     * A dictionary over a copy of {@code bytes}: a zstd dictionary (magic EC30A437, with an ID)
     * or raw content (ID 0).
     *
     * <p>Bytes that start with the magic are read as a zstd dictionary: magic, ID, entropy tables,
     * three repeat offsets, then the content. One cut short before its content, or before the
     * content is as long as its largest repeat offset (8 bytes in trained dictionaries), is
     * refused here, as libzstd refuses it; so is one whose tables are damaged. The content has no
     * length field, so a dictionary cut inside it, beyond that, cannot be told from a whole one:
     * it loads with the whole dictionary's ID, and zstd takes it as well ({@code zstd -D}).
     * Frames made with one and read with the other name the same ID but do not decode to the
     * original: with a checksum ({@link ZstdCompressor.Builder#checksum(boolean)}) the receiver
     * reports {@code CHECKSUM} or {@code CORRUPT} instead of wrong bytes.
     *
     * @param bytes the dictionary's bytes; later changes to the array do not affect it
     * @return the dictionary
     * @throws IllegalArgumentException when {@code bytes} is empty, or starts with the magic and
     *     is cut short or damaged before its content (the message says which, with the length and
     *     the ID)
     * @throws NullPointerException when {@code bytes} is null
     */
    public static ZstdDictionary of(byte[] bytes) {
        if (Objects.requireNonNull(bytes, "bytes").length == 0) {
            throw new IllegalArgumentException("empty dictionary: bytes=0");
        }
        byte[] copy = bytes.clone();
        boolean structured = startsWithMagic(copy);
        if (structured && copy.length < HEADER_ID_END) {
            throw new IllegalArgumentException("zstd dictionary cut short: bytes=" + copy.length
                    + " (it starts with the dictionary magic but is " + copy.length
                    + " bytes long, too short for the 4-byte dictionary ID after it)");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = arena.allocateFrom(JAVA_BYTE, copy);
            int id = (int) LibZstd.GET_DICT_ID_FROM_DICT.invokeExact(n.address(), (long) copy.length);
            if (structured && !digestsBothWays(n.address(), copy.length)) {
                throw new IllegalArgumentException("zstd dictionary cut short or damaged: id="
                        + Integer.toUnsignedString(id) + ", bytes=" + copy.length
                        + " (libzstd cannot read the entropy tables and repeat offsets after the ID,"
                        + " or the content is shorter than a repeat offset)");
            }
            return new ZstdDictionary(copy, id);
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
    }

    /**
     * Whether libzstd digests the dictionary at {@code address} for decompression and for
     * compression, as every decompressor and compressor given it will: {@code ZSTD_createDDict}
     * and {@code ZSTD_createCDict} read the entropy tables and repeat offsets and return NULL
     * when they cannot. Both, because the compression side is the stricter: it refuses some
     * damaged Huffman tables that a DDict takes (as {@code ZDICT_getDictHeaderSize} refuses them,
     * "Dictionary is corrupted"). The CDict is made at level 1, the smallest tables: its entropy
     * tables are read the same at every level.
     */
    private static boolean digestsBothWays(long address, long length) throws Throwable {
        long ddict = (long) LibZstd.CREATE_DDICT.invokeExact(address, length);
        if (ddict == 0) {
            return false;
        }
        long ignored = (long) LibZstd.FREE_DDICT.invokeExact(ddict);
        long cdict = (long) LibZstd.CREATE_CDICT.invokeExact(address, length, 1);
        if (cdict == 0) {
            return false;
        }
        ignored = (long) LibZstd.FREE_CDICT.invokeExact(cdict);
        return true;
    }

    /** Magic and ID: the bytes {@link #of} asks of a dictionary that starts with the magic. */
    private static final int HEADER_ID_END = 8;

    private static boolean startsWithMagic(byte[] bytes) {
        return bytes.length >= 4 && MemorySegment.ofArray(bytes).get(ZstdFrames.INT_LE, 0) == MAGIC;
    }

    /**
     * Writes the dictionary in the standard format, usable by {@code zstd -D file}, whole or not at
     * all: into a new file beside the target, renamed into its place. A write that fails part way
     * (a full disk, a file size limit) leaves the file there before untouched, where written in
     * place it left the start of a dictionary that a reader cannot tell from a whole one. A
     * symbolic link is followed and stays a link; a file replaced keeps its permissions (and its
     * owner and group, where this process may set them); a device
     * or FIFO ({@code /dev/null}), a path under {@code /dev} or {@code /proc} ({@code /dev/stdout}
     * redirected to a file, whose descriptor a rename would leave on the old file) and a target
     * whose directory takes no new file are written through in place.
     *
     * @param file the file to write; an existing file is replaced
     * @throws java.io.UncheckedIOException when the file cannot be written ("cannot write
     *     dictionary: file=…, error=…", saying why: "no such directory: …", "permission denied",
     *     "No space left on device")
     * @throws IllegalStateException when this dictionary is closed
     * @throws NullPointerException when {@code file} is null
     */
    public void save(Path file) {
        Objects.requireNonNull(file, "file");
        ensureOpen();
        try {
            WholeFiles.write(file, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write dictionary: file=" + file + ", error=" + writeError(file, e), e);
        }
    }

    /**
     * Why {@link #save} failed, for its message: a directory that is not there (or is a file) is
     * named as such, where the failure itself is about the new file beside the target, a name the
     * caller never gave. Error path only.
     */
    private static String writeError(Path file, IOException e) {
        Path directory = file.toAbsolutePath().getParent();
        return directory != null && !Files.isDirectory(directory) ? "no such directory: " + directory : IoErrors.describe(e);
    }

    /**
     * The ID frames compressed with this dictionary carry; 0 for a raw-content dictionary.
     *
     * @return the ID, an unsigned 32-bit value ({@link Integer#toUnsignedString(int)} prints it)
     * @throws IllegalStateException when this dictionary is closed
     */
    public int id() {
        ensureOpen();
        return id;
    }

    /**
     * Whether the bytes are a zstd dictionary (they start with {@link #MAGIC}, and {@link #of}
     * checked the header after it) rather than raw content. A structured dictionary may still
     * have ID 0.
     *
     * @return {@code true} for a zstd dictionary, {@code false} for raw content
     * @throws IllegalStateException when this dictionary is closed
     */
    public boolean isStructured() {
        ensureOpen();
        return startsWithMagic(bytes);
    }

    /**
     * A copy of the dictionary's bytes; the caller owns it.
     *
     * @return a new array holding all of the dictionary's bytes
     * @throws IllegalStateException when this dictionary is closed
     */
    public byte[] bytes() {
        ensureOpen();
        return bytes.clone();
    }

    /** Idempotent. Compressors and decompressors already given this dictionary keep working. */
    @Override
    public void close() {
        closed = true;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("dictionary is closed: id=" + Integer.toUnsignedString(id));
        }
    }

    /**
     * The content's length and CRC-32C, {@code (length << 32) | crc}: what a decompressor keeps of
     * each dictionary it digests, to say whether a second one with the same ID is the same bytes
     * or other content ({@link ZstdDecompressor#addDictionary}). One pass over the bytes, when a
     * decompressor digests the dictionary anyway.
     */
    long fingerprint() {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return (long) bytes.length << 32 | crc.getValue();
    }

    /** A new CDict at {@code level}; the caller owns it and frees it with {@link #freeCDict}. */
    long createCDict(int level) {
        ensureOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = arena.allocateFrom(JAVA_BYTE, bytes);
            long cdict = (long) LibZstd.CREATE_CDICT.invokeExact(n.address(), (long) bytes.length, level);
            if (cdict == 0) {
                throw createFailed("ZSTD_createCDict", id);
            }
            LibZstd.LIVE_CDICT.incrementAndGet();
            return cdict;
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
    }

    /** A new DDict; the caller owns it and frees it with {@link #freeDDict}. */
    long createDDict() {
        ensureOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = arena.allocateFrom(JAVA_BYTE, bytes);
            long ddict = (long) LibZstd.CREATE_DDICT.invokeExact(n.address(), (long) bytes.length);
            if (ddict == 0) {
                throw createFailed("ZSTD_createDDict", id);
            }
            LibZstd.LIVE_DDICT.incrementAndGet();
            return ddict;
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
    }

    /**
     * The error for {@code function} returning NULL for a dictionary that {@link #of} digested: out
     * of memory, the only failure left.
     */
    static ZstdException createFailed(String function, int id) {
        return new ZstdException(ZstdException.Reason.OTHER, function + " failed: id=" + Integer.toUnsignedString(id));
    }

    static void freeCDict(long cdict) {
        try {
            long ignored = (long) LibZstd.FREE_CDICT.invokeExact(cdict);
            LibZstd.LIVE_CDICT.decrementAndGet();
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
    }

    static void freeDDict(long ddict) {
        try {
            long ignored = (long) LibZstd.FREE_DDICT.invokeExact(ddict);
            LibZstd.LIVE_DDICT.decrementAndGet();
        } catch (Throwable t) {
            throw LibZstd.rethrow(t);
        }
    }
}
