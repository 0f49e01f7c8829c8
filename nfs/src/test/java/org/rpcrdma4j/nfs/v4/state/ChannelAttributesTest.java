package org.rpcrdma4j.nfs.v4.state;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link ChannelAttributes#negotiate}: the server grants the smaller of what was asked and what it allows. */
class ChannelAttributesTest {
    private static final ChannelAttributes SERVER = new ChannelAttributes(0, 65536, 65536, 8192, 32, 16);

    @Test
    void eachValueIsTheSmallerOfTheTwo() {
        ChannelAttributes asked = new ChannelAttributes(0, 1 << 20, 4096, 2048, 64, 4);

        assertThat(ChannelAttributes.negotiate(asked, SERVER))
                .isEqualTo(new ChannelAttributes(0, 65536, 4096, 2048, 32, 4));
    }

    @Test
    void headerPaddingIsNeverGranted() {
        ChannelAttributes asked = new ChannelAttributes(128, 1024, 1024, 1024, 8, 8);

        assertThat(ChannelAttributes.negotiate(asked, new ChannelAttributes(256, 4096, 4096, 4096, 8, 8))
                .headerPadSize()).isZero();
    }

    @Test
    void atLeastOneSlotAndOneOperationAndAtMostTheServersSlots() {
        assertThat(ChannelAttributes.negotiate(new ChannelAttributes(0, 1024, 1024, 0, 0, 0), SERVER))
                .isEqualTo(new ChannelAttributes(0, 1024, 1024, 0, 1, 1));
        assertThat(ChannelAttributes.negotiate(new ChannelAttributes(0, 1024, 1024, 0, 8, 1000), SERVER)
                .maxRequests()).isEqualTo(16);
    }

    @Test
    void valuesAreUnsigned() {
        ChannelAttributes huge = new ChannelAttributes(0, -1, -1, -1, -1, -1);

        assertThat(ChannelAttributes.negotiate(huge, SERVER)).isEqualTo(SERVER);
    }

    @Test
    void theCachedReplySizeIsAtMostTheReplySize() {
        ChannelAttributes asked = new ChannelAttributes(0, 4096, 1024, 4096, 8, 8);

        assertThat(ChannelAttributes.negotiate(asked, SERVER).maxResponseSizeCached()).isEqualTo(1024);
    }
}
