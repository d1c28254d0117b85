package io.zmqzstd.reliability;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * Where this process's resident memory is, read for the soaks' reports (a few file reads and one
 * diagnostic command: once per report, never per message). RSS alone cannot say whether a step came
 * from the JVM or from libzmq's and libzstd's {@code malloc}; the parts here can:
 * <ul>
 * <li>{@code /proc/self/status}: {@code VmRSS} split into {@code RssAnon} (heap, stacks, every
 * {@code malloc} arena, the pool's slabs), {@code RssFile} (mapped code and files: libjvm, the class
 * data archive, libzmq, libzstd) and {@code RssShmem}; and {@code Threads}, the process's native threads,
 * libzmq's I/O and reaper threads and the JVM's own included;</li>
 * <li>glibc's {@code mallinfo2()}: bytes {@code malloc} hands out ({@code uordblks + hblkhd}) and bytes its
 * arenas and mmapped chunks hold ({@code arena + hblkhd}), over every arena. The JVM's own share of the
 * first is NMT's {@code malloc} line, so in-use less NMT malloc is {@code malloc} outside the JVM: libzmq,
 * libzstd, libc;</li>
 * <li>the number of anonymous mappings in {@code /proc/self/maps} (a new glibc arena adds one or two, a
 * thread's stack two).</li>
 * </ul>
 * A field is -1 where the source is missing (not Linux, NMT off, a libc without {@code mallinfo2}).
 *
 * @param rssKb VmRSS
 * @param rssAnonKb RssAnon
 * @param rssFileKb RssFile
 * @param rssShmemKb RssShmem
 * @param nativeThreads Threads
 * @param mallocInUseKb mallinfo2 uordblks + hblkhd
 * @param mallocHeldKb mallinfo2 arena + hblkhd
 * @param nmtMallocKb NMT's total malloc
 * @param nmtCommittedKb NMT's total committed
 * @param anonMappings anonymous mappings in /proc/self/maps
 */
record ProcessMemory(long rssKb, long rssAnonKb, long rssFileKb, long rssShmemKb, long nativeThreads,
        long mallocInUseKb, long mallocHeldKb, long nmtMallocKb, long nmtCommittedKb, long anonMappings) {

    private static final Pattern NMT_TOTAL = Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");
    private static final Pattern NMT_MALLOC = Pattern.compile("Total: [^\\n]*\\n\\s*malloc: (\\d+)KB");

    /** {@code struct mallinfo2}: ten {@code size_t} fields (glibc 2.33 and later). */
    private static final StructLayout MALLINFO2 = MemoryLayout.structLayout(JAVA_LONG.withName("arena"),
            JAVA_LONG.withName("ordblks"), JAVA_LONG.withName("smblks"), JAVA_LONG.withName("hblks"),
            JAVA_LONG.withName("hblkhd"), JAVA_LONG.withName("usmblks"), JAVA_LONG.withName("fsmblks"),
            JAVA_LONG.withName("uordblks"), JAVA_LONG.withName("fordblks"), JAVA_LONG.withName("keepcost"));
    private static final long ARENA = MALLINFO2.byteOffset(MemoryLayout.PathElement.groupElement("arena"));
    private static final long HBLKHD = MALLINFO2.byteOffset(MemoryLayout.PathElement.groupElement("hblkhd"));
    private static final long UORDBLKS = MALLINFO2.byteOffset(MemoryLayout.PathElement.groupElement("uordblks"));

    /** {@code struct mallinfo2 mallinfo2(void)}; null where libc has none. */
    private static final MethodHandle MALLINFO2_CALL = Linker.nativeLinker().defaultLookup().find("mallinfo2")
            .map(f -> Linker.nativeLinker().downcallHandle(f, FunctionDescriptor.of(MALLINFO2)))
            .orElse(null);

    /** Reads every part now. */
    static ProcessMemory now() {
        long[] status = status("VmRSS:", "RssAnon:", "RssFile:", "RssShmem:", "Threads:");
        long inUse = -1;
        long held = -1;
        if (MALLINFO2_CALL != null) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment info = (MemorySegment) MALLINFO2_CALL.invokeExact((SegmentAllocator) arena);
                long hblkhd = info.get(JAVA_LONG, HBLKHD);
                inUse = (info.get(JAVA_LONG, UORDBLKS) + hblkhd) / 1024;
                held = (info.get(JAVA_LONG, ARENA) + hblkhd) / 1024;
            } catch (Throwable e) {
                throw new IllegalStateException("mallinfo2 failed", e);
            }
        }
        String nmt = nmtSummary();
        return new ProcessMemory(status[0], status[1], status[2], status[3], status[4], inUse, held,
                group(NMT_MALLOC, nmt, 1), group(NMT_TOTAL, nmt, 2), countAnonMappings());
    }

    /** The values, in kB or counts, of the named {@code /proc/self/status} lines, in order; -1 for a missing one. */
    static long[] status(String... names) {
        long[] out = new long[names.length];
        Arrays.fill(out, -1);
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                for (int i = 0; i < names.length; i++) {
                    if (line.startsWith(names[i])) {
                        out[i] = Long.parseLong(line.substring(names[i].length()).replaceAll("\\D", ""));
                    }
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux, or a format not understood: -1
        }
        return out;
    }

    /** Mappings in {@code /proc/self/maps} with no path (no inode, no name): -1 where there is no such file. */
    static long countAnonMappings() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/self/maps"));
            // address perms offset dev inode [path]: anonymous when the sixth field is absent
            return lines.stream().filter(l -> l.trim().split("\\s+").length == 5).count();
        } catch (IOException e) {
            return -1;
        }
    }

    /** NMT's total committed, in KB; -1 when NMT is off. */
    static long readNmtCommittedKb() {
        return group(NMT_TOTAL, nmtSummary(), 2);
    }

    /** The {@code vmNativeMemory summary} diagnostic command's output in KB; empty when NMT is off. */
    private static String nmtSummary() {
        try {
            return String.valueOf(ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary", "scale=KB"}}, new String[] {String[].class.getName()}));
        } catch (Exception e) {
            return "";
        }
    }

    private static long group(Pattern p, String text, int group) {
        Matcher m = p.matcher(text);
        return m.find() ? Long.parseLong(m.group(group)) : -1;
    }
}
