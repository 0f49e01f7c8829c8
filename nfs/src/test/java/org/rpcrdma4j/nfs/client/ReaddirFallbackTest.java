package org.rpcrdma4j.nfs.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.OncRpcSvc;
import org.dcache.oncrpc4j.rpc.OncRpcSvcBuilder;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.net.IpProtocolType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.server.ExportTable;
import org.rpcrdma4j.nfs.server.Export;
import org.rpcrdma4j.nfs.server.MountProgram;
import org.rpcrdma4j.nfs.server.Nfs3Program;
import org.rpcrdma4j.nfs.server.PooledReadBufferAllocator;
import org.rpcrdma4j.nfs.server.ServerLimits;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;
import org.rpcrdma4j.nfs.xdr.Mount3;
import org.rpcrdma4j.nfs.xdr.Nfs3;
import org.rpcrdma4j.nfs.xdr.ReaddirArgs;
import org.rpcrdma4j.nfs.xdr.ReaddirRes;

/** Against a server without READDIRPLUS, listing falls back to READDIR (once per mount). */
@Timeout(60)
class ReaddirFallbackTest {

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void listingFallsBackToReaddir(boolean answerNotsupp) throws IOException {
        MemoryVfs vfs = new MemoryVfs(1 << 20);
        ExportTable exports = new ExportTable(List.of(Export.of("/m", vfs, false)));
        Nfs3Program nfs = new Nfs3Program(exports, ServerLimits.DEFAULT, new PooledReadBufferAllocator());
        AtomicInteger plusCalls = new AtomicInteger();
        RpcDispatchable withoutPlus = call -> {
            if (call.getProcedure() != Nfs3.READDIRPLUS) {
                nfs.dispatchOncRpcCall(call);
                return;
            }
            plusCalls.incrementAndGet();
            call.retrieveCall(new ReaddirArgs(true));
            if (answerNotsupp) {
                ReaddirRes res = new ReaddirRes(true);
                res.status = Nfs3Status.NFS3ERR_NOTSUPP.wireValue();
                call.reply(res);
            } else {
                call.failProcedureUnavailable();
            }
        };
        OncRpcSvc svc = new OncRpcSvcBuilder().withTCP().withPort(0).withBindAddress("127.0.0.1")
                .withoutAutoPublish().withWorkerThreadIoStrategy().withWorkerThreadPoolSize(2)
                .withRpcService(new OncRpcProgram(Nfs3.PROGRAM, Nfs3.VERSION), withoutPlus)
                .withRpcService(new OncRpcProgram(Mount3.PROGRAM, Mount3.VERSION), new MountProgram(exports))
                .build();
        svc.start();
        try (NfsClient client = NfsClient.mount("tcp://127.0.0.1:"
                + svc.getInetSocketAddress(IpProtocolType.TCP).getPort() + "/m")) {
            client.mkdir("/d");
            client.createFile("/d/a");
            client.createFile("/d/b");
            assertThat(client.list("/d")).extracting(DirEntry::name).containsExactlyInAnyOrder("a", "b");
            assertThat(client.list("/")).extracting(DirEntry::name).containsExactly("d");
            assertThat(plusCalls.get()).isEqualTo(1);
        } finally {
            svc.stop();
        }
    }
}
