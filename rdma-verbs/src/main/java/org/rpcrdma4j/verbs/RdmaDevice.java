package org.rpcrdma4j.verbs;

/** An RDMA device (an RNIC, or the software device). */
public interface RdmaDevice extends AutoCloseable {

    String name();

    DeviceAttributes attributes();

    ProtectionDomain allocProtectionDomain() throws VerbsException;

    /** Creates a completion queue of at least {@code entries} entries. */
    CompletionQueue createCompletionQueue(int entries) throws VerbsException;

    ConnectionManager connectionManager();

    /** What the device has open now. */
    ResourceCounts resourceCounts();

    /** Closes the device: every QP goes to error (DEVICE_REMOVAL), listeners close, threads stop. Idempotent. */
    @Override
    void close();
}
