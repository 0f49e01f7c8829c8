package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/**
 * The native addresses the pool's zero-copy lookups rest on, on the runtime the tests run on: the build runs this
 * class on its own Java and again on the newer JDK beside it (where Netty no longer reaches the JDK's internals).
 */
class DirectAddressesTest {

    @Test
    void theRuntimeTellsAddressesAndViewsAreWhereTheirBytesAre() {
        assertThat(DirectAddresses.available()).as("addresses known on Java %s", Runtime.version()).isTrue();
        ByteBuffer base = ByteBuffer.allocateDirect(8192);
        long at = DirectAddresses.atPosition(base);
        assertThat(at).isNotZero();

        ByteBuffer slice = base.duplicate().position(1000).limit(3000).slice();
        assertThat(DirectAddresses.atPosition(slice)).as("a slice starts at its offset").isEqualTo(at + 1000);
        slice.position(24);
        assertThat(DirectAddresses.atPosition(slice)).as("at its position").isEqualTo(at + 1024);
        ByteBuffer empty = base.duplicate().position(8192);
        assertThat(DirectAddresses.atPosition(empty)).as("an empty view too").isEqualTo(at + 8192);
        assertThat(DirectAddresses.atPosition(base.asReadOnlyBuffer().position(7))).as("read-only")
                .isEqualTo(at + 7);
    }

    @Test
    void heapMemoryHasNoAddress() {
        assertThat(DirectAddresses.atPosition(ByteBuffer.allocate(64))).isZero();
        assertThat(DirectAddresses.atPosition(ByteBuffer.wrap(new byte[64], 8, 16))).isZero();
    }
}
