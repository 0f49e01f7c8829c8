package org.rpcrdma4j.xprt.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.junit.jupiter.api.Test;

/** Several bindings of one program (NFSv3 and NFSv4 are both 100003), told apart by version. */
class BindingsTest {
    private final OpaqueBinding v3 = new OpaqueBinding(100003, 3, 4);
    private final OpaqueBinding v4 = new OpaqueBinding(100003, 4, 4);

    @Test
    void aCallsBindingIsTheFirstOfItsProgramThatSupportsItsVersion() {
        Bindings bindings = new Bindings(List.of(v3, v4));
        assertThat(bindings.find(100003, 3)).isSameAs(v3);
        assertThat(bindings.find(100003, 4)).isSameAs(v4);
        assertThat(bindings.find(100003, 2)).isNull();
        assertThat(bindings.find(100005, 3)).isNull();
        // the order given does not matter when the versions do not overlap
        assertThat(new Bindings(List.of(v4, v3)).find(100003, 3)).isSameAs(v3);
    }

    @Test
    void aTransportTakesOneBindingPerProgram() {
        assertThatThrownBy(() -> Bindings.checkOnePerProgram(List.of(v3), v4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("program 100003");
        Bindings.checkOnePerProgram(List.of(v3), new OpaqueBinding(100005, 3, 4));
        // the client's and the server's builders alike
        assertThatThrownBy(() -> org.rpcrdma4j.xprt.client.RdmaClientConfig.builder().binding(v3).binding(v4))
                .isInstanceOf(IllegalArgumentException.class);
        org.rpcrdma4j.xprt.server.RdmaRpcServer.Builder server = org.rpcrdma4j.xprt.server.RdmaRpcServer.builder()
                .binding(v3);
        assertThatThrownBy(() -> server.binding(v4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("program " + v3.program());
        assertThat(server.hasBinding(v3.program())).isTrue();
        assertThat(server.hasBinding(100005)).isFalse();
    }

    @Test
    void eachProgramVersionOfAServerGetsItsOwnBinding() {
        RpcDispatchable nothing = (RpcCall call) -> {
            throw new IOException("not called");
        };
        ProgramTable table = new ProgramTable(Map.of(new OncRpcProgram(100003, 3), nothing,
                new OncRpcProgram(100003, 4), nothing, new OncRpcProgram(100005, 3), nothing),
                List.of(v3, v4));
        assertThat(table.find(100003, 3).binding()).isSameAs(v3);
        assertThat(table.find(100003, 4).binding()).isSameAs(v4);
        assertThat(table.find(100005, 3).binding()).isNull();
    }
}
