/**
 * The end-to-end harness ({@link org.rpcrdma4j.benchmarks.harness.Harness}): one command that measures, in one run
 * on loopback, the wire limits (raw Java NIO TCP, the software iWARP device's RDMA WRITE and READ at 1 MiB), NFSv3
 * READ and WRITE (1 MiB sequential, 4 KiB random, 16 outstanding) and GETATTR round trips (p50, p99) over RDMA, over
 * oncrpc4j TCP and with EMC's NFSv3 client over TCP against one embedded server ({@code NfsFixture}: an
 * {@code NfsServer} over a {@code MemoryVfs} whose programs an {@code RdmaRpcServer} also serves), allocation per RPC
 * across the whole JVM, and memory per mount ({@code MountMemoryProbe}, in a child JVM), and prints markdown tables
 * with absolute figures, ratios and the targets.
 * <p>
 * Each figure has its own warm-up; the columns of an NFS row run in rounds, one after the other, against the same
 * server, and the wire rows (and READ 1 MiB over RDMA against raw TCP, WRITE 1 MiB over RDMA against oncrpc4j TCP)
 * take turns in 200 ms slices, so that the two sides of a ratio see the machine in the same state. The {@code --quick} mode, run by the unit tests, keeps the
 * harness working; its figures mean nothing.
 */
package org.rpcrdma4j.benchmarks.harness;
