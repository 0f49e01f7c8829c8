package org.rpcrdma4j.nfs.server;

import java.io.IOException;
import java.util.List;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrBoolean;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrInt;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * A minimal, read-only portmapper (program 100000, version 2, RFC 1833) that knows only the embedded server's own
 * programs: for clients that insist on asking portmap for the MOUNT and NFS ports. GETPORT answers from a fixed
 * table, DUMP lists it, SET and UNSET are refused (FALSE); CALLIT is not offered.
 */
public final class PortmapProgram implements RpcDispatchable {
    public static final int PROGRAM = 100000;
    public static final int VERSION = 2;
    public static final int PROTO_TCP = 6;
    public static final int PROTO_UDP = 17;

    /** One {@code mapping}: program, version, protocol, port. */
    public record Mapping(int program, int version, int protocol, int port) implements XdrAble {
        @Override
        public void xdrDecode(XdrDecodingStream xdr) {
            throw new UnsupportedOperationException("immutable; decode with MappingArgs");
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(program);
            xdr.xdrEncodeInt(version);
            xdr.xdrEncodeInt(protocol);
            xdr.xdrEncodeInt(port);
        }
    }

    private static final class MappingArgs implements XdrAble {
        int program;
        int version;
        int protocol;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException {
            program = Nfs3Xdr.decodeInt(xdr);
            version = Nfs3Xdr.decodeInt(xdr);
            protocol = Nfs3Xdr.decodeInt(xdr);
            Nfs3Xdr.decodeInt(xdr); // port: ignored in a query
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            throw new UnsupportedOperationException();
        }
    }

    private final List<Mapping> table;

    public PortmapProgram(List<Mapping> table) {
        this.table = List.copyOf(table);
    }

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        switch (call.getProcedure()) {
            case 0 -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(XdrVoid.XDR_VOID);
            }
            case 1, 2 -> { // SET, UNSET
                call.retrieveCall(new MappingArgs());
                call.reply(XdrBoolean.False);
            }
            case 3 -> { // GETPORT
                MappingArgs q = new MappingArgs();
                call.retrieveCall(q);
                int port = 0;
                for (Mapping m : table) {
                    if (m.program() == q.program && m.version() == q.version && m.protocol() == q.protocol) {
                        port = m.port();
                        break;
                    }
                }
                call.reply(new XdrInt(port));
            }
            case 4 -> { // DUMP
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(new XdrAble() {
                    @Override
                    public void xdrDecode(XdrDecodingStream xdr) {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public void xdrEncode(XdrEncodingStream xdr) {
                        for (Mapping m : table) {
                            xdr.xdrEncodeBoolean(true);
                            m.xdrEncode(xdr);
                        }
                        xdr.xdrEncodeBoolean(false);
                    }
                });
            }
            default -> call.failProcedureUnavailable();
        }
    }
}
