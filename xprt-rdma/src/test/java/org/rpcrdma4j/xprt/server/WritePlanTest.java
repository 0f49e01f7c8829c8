package org.rpcrdma4j.xprt.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.codec.RpcRdmaHeader;

class WritePlanTest {
    private final WritePlan plan = new WritePlan();

    private String op(int i) {
        StringBuilder sb = new StringBuilder(plan.rkey(i) + "@" + plan.remoteAddress(i) + ":" + plan.length(i) + "[");
        for (int s = plan.firstSge(i); s < plan.firstSge(i) + plan.sgeCount(i); s++) {
            sb.append(plan.sges().lkey(s)).append('/').append(plan.sges().address(s)).append('/')
                    .append(plan.sges().length(s)).append(' ');
        }
        return sb.append(']').toString();
    }

    @Test
    void fillsSegmentsInOrderNeverBeyondTheirLength() {
        RpcRdmaHeader call = new RpcRdmaHeader().beginWriteChunk().addWriteSegment(10, 100, 1000)
                .addWriteSegment(11, 100, 5000);
        SgeList source = new SgeList().add(7, 0, 150);
        assertThat(plan.add(source, call, 0, 4)).isTrue();
        assertThat(plan.count()).isEqualTo(2);
        assertThat(op(0)).isEqualTo("10@1000:100[7/0/100 ]");
        assertThat(op(1)).isEqualTo("11@5000:50[7/100/50 ]");
    }

    @Test
    void aContiguousMebibyteGivenPageByPageIsOneWriteWithOneSge() {
        RpcRdmaHeader call = new RpcRdmaHeader().beginWriteChunk().addWriteSegment(10, 1 << 20, 1L << 40);
        SgeList source = new SgeList();
        for (int page = 0; page < 256; page++) {
            source.add(7, 0x10_0000L + page * 4096L, 4096);
        }
        assertThat(source.count()).as("contiguous pieces merge into one run").isEqualTo(1);
        assertThat(plan.add(source, call, 0, 4)).isTrue();
        assertThat(plan.count()).isEqualTo(1);
        assertThat(op(0)).isEqualTo("10@" + (1L << 40) + ":" + (1 << 20) + "[7/" + 0x10_0000L + "/" + (1 << 20) + " ]");
    }

    @Test
    void gathersSeveralSourcesPerWorkRequestUpToMaxSge() {
        RpcRdmaHeader call = new RpcRdmaHeader().beginReplyChunk().addReplySegment(10, 1000, 0);
        SgeList source = new SgeList().add(1, 0, 10).add(2, 0, 10).add(3, 0, 10);
        assertThat(plan.add(source, call, WritePlan.REPLY_CHUNK, 2)).isTrue();
        assertThat(plan.count()).isEqualTo(2);
        assertThat(op(0)).isEqualTo("10@0:20[1/0/10 2/0/10 ]");
        assertThat(op(1)).isEqualTo("10@20:10[3/0/10 ]");
    }

    @Test
    void contiguousSourcesAreNotMergedAcrossWorkRequests() {
        RpcRdmaHeader call = new RpcRdmaHeader().beginWriteChunk().addWriteSegment(10, 4, 0)
                .addWriteSegment(11, 4, 0);
        SgeList source = new SgeList().add(1, 100, 8);
        assertThat(plan.add(source, call, 0, 4)).isTrue();
        assertThat(op(0)).isEqualTo("10@0:4[1/100/4 ]");
        assertThat(op(1)).isEqualTo("11@0:4[1/104/4 ]");
    }

    @Test
    void refusesWhatTheChunkCannotHold() {
        RpcRdmaHeader call = new RpcRdmaHeader().beginWriteChunk().addWriteSegment(10, 4, 0);
        assertThat(plan.add(new SgeList().add(1, 0, 5), call, 0, 4)).isFalse();
        assertThat(plan.count()).isZero();
    }
}
