package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.util.List;
import java.util.Map;

import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.xprt.internal.CallScreen;
import org.rpcrdma4j.xprt.internal.ProgramTable;

class CallScreenTest {
    private static final RpcDispatchable NOTHING = (RpcCall call) -> {
        throw new IOException("not called");
    };
    private final ProgramTable programs = new ProgramTable(Map.of(
            new OncRpcProgram(100003, 3), NOTHING,
            new OncRpcProgram(100003, 4), NOTHING,
            new OncRpcProgram(100005, 3), NOTHING), List.of());
    private final CallScreen screen = new CallScreen();

    private CallScreen.Verdict screen(ByteBuf message) {
        try {
            return screen.screen(message, message.readerIndex(), message.writerIndex(), programs);
        } finally {
            message.release();
        }
    }

    @Test
    void wellFormedCallsAreDispatchedWithTheirArgumentsOffset() {
        assertThat(screen(Rpc.call(7, 100003, 3, 1, Rpc.authNone(), Rpc.ints(42)))).isEqualTo(CallScreen.Verdict.DISPATCH);
        assertThat(screen.xid()).isEqualTo(7);
        assertThat(screen.procedure()).isEqualTo(1);
        assertThat(screen.argumentsOffset()).isEqualTo(Rpc.ARGS_OFFSET_AUTH_NONE);
        assertThat(screen.entry().version()).isEqualTo(3);

        ByteBuf sys = Rpc.credential(Rpc.AUTH_SYS, Rpc.authSysBody("client", 0, 0, 1, 2));
        int credLength = sys.readableBytes();
        assertThat(screen(Rpc.call(8, 100005, 3, 0, sys, null))).isEqualTo(CallScreen.Verdict.DISPATCH);
        assertThat(screen.argumentsOffset()).isEqualTo(24 + credLength);
    }

    @Test
    void programAndVersionLookup() {
        assertThat(screen(Rpc.call(1, 100099, 1, 0, Rpc.authNone(), null))).isEqualTo(CallScreen.Verdict.PROG_UNAVAIL);
        assertThat(screen(Rpc.call(1, 100003, 2, 0, Rpc.authNone(), null))).isEqualTo(CallScreen.Verdict.PROG_MISMATCH);
        assertThat(screen.lowVersion()).isEqualTo(3);
        assertThat(screen.highVersion()).isEqualTo(4);
    }

    @Test
    void notACallOrTooShort() {
        assertThat(screen(Rpc.ints(1))).isEqualTo(CallScreen.Verdict.DROP);
        assertThat(screen(Rpc.ints(1, 1, 0, 0, 0, 0))).isEqualTo(CallScreen.Verdict.DROP_BACKCHANNEL_REPLY);
        assertThat(screen(Rpc.ints(1, 7, 2))).isEqualTo(CallScreen.Verdict.DROP);
        assertThat(screen(Rpc.ints(1, 0, 2, 100003, 3, 0, 0))).isEqualTo(CallScreen.Verdict.DROP);
        ByteBuf v3 = Rpc.call(1, 100003, 3, 0, Rpc.authNone(), null);
        v3.setInt(8, 3);
        assertThat(screen(v3)).isEqualTo(CallScreen.Verdict.RPC_MISMATCH);
    }

    @Test
    void credentialsAndVerifiersAreBoundedBeforeAnyAllocation() {
        assertThat(screen(Rpc.call(1, 100003, 3, 0, Rpc.credential(Rpc.AUTH_NONE, Unpooled.buffer().writeZero(400)),
                null))).isEqualTo(CallScreen.Verdict.DISPATCH);
        assertThat(screen(Rpc.call(1, 100003, 3, 0, Rpc.credential(Rpc.AUTH_NONE, Unpooled.buffer().writeZero(401)),
                null))).isEqualTo(CallScreen.Verdict.AUTH_ERROR);
        assertThat(screen.authStat()).isEqualTo(CallScreen.AUTH_BADCRED);
        assertThat(screen(Rpc.call(1, 100003, 3, 0, Rpc.ints(0, 0x7FFF_FFFF), null)))
                .isEqualTo(CallScreen.Verdict.AUTH_ERROR);
        assertThat(screen(Rpc.call(1, 100003, 3, 0, Rpc.ints(0, 0, 0, 8, 1), null)))
                .isEqualTo(CallScreen.Verdict.AUTH_ERROR);
        assertThat(screen.authStat()).isEqualTo(CallScreen.AUTH_BADVERF);
        assertThat(screen(Rpc.call(1, 100003, 3, 0, Rpc.ints(0, 0, 0), null))).isEqualTo(CallScreen.Verdict.AUTH_ERROR);
        assertThat(screen.authStat()).isEqualTo(CallScreen.AUTH_BADVERF);
    }

    @Test
    void authSysBodies() {
        assertThat(authSys(Rpc.authSysBody("h".repeat(255), 1, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                16))).isTrue();
        assertThat(authSys(Rpc.authSysBody("", 1, 2))).isTrue();
        assertThat(authSys(Rpc.authSysBody("h".repeat(256), 1, 2))).isFalse();
        assertThat(authSys(Rpc.authSysBody("h", 1, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)))
                .isFalse();
        assertThat(authSys(Rpc.ints(1, 0x7FFF_FFFF, 0, 0, 0))).isFalse();
        assertThat(authSys(Rpc.ints(1, -1, 0, 0, 0))).isFalse();
        assertThat(authSys(Rpc.ints(1, 0, 0, 0, 0x4000_0000))).isFalse();
        assertThat(authSys(Rpc.ints(1, 0, 0, 0, -1))).isFalse();
        assertThat(authSys(Rpc.ints(1, 0, 0, 0, 1))).as("a gid missing").isFalse();
        assertThat(authSys(Rpc.ints(1, 0, 0, 0, 0, 9))).as("a word too many").isFalse();
        assertThat(authSys(Rpc.ints(1, 0, 0))).as("gid count missing").isFalse();
        assertThat(authSys(Rpc.ints(1))).isFalse();
        for (int flavor : new int[] {Rpc.RPCSEC_GSS, Rpc.AUTH_TLS, 2, 3, 99}) {
            assertThat(screen(Rpc.call(1, 100003, 3, 0, Rpc.credential(flavor, Unpooled.buffer()), null)))
                    .as("flavor " + flavor).isEqualTo(CallScreen.Verdict.AUTH_ERROR);
            assertThat(screen.authStat()).isEqualTo(CallScreen.AUTH_BADCRED);
        }
    }

    private boolean authSys(ByteBuf body) {
        CallScreen.Verdict v = screen(Rpc.call(1, 100003, 3, 0, Rpc.credential(Rpc.AUTH_SYS, body), null));
        return v == CallScreen.Verdict.DISPATCH;
    }
}
