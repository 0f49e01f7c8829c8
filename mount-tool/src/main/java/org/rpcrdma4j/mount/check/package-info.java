/**
 * The data check: {@link org.rpcrdma4j.mount.check.RandomIo} runs random READs, WRITEs, truncations, COMMITs and
 * bursts of calls in flight on one file through a mounted client, and checks every byte, count and size the server
 * returns against a copy of the file it keeps; a difference is a
 * {@link org.rpcrdma4j.mount.check.DataMismatchException}.
 */
package org.rpcrdma4j.mount.check;
