/**
 * The {@code demo} command's tour ({@link org.rpcrdma4j.mount.demo.Demo}): server and client in one process over the
 * software RDMA device, a verified file set, a throughput comparison with TCP, the counters, and a clean exit.
 */
package org.rpcrdma4j.mount.demo;
