package org.rpcrdma4j.verbs.ffm;

/**
 * The provider's data path in steady state, in the guest ({@link SteadyStatePair}, polled): prints how many bytes the
 * calling thread allocated over 20,000 rounds after as many to warm up (the thread's allocation counter, which JMH's
 * gc profiler reads too; {@link FfmSteadyStateBenchmark} measures every thread, the device thread's too). Argument:
 * the IPv4 address of the RDMA interface.
 */
public final class GuestSteadyState {
    private GuestSteadyState() {
    }

    public static void main(String[] args) throws Exception {
        boolean byThread = args.length > 1 && args[1].equals("threads");
        try (SteadyStatePair pair = new SteadyStatePair(args[0], byThread && args.length > 2
                && args[2].equals("notify"))) {
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            int rounds = 20_000;
            for (int i = 0; i < rounds; i++) {
                pair.round();
            }
            long[] ids = threads.getAllThreadIds();
            long[] before = threads.getThreadAllocatedBytes(ids);
            long mine = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < rounds; i++) {
                pair.round();
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - mine;
            long[] after = threads.getThreadAllocatedBytes(ids);
            System.out.println("provider steady state: " + rounds + " rounds of receive, WRITE+SEND and polls, "
                    + allocated + " bytes allocated");
            if (byThread) {
                for (int i = 0; i < ids.length; i++) {
                    java.lang.management.ThreadInfo info = threads.getThreadInfo(ids[i]);
                    System.out.println("  " + (info == null ? ids[i] : info.getThreadName()) + ": "
                            + (after[i] - before[i]) + " bytes");
                }
            }
        }
    }
}
