package org.rpcrdma4j.benchmarks.harness;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Extends a warm-up until the JIT compilers have settled, so that a measured window shows the steady state and not
 * the compilation of the code it runs. On a loaded two-core machine C2 falls seconds behind: with a fixed 3-5 s
 * warm-up, a third of the process's CPU time in the window of a 1 MiB READ row was compiler threads (perf), which
 * both inflated the CPU per call and took a core from the calls.
 * <p>
 * After the fixed warm-up the load keeps running in slices of {@value #SLICE_MILLIS} ms until
 * {@value #QUIET_SLICES} slices in a row each saw less than {@value #QUIET_MILLIS} ms of compiler CPU time, or until
 * the configured bound. Compiler CPU time is read from Linux's per-thread accounting ({@code /proc/self/task}, the
 * threads named {@code C1/C2 CompilerThre...}); elsewhere from {@link CompilationMXBean#getTotalCompilationTime()},
 * which only counts compilations once they finish. Used by the harness's thread only.
 */
final class JitSettle {
    static final long SLICE_MILLIS = 1000;
    static final long QUIET_MILLIS = 30;
    static final int QUIET_SLICES = 2;
    private static final Path TASKS = Path.of("/proc/self/task");
    /** USER_HZ: Linux reports thread times in clock ticks of 10 ms. */
    private static final long MILLIS_PER_TICK = 10;

    /** One slice of load, run until the deadline (a {@link System#nanoTime()} value). */
    @FunctionalInterface
    interface Slice {
        void run(long deadlineNanos) throws Exception;
    }

    private JitSettle() {
    }

    /**
     * Runs {@code slice} in slices until the JIT is quiet or {@code max} has passed.
     *
     * @return the time spent here, and whether the JIT settled
     */
    static Outcome settle(Slice slice, Duration max) throws Exception {
        if (max.isZero() || compilationMillis() < 0) {
            return new Outcome(0, false);
        }
        long start = System.nanoTime();
        long bound = start + max.toNanos();
        int quiet = 0;
        while (quiet < QUIET_SLICES) {
            long before = compilationMillis();
            long now = System.nanoTime();
            if (now >= bound) {
                return new Outcome(now - start, false);
            }
            slice.run(Math.min(bound, now + SLICE_MILLIS * 1_000_000));
            quiet = compilationMillis() - before < QUIET_MILLIS ? quiet + 1 : 0;
        }
        return new Outcome(System.nanoTime() - start, true);
    }

    /**
     * Milliseconds of CPU the JIT compiler threads have used so far (Linux), else of compilations finished so far;
     * -1 when neither is known.
     */
    static long compilationMillis() {
        long fromProc = compilerThreadMillis();
        if (fromProc >= 0) {
            return fromProc;
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }

    private static long compilerThreadMillis() {
        if (!Files.isDirectory(TASKS)) {
            return -1;
        }
        long ticks = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                try {
                    String comm = Files.readString(task.resolve("comm")).trim();
                    if (!comm.startsWith("C1 Compiler") && !comm.startsWith("C2 Compiler")) {
                        continue;
                    }
                    String stat = Files.readString(task.resolve("stat"));
                    // fields after the parenthesised name: state is field 3, utime 14 and stime 15
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile: its time no longer counts
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return ticks * MILLIS_PER_TICK;
    }

    /**
     * @param extraNanos time the warm-up was extended by
     * @param settled    whether the JIT went quiet within the bound
     */
    record Outcome(long extraNanos, boolean settled) {
        /** A warm-up that was not extended because an earlier round of the same figure had settled the JIT. */
        static final Outcome NOT_NEEDED = new Outcome(0, true);
    }
}
