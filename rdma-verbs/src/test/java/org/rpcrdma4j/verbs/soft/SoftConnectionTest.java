package org.rpcrdma4j.verbs.soft;

import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.conformance.AbstractConnectionConformanceTest;

@ParameterizedClass(name = "{0}")
@EnumSource(SoftVariant.class)
class SoftConnectionTest extends AbstractConnectionConformanceTest {
    @Parameter
    SoftVariant variant;

    @Override
    protected RdmaDevice newDevice() throws Exception {
        return variant.open();
    }
}
