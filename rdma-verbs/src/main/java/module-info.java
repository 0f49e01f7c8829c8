/**
 * The verbs SPI and the software iWARP device. Providers are found with {@link java.util.ServiceLoader};
 * {@code org.rpcrdma4j.verbs.soft.internal} is the device's machinery and is not exported.
 */
module org.rpcrdma4j.verbs {
    requires org.slf4j;

    exports org.rpcrdma4j.verbs;
    exports org.rpcrdma4j.verbs.util;
    exports org.rpcrdma4j.verbs.soft;
    exports org.rpcrdma4j.verbs.soft.wire;

    uses org.rpcrdma4j.verbs.RdmaProvider;

    provides org.rpcrdma4j.verbs.RdmaProvider with org.rpcrdma4j.verbs.soft.SoftIwarpProvider;
}
