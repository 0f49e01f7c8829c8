package org.rpcrdma4j.it.linux;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import org.rpcrdma4j.nfs.binding.Nfs3UpperLayerBinding;
import org.rpcrdma4j.nfs.binding.VersionedBinding;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.v4.Nfs4UpperLayerBinding;
import org.rpcrdma4j.nfs.v4.state.StateConfig;
import org.rpcrdma4j.xprt.server.RdmaRpcServer;

/** Our NFS server as the Linux suite serves it to the guest's client over RDMA. */
final class OurServers {
    private OurServers() {
    }

    /** A short lease and no grace period: the server starts fresh, with nothing to reclaim. */
    static StateConfig freshState() {
        StateConfig d = StateConfig.defaults();
        return new StateConfig(Duration.ofSeconds(15), Duration.ZERO, d.foreLimits(), d.backLimits(),
                d.maxSessionsPerClient());
    }

    /** An RDMA server on loopback over the software device for {@code nfs}'s NFSv3 and NFSv4 programs. */
    static RdmaRpcServer.Builder rdma(NfsServer nfs, String name) {
        return RdmaRpcServer.builder().bindAddress(InetAddress.getLoopbackAddress()).port(0)
                .provider("soft", Map.of()).programs(nfs.programs())
                .binding(VersionedBinding.of(Nfs3UpperLayerBinding.INSTANCE, Nfs4UpperLayerBinding.INSTANCE))
                .jmx(false).name(name);
    }
}
