/**
 * Reliability campaigns: long runs of real traffic between the project's client and server transports (and NFSv3 on
 * top) on the software iWARP device, with faults injected by {@link org.rpcrdma4j.it.fault}, hostile peers, and
 * checks that nothing hangs, no byte arrives wrong, no registered memory stays reachable by the peer, and every pool
 * returns to its full count. Each campaign prints one line of figures ({@code [reliability] <campaign>: ...}).
 * <p>
 * Sizes: the normal test run uses the figures of the README; {@code -Pfuzz} raises the fuzz campaign to a million
 * inputs (system property {@code reliability.fuzz.inputs}).
 */
package org.rpcrdma4j.it.reliability;
