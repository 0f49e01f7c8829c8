package org.rpcrdma4j.verbs.ffm;

import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.verbs.ffm.internal.DeviceList;
import org.rpcrdma4j.verbs.ffm.internal.Ibv;
import org.rpcrdma4j.verbs.ffm.internal.NativeLibrary;
import org.rpcrdma4j.verbs.ffm.internal.RdmaCm;

/** rdma-core's two libraries and their downcall handles, linked once per process on first use. */
record FfmRuntime(Ibv ibv, RdmaCm cm, DeviceList devices) {
    private static FfmRuntime linked;

    static synchronized FfmRuntime get() throws VerbsException {
        if (linked == null) {
            NativeLibrary ibverbs = NativeLibrary.open(NativeLibrary.IBVERBS);
            NativeLibrary rdmacm = NativeLibrary.open(NativeLibrary.RDMACM);
            linked = new FfmRuntime(new Ibv(ibverbs), new RdmaCm(rdmacm), new DeviceList(ibverbs));
        }
        return linked;
    }
}
