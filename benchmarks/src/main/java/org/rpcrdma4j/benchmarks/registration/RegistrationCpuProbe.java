package org.rpcrdma4j.benchmarks.registration;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * CPU time per registration, the figure least disturbed by other load on the machine: runs
 * {@link RegistrationBenchmark#pipelined()} (map + post + invalidate + wait for the invalidation, 16 RPCs at a time)
 * for each strategy and size and reports, per handle, the process's CPU time (the caller's thread, the device's
 * engine threads and the runtime's together), the caller thread's own CPU time and the bytes the caller thread
 * allocated. The caller polls the completion queue while it waits, so its CPU includes that polling. Then the same
 * for {@link RegistrationLayerBenchmark} (FRWR, the registration layer alone, one thread): its thread CPU time per
 * handle is what the layer costs, unaffected by waiting or by other processes.
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar org.rpcrdma4j.benchmarks.registration.RegistrationCpuProbe [seconds]
 * </pre>
 */
public final class RegistrationCpuProbe {
    private RegistrationCpuProbe() {
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        boolean layerOnly = args.length > 1 && args[1].equals("layer");
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().getId();
        layer(seconds, threads, self);
        if (layerOnly) {
            return;
        }
        System.out.printf("%-7s %8s %14s %14s %12s %10s%n", "mode", "bytes", "process us/op", "caller us/op",
                "wall us/op", "B/op");
        for (String mode : new String[] {"FRWR", "FMR", "REG_MR"}) {
            for (int size : new int[] {4096, 1 << 20}) {
                RegistrationBenchmark b = new RegistrationBenchmark();
                b.mode = mode;
                b.size = size;
                b.setUp();
                try {
                    run(b, (long) (seconds * 1e9 / 2));
                    long ops = 0;
                    long cpu0 = os.getProcessCpuTime();
                    long own0 = threads.getCurrentThreadCpuTime();
                    long alloc0 = threads.getThreadAllocatedBytes(self);
                    long t0 = System.nanoTime();
                    ops = run(b, (long) (seconds * 1e9));
                    long wall = System.nanoTime() - t0;
                    long alloc = threads.getThreadAllocatedBytes(self) - alloc0;
                    long own = threads.getCurrentThreadCpuTime() - own0;
                    long cpu = os.getProcessCpuTime() - cpu0;
                    System.out.printf("%-7s %8d %14.3f %14.3f %12.3f %10.2f%n", mode, size, cpu / 1e3 / ops,
                            own / 1e3 / ops, wall / 1e3 / ops, (double) alloc / ops);
                } finally {
                    b.tearDown();
                }
            }
        }
    }

    private static void layer(double seconds, com.sun.management.ThreadMXBean threads, long self) throws Exception {
        System.out.printf("%-26s %8s %14s %10s%n", "layer (FRWR)", "bytes", "thread ns/op", "B/op");
        for (boolean build : new boolean[] {false, true}) {
            for (int size : new int[] {4096, 1 << 20}) {
                RegistrationLayerBenchmark b = new RegistrationLayerBenchmark();
                b.size = size;
                b.setUp();
                try {
                    runLayer(b, build, (long) (seconds * 1e9 / 2));
                    long own0 = threads.getCurrentThreadCpuTime();
                    long alloc0 = threads.getThreadAllocatedBytes(self);
                    long ops = runLayer(b, build, (long) (seconds * 1e9));
                    long alloc = threads.getThreadAllocatedBytes(self) - alloc0;
                    long own = threads.getCurrentThreadCpuTime() - own0;
                    System.out.printf("%-26s %8d %14.1f %10.3f%n",
                            build ? "buildListMapAndInvalidate" : "mapAndInvalidate", size, (double) own / ops,
                            (double) alloc / ops);
                } finally {
                    b.tearDown();
                }
            }
        }
    }

    private static long runLayer(RegistrationLayerBenchmark b, boolean build, long nanos) throws Exception {
        // the list and buffer, to rebuild the list here (as buildListMapAndInvalidate does) in any version of the class
        java.lang.reflect.Field listField = RegistrationLayerBenchmark.class.getDeclaredField("list");
        java.lang.reflect.Field bufferField = RegistrationLayerBenchmark.class.getDeclaredField("buffer");
        listField.setAccessible(true);
        bufferField.setAccessible(true);
        org.rpcrdma4j.registration.ScatterList list = (org.rpcrdma4j.registration.ScatterList) listField.get(b);
        org.rpcrdma4j.registration.RegisteredBuffer buffer =
                (org.rpcrdma4j.registration.RegisteredBuffer) bufferField.get(b);
        long ops = 0;
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 1024; i++) {
                if (build) {
                    list.clear().add(buffer, 0, b.size);
                }
                b.mapAndInvalidate();
            }
            ops += 1024;
        }
        return ops;
    }

    private static long run(RegistrationBenchmark b, long nanos) throws Exception {
        long ops = 0;
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 64; i++) {
                b.pipelined();
            }
            ops += 64L * RegistrationBenchmark.BATCH;
        }
        return ops;
    }
}
