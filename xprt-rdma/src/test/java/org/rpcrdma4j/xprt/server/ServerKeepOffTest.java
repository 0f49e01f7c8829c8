package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** By default a server keeps nothing past a reply: a program's request to keep call data is declined. */
@Timeout(120)
class ServerKeepOffTest extends ServerFixture {

    @Test
    void nothingIsKeptUnlessTheServerAllowsIt() throws Exception {
        assertThat(server.bufferAllocator().keeps()).isFalse();
        List<Object> results = new CopyOnWriteArrayList<>();
        program.keeper = (call, data) -> {
            io.netty.buffer.ByteBuf k = server.bufferAllocator().keep(call, data);
            results.add(k == null ? "declined" : k);
        };
        ServerKeptCallDataTest.keepCall(client(false), 0x71, EchoProgram.pattern(64 << 10, 3));
        assertThat(results).containsExactly("declined");
        assertThat(server.counters().get(ServerCounter.KEPT_CALL_BYTES)).isZero();
        assertThat(server.counters().get(ServerCounter.KEEPS_REFUSED)).as("off is not a refusal").isZero();
        program.keeper = (call, bytes) -> { };
    }
}
