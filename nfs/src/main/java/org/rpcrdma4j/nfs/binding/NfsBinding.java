package org.rpcrdma4j.nfs.binding;

import org.rpcrdma4j.nfs.v4.Nfs4UpperLayerBinding;

/**
 * The NFS program's upper-layer binding (RFC 8267) for both of its versions here: NFSv3 and NFSv4 behind one
 * {@link VersionedBinding}, since a transport takes one binding per program. Give it to an RDMA client or server that
 * carries NFS calls (the NFS client and {@code NfsRdmaServer} do).
 */
public final class NfsBinding {
    /** NFSv3 ({@link Nfs3UpperLayerBinding}) and NFSv4 ({@link Nfs4UpperLayerBinding}). */
    public static final VersionedBinding INSTANCE = VersionedBinding.of(Nfs3UpperLayerBinding.INSTANCE,
            Nfs4UpperLayerBinding.INSTANCE);

    private NfsBinding() {
    }
}
