package org.rpcrdma4j.verbs;

/**
 * How to accept a connection request.
 *
 * @param privateData        the upper layer's private data for the peer
 * @param responderResources IRD we offer
 * @param initiatorDepth     ORD we want
 */
public record AcceptParameters(byte[] privateData, int responderResources, int initiatorDepth) {
    public AcceptParameters {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (responderResources < 0 || initiatorDepth < 0) {
            throw new IllegalArgumentException("IRD/ORD must not be negative");
        }
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
