package io.zmqzstd.benchmark;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.AsyncProfiler;
import org.openjdk.jmh.profile.ExternalProfiler;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.profile.ProfilerException;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.runner.WorkloadParams;

/**
 * JMH's async-profiler integration with output directories that fit in a file name: what
 * {@code -prof async} runs in {@code benchmarks.jar} ({@link BenchmarkMain} puts it in place).
 *
 * <p>JMH 1.37 writes each trial's files under a directory named by the trial's id: the benchmark's
 * full name, its mode and every parameter as {@code -name-value}. {@code PipelineBenchmark} has
 * thirteen parameters, so that name is about 270 characters, over the 255 that Linux file systems
 * allow; JMH then fails the last iteration with "File name too long" and writes no flamegraph. This
 * profiler is JMH's own, unchanged, except that the name it derives the directory from is
 * shortened when it is too long: the benchmark's class and method without the package, and only
 * the parameters not at their single declared value (those given with {@code -p} or declared with
 * several values). A name still too long is cut and ends in a hash of the full id, so two trials
 * never share a directory.
 */
public final class ShortPathAsyncProfiler implements ExternalProfiler, InternalProfiler {

    /** Longest directory name used; the file system allows 255 bytes. */
    static final int MAX_NAME = 200;

    private final AsyncProfiler delegate;

    public ShortPathAsyncProfiler(String initLine) throws ProfilerException {
        this.delegate = new AsyncProfiler(initLine);
    }

    /** The directory name for a trial: JMH's id when it fits, else the short form described above. */
    static String directoryName(BenchmarkParams params) {
        String id = params.id().replace('%', '_');
        if (id.length() <= MAX_NAME) {
            return id;
        }
        String benchmark = params.getBenchmark();
        int method = benchmark.lastIndexOf('.');
        String className = benchmark.substring(0, method);
        StringBuilder name = new StringBuilder(benchmark.substring(className.lastIndexOf('.') + 1));
        name.append('-').append(params.getMode().shortLabel());
        for (String key : params.getParamsKeys()) {
            String value = params.getParam(key);
            if (!value.equals(singleDeclaredValue(className, key))) {
                name.append('-').append(key).append('-').append(value);
            }
        }
        String shortName = name.toString().replaceAll("[^A-Za-z0-9._=-]", "_");
        if (shortName.length() <= MAX_NAME) {
            return shortName;
        }
        String hash = HexFormat.of().toHexDigits(id.hashCode());
        return shortName.substring(0, MAX_NAME - hash.length() - 1) + "-" + hash;
    }

    /**
     * The value of {@code @Param} field {@code key} of the benchmark class (or a state class its
     * benchmark methods take) when it declares exactly one, else {@code null}.
     */
    private static String singleDeclaredValue(String className, String key) {
        Class<?> benchmarkClass;
        try {
            benchmarkClass = Class.forName(className, false, ShortPathAsyncProfiler.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
        List<Class<?>> candidates = new ArrayList<>(List.of(benchmarkClass));
        for (Method m : benchmarkClass.getMethods()) {
            candidates.addAll(List.of(m.getParameterTypes()));
        }
        for (Class<?> c : candidates) {
            for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    Param p = f.getAnnotation(Param.class);
                    if (p != null && f.getName().equals(key)) {
                        return p.value().length == 1 ? p.value()[0] : null;
                    }
                }
            }
        }
        return null;
    }

    /** {@code params} whose {@link BenchmarkParams#id()} is {@link #directoryName}: all JMH's profiler reads of it. */
    private static BenchmarkParams shortened(BenchmarkParams params) {
        String name = directoryName(params);
        if (name.equals(params.id())) {
            return params;
        }
        WorkloadParams workload = new WorkloadParams();
        int order = 0;
        for (String key : params.getParamsKeys()) {
            workload.put(key, params.getParam(key), order++);
        }
        return new BenchmarkParams(params.getBenchmark(), params.generatedBenchmark(), params.shouldSynchIterations(),
                params.getThreads(), params.getThreadGroups(), params.getThreadGroupLabels(), params.getForks(),
                params.getWarmupForks(), params.getWarmup(), params.getMeasurement(), params.getMode(), workload,
                params.getTimeUnit(), params.getOpsPerInvocation(), params.getJvm(), params.getJvmArgs(),
                params.getJdkVersion(), params.getVmName(), params.getVmVersion(), params.getJmhVersion(),
                params.getTimeout()) {
            @Override
            public String id() {
                return name;
            }
        };
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        delegate.beforeIteration(shortened(benchmarkParams), iterationParams);
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
            IterationResult result) {
        return delegate.afterIteration(shortened(benchmarkParams), iterationParams, result);
    }

    @Override
    public Collection<String> addJVMInvokeOptions(BenchmarkParams params) {
        return delegate.addJVMInvokeOptions(params);
    }

    @Override
    public Collection<String> addJVMOptions(BenchmarkParams params) {
        return delegate.addJVMOptions(params);
    }

    @Override
    public void beforeTrial(BenchmarkParams benchmarkParams) {
        delegate.beforeTrial(benchmarkParams);
    }

    @Override
    public Collection<? extends Result> afterTrial(BenchmarkResult br, long pid, File stdOut, File stdErr) {
        return delegate.afterTrial(br, pid, stdOut, stdErr);
    }

    @Override
    public boolean allowPrintOut() {
        return delegate.allowPrintOut();
    }

    @Override
    public boolean allowPrintErr() {
        return delegate.allowPrintErr();
    }

    @Override
    public String getDescription() {
        return delegate.getDescription() + " (trial directories shortened to fit a file name)";
    }
}
