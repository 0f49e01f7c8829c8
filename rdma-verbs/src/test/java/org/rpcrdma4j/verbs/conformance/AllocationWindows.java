package org.rpcrdma4j.verbs.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Measures that a path allocates nothing once warm, whenever the JIT gets to it. A path compiled late (a loaded
 * machine, C2 still queued) allocates in the interpreter what escape analysis removes later, so a single measured
 * window after a fixed warm-up says more about the machine than about the code. Here the same window of work runs
 * again until one allocates less than the bound, up to a number of windows: code that allocates per operation
 * allocates in every window and still fails.
 */
public final class AllocationWindows {
    /** One window of work. */
    public interface Work {
        void run() throws Exception;
    }

    /**
     * @param least   the fewest bytes a window allocated
     * @param windows every window's bytes, in order (for the failure message)
     */
    public record Result(long least, List<Long> windows) {
    }

    private AllocationWindows() {
    }

    /**
     * Runs {@code work} up to {@code maxWindows} times, reading {@code allocatedBytes} (a monotonic counter) around
     * each, and stops at the first window below {@code bound}.
     */
    public static Result measure(int maxWindows, long bound, LongSupplier allocatedBytes, Work work) throws Exception {
        List<Long> windows = new ArrayList<>();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < maxWindows; i++) {
            long before = allocatedBytes.getAsLong();
            work.run();
            long bytes = allocatedBytes.getAsLong() - before;
            windows.add(bytes);
            least = Math.min(least, bytes);
            if (bytes < bound) {
                break;
            }
        }
        return new Result(least, List.copyOf(windows));
    }
}
