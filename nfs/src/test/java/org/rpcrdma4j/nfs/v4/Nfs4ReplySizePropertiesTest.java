package org.rpcrdma4j.nfs.v4;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;
import org.rpcrdma4j.nfs.binding.Nfs3UpperLayerBinding;

/**
 * {@code maxInlineReplySize} is an upper bound: for generated COMPOUND calls and generated replies that match them
 * (results of the right size for the arguments: requested attributes only, READ data up to the count, READDIR within
 * maxcount, one status per TEST_STATEID stateid; any operation may fail with its error arm and end the reply), the
 * reply without its first READ or READLINK data never exceeds the bound, whenever there is one.
 */
class Nfs4ReplySizePropertiesTest {
    private static final Nfs4UpperLayerBinding ULB = Nfs4UpperLayerBinding.INSTANCE;

    @Property(tries = 500)
    void noReplyExceedsTheBound(@ForAll long seed, @ForAll @IntRange(max = 2) int minor,
                                @ForAll @IntRange(max = 8) int n, @ForAll @IntRange(min = -1, max = 8) int failAt,
                                @ForAll @IntRange(max = 64) int tagLength) throws Exception {
        Random r = new Random(seed);
        byte[] tag = new byte[tagLength];
        r.nextBytes(tag);
        int[] ops = OperationGenerator.callOperations(minor);
        XdrWriter call = GeneratedCompound.callHeader(tag, minor, n);
        XdrWriter results = new XdrWriter();
        int answered = 0;
        int status = Nfs4.NFS4_OK;
        boolean itemRemoved = false;
        for (int i = 0; i < n; i++) {
            GeneratedOperation g = OperationGenerator.generate(ops[r.nextInt(ops.length)], minor, r);
            call.raw(g.callBytes());
            if (status != Nfs4.NFS4_OK) {
                continue; // the reply ended at the failure
            }
            answered++;
            if (i == failAt) {
                results.raw(g.errorBytes());
                status = g.errorStatus();
            } else if (g.op() == Nfs4.OP_READ || g.op() == Nfs4.OP_READLINK) {
                long limit = g.op() == Nfs4.OP_READ
                        ? Integer.toUnsignedLong(ByteBuffer.wrap(g.args()).getInt(Nfs4.STATEID_SIZE + 8)) : 300;
                byte[] data = new byte[(int) Math.min(limit, r.nextInt(300))];
                results.word(g.op()).word(Nfs4.NFS4_OK);
                if (g.op() == Nfs4.OP_READ) {
                    results.bool(r.nextBoolean());
                }
                if (itemRemoved) {
                    results.opaque(data); // only the first READ-like result moves into the Write chunk
                } else {
                    results.word(data.length);
                    itemRemoved = true;
                }
            } else {
                results.raw(g.okBytes());
            }
        }
        byte[] reply = GeneratedCompound.replyHeader(status, tag, answered).raw(results.bytes()).bytes();
        long bound = ULB.maxInlineReplySize(Nfs4.VERSION, Nfs4.PROC_COMPOUND, Unpooled.wrappedBuffer(call.bytes()));
        Statistics.label("bounded").collect(bound >= 0);
        if (bound >= 0) {
            assertThat((long) reply.length).as("results of a bounded reply")
                    .isLessThanOrEqualTo(bound - Nfs3UpperLayerBinding.MAX_REPLY_HEADER);
        }
        Statistics.label("bounded").coverage(c -> c.check(true).percentage(p -> p >= 10));
    }
}
