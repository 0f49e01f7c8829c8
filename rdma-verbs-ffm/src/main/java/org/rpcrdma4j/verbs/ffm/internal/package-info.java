/**
 * The native side: libraries and downcall handles ({@link org.rpcrdma4j.verbs.ffm.internal.NativeLibrary}),
 * {@code errno} ({@link org.rpcrdma4j.verbs.ffm.internal.Errno}), and where things are in rdma-core's structures
 * ({@link org.rpcrdma4j.verbs.ffm.internal.IbvAbi}, {@link org.rpcrdma4j.verbs.ffm.internal.RdmaCmAbi}), checked
 * against the installed headers by the module's tests. Not an API.
 */
package org.rpcrdma4j.verbs.ffm.internal;
