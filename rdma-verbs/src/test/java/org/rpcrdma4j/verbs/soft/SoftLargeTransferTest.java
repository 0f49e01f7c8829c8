package org.rpcrdma4j.verbs.soft;

import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.conformance.AbstractLargeTransferConformanceTest;

@ParameterizedClass(name = "{0}")
@EnumSource(SoftVariant.class)
class SoftLargeTransferTest extends AbstractLargeTransferConformanceTest {
    @Parameter
    SoftVariant variant;

    @Override
    protected RdmaDevice newDevice() throws Exception {
        return variant.open();
    }

    /** The full gibibyte with the default settings; 64 MiB for the CRC and small-segment variants. */
    @Override
    protected long largeTransferBytes() {
        return variant == SoftVariant.DEFAULT ? 1L << 30 : 64L << 20;
    }
}
