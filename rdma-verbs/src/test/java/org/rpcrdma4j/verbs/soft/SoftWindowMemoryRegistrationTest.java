package org.rpcrdma4j.verbs.soft;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.FastRegMemoryRegion;
import org.rpcrdma4j.verbs.PageList;
import org.rpcrdma4j.verbs.PageTable;
import org.rpcrdma4j.verbs.PostException;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.RdmaProviders;
import org.rpcrdma4j.verbs.conformance.AbstractMemoryRegistrationConformanceTest;
import org.rpcrdma4j.verbs.conformance.ConfirmedPlacement;

/**
 * Registration per I/O on the software device mapping REG_MR as a device that binds type 2 memory windows
 * does (the capabilities rxe's windows give: no FMR, no Read with Invalidate).
 */
class SoftWindowMemoryRegistrationTest extends AbstractMemoryRegistrationConformanceTest {
    /** Placement confirmed, so that refused Writes complete in error and completed ones are placed (the suite asks). */
    static final Map<String, String> WINDOWS = ConfirmedPlacement.options(Map.of("capabilities",
            "FAST_REG,LOCAL_INV,SEND_WITH_INV,REMOTE_INV,MEMORY_WINDOW"));

    @Override
    protected RdmaDevice newDevice() throws Exception {
        return RdmaProviders.select("soft").open(WINDOWS);
    }

    /** What a window cannot bind is refused when posted: plain pages, another domain's memory, another address. */
    @Test
    void aWindowBindsOnlyARunOfItsDomainsMemoryAtItsAddress() throws Exception {
        Connection c = connect();
        FastRegMemoryRegion mr = own(c.server().pd.allocFastRegMr(2));
        RegisteredMemory backing = register(c.server().pd, 4 * 4096, Access.LOCAL_WRITE);
        PageTable table = PageTable.of(backing, 4096);
        RegisteredMemory foreign = register(c.client().pd, 4 * 4096, Access.LOCAL_WRITE);

        PageList plain = pageList(pages(2), 0, 8192, backing.iova());
        assertThatThrownBy(() -> c.server().qp.postSend(fastRegister(1, mr, plain, Access.REMOTE_WRITE
                | Access.LOCAL_WRITE))).isInstanceOf(PostException.class).hasMessageContaining("registered memory");
        PageList elsewhere = new PageList(2).addRun(PageTable.of(foreign, 4096), 1, 2).set(0, 8192,
                foreign.iova() + 4096);
        assertThatThrownBy(() -> c.server().qp.postSend(fastRegister(2, mr, elsewhere, Access.REMOTE_WRITE
                | Access.LOCAL_WRITE))).isInstanceOf(PostException.class).hasMessageContaining("protection domain");
        PageList moved = new PageList(2).addRun(table, 1, 2).set(10, 8000, backing.iova());
        assertThatThrownBy(() -> c.server().qp.postSend(fastRegister(3, mr, moved, Access.REMOTE_WRITE
                | Access.LOCAL_WRITE))).isInstanceOf(PostException.class)
                .hasMessageContaining("0x" + Long.toHexString(backing.iova() + 4096 + 10));
    }
}
