/**
 * RDMA hardware through rdma-core's {@code libibverbs} and {@code librdmacm}, called with Java's Foreign Function and
 * Memory API (Java 22 and later): no native code of ours and no build step of the user's. So far: the devices and what
 * they can do ({@link org.rpcrdma4j.verbs.ffm.FfmDevices}), with typed errors carrying the failed verb and its
 * {@code errno}. The verbs SPI provider ({@code ffm}) is built on these and is not offered yet.
 */
package org.rpcrdma4j.verbs.ffm;
