package org.rpcrdma4j.nfs.v4;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.v4.state.ChannelAttributes;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * {@code channel_attrs4} (RFC 8881 section 18.36) on the wire, for CREATE_SESSION's arguments and results alike: the
 * client encodes what it asks and decodes what it got, the server the other way round. {@code ca_rdma_ird} is
 * read and dropped, and written empty: neither side uses a session's RDMA mode.
 */
public final class ChannelAttributesXdr {
    private ChannelAttributesXdr() {
    }

    public static ChannelAttributes decode(XdrDecodingStream xdr) throws BadXdrException {
        int pad = Nfs3Xdr.decodeInt(xdr);
        int request = Nfs3Xdr.decodeInt(xdr);
        int response = Nfs3Xdr.decodeInt(xdr);
        int cached = Nfs3Xdr.decodeInt(xdr);
        int ops = Nfs3Xdr.decodeInt(xdr);
        int requests = Nfs3Xdr.decodeInt(xdr);
        int ird = Nfs3Xdr.decodeLength(xdr, 1, "ca_rdma_ird");
        for (int i = 0; i < ird; i++) {
            Nfs3Xdr.decodeInt(xdr);
        }
        return new ChannelAttributes(pad, request, response, cached, ops, requests);
    }

    public static void encode(XdrEncodingStream xdr, ChannelAttributes a) {
        xdr.xdrEncodeInt(a.headerPadSize());
        xdr.xdrEncodeInt(a.maxRequestSize());
        xdr.xdrEncodeInt(a.maxResponseSize());
        xdr.xdrEncodeInt(a.maxResponseSizeCached());
        xdr.xdrEncodeInt(a.maxOperations());
        xdr.xdrEncodeInt(a.maxRequests());
        xdr.xdrEncodeInt(0); // ca_rdma_ird<1>: none
    }
}
