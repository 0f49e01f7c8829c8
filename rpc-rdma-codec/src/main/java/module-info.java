/** RPC-over-RDMA version 1 headers, chunk lists, RDMA_ERROR and RFC 8797 private data, over Netty buffers. */
module org.rpcrdma4j.codec {
    requires transitive io.netty.buffer;

    exports org.rpcrdma4j.codec;
}
