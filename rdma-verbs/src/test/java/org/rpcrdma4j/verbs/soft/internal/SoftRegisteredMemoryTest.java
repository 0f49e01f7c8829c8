package org.rpcrdma4j.verbs.soft.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.soft.SoftIwarpOptions;

/**
 * Memory registered synchronously offers a distinct buffer object over its bytes for every FPDU slot of a gather
 * list, so that one gathering write can carry a segment of the region per FPDU it holds (a mebibyte in 16 segments).
 */
class SoftRegisteredMemoryTest {

    @Test
    void offersOneViewPerGatherSlotPerEngine() throws Exception {
        SoftDevice device = SoftDevice.open(SoftIwarpOptions.defaults());
        try {
            SoftPd pd = (SoftPd) device.allocProtectionDomain();
            ByteBuffer bytes = ByteBuffer.allocateDirect(1 << 20);
            bytes.put(12345, (byte) 0x5A);
            SoftRegisteredMemory mr = (SoftRegisteredMemory) pd.registerMemory(bytes, Access.LOCAL_WRITE);
            Set<ByteBuffer> views = Collections.newSetFromMap(new IdentityHashMap<>());
            views.add(mr.piece(0, 0));
            for (int v = 1; v < Gather.SLOTS; v++) {
                ByteBuffer view = mr.pieceVariant(0, 0, v);
                assertThat(view).as("variant %d", v).isNotNull();
                assertThat(view.get(12345)).as("variant %d reads the registered bytes", v).isEqualTo((byte) 0x5A);
                views.add(view);
            }
            assertThat(views).hasSize(Gather.SLOTS);
            assertThat(mr.pieceVariant(0, 0, Gather.SLOTS)).isNull();
            // the other engine's views are its own objects
            assertThat(views.contains(mr.piece(0, 1))).isFalse();
            assertThat(views.contains(mr.pieceVariant(0, 1, Gather.SLOTS - 1))).isFalse();
            mr.close();
        } finally {
            device.close();
        }
    }
}
