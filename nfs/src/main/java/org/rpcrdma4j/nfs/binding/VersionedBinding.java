package org.rpcrdma4j.nfs.binding;

import io.netty.buffer.ByteBuf;
import java.util.Objects;
import org.rpcrdma4j.xprt.DataItem;
import org.rpcrdma4j.xprt.UpperLayerBinding;
import org.rpcrdma4j.xprt.XdrFormatException;

/**
 * One program's upper-layer bindings, one per version, as the single binding the RDMA transports take per program:
 * each call goes to the binding that {@linkplain UpperLayerBinding#supportsVersion supports} its version. The
 * transports look bindings up by program number (a client or server configuration holds one binding per program),
 * so a transport that carries NFSv3 and NFSv4 calls to the same program 100003 needs both behind one binding:
 * <pre>{@code
 * UpperLayerBinding nfs = VersionedBinding.of(Nfs3UpperLayerBinding.INSTANCE, Nfs4UpperLayerBinding.INSTANCE);
 * RdmaClientConfig.builder().binding(nfs) ...
 * RdmaRpcServer.builder().binding(nfs) ...
 * }</pre>
 * A version no binding supports gets what a program without a binding gets: no DDP item, no size bound.
 * <p>
 * Immutable and thread-safe when the bindings are (RFC 8267 bindings are stateless); the lookup is a scan of a few
 * entries and allocates nothing.
 */
public final class VersionedBinding implements UpperLayerBinding {
    private final int program;
    private final UpperLayerBinding[] bindings;

    private VersionedBinding(int program, UpperLayerBinding[] bindings) {
        this.program = program;
        this.bindings = bindings;
    }

    /**
     * @param bindings bindings of the same program (borrowed, kept); the first one that supports a call's version
     *                 answers for it
     * @throws IllegalArgumentException when there are none, or they belong to different programs
     */
    public static VersionedBinding of(UpperLayerBinding... bindings) {
        if (bindings.length == 0) {
            throw new IllegalArgumentException("no binding");
        }
        int program = Objects.requireNonNull(bindings[0], "binding").program();
        for (UpperLayerBinding b : bindings) {
            if (Objects.requireNonNull(b, "binding").program() != program) {
                throw new IllegalArgumentException("bindings of programs " + program + " and " + b.program()
                        + " cannot be combined: one program per binding");
            }
        }
        return new VersionedBinding(program, bindings.clone());
    }

    /** The binding that answers for {@code version}, or null. */
    public UpperLayerBinding forVersion(int version) {
        for (UpperLayerBinding b : bindings) {
            if (b.supportsVersion(version)) {
                return b;
            }
        }
        return null;
    }

    @Override
    public int program() {
        return program;
    }

    @Override
    public boolean supportsVersion(int version) {
        return forVersion(version) != null;
    }

    @Override
    public boolean locateCallItem(int version, int procedure, ByteBuf args, DataItem out) throws XdrFormatException {
        UpperLayerBinding b = forVersion(version);
        return b != null && b.locateCallItem(version, procedure, args, out);
    }

    @Override
    public boolean locateReplyItem(int version, int procedure, ByteBuf results, DataItem out)
            throws XdrFormatException {
        UpperLayerBinding b = forVersion(version);
        return b != null && b.locateReplyItem(version, procedure, results, out);
    }

    @Override
    public boolean locateReducedReplyItem(int version, int procedure, ByteBuf results, DataItem out)
            throws XdrFormatException {
        UpperLayerBinding b = forVersion(version);
        return b != null && b.locateReducedReplyItem(version, procedure, results, out);
    }

    @Override
    public long maxReplyItemLength(int version, int procedure, ByteBuf args) throws XdrFormatException {
        UpperLayerBinding b = forVersion(version);
        return b == null ? -1 : b.maxReplyItemLength(version, procedure, args);
    }

    @Override
    public long maxInlineReplySize(int version, int procedure, ByteBuf args) throws XdrFormatException {
        UpperLayerBinding b = forVersion(version);
        return b == null ? -1 : b.maxInlineReplySize(version, procedure, args);
    }

    @Override
    public long maxReplyItemLengthReduced(int version, int procedure, ByteBuf reducedArgs)
            throws XdrFormatException {
        UpperLayerBinding b = forVersion(version);
        return b == null ? -1 : b.maxReplyItemLengthReduced(version, procedure, reducedArgs);
    }

    @Override
    public long maxInlineReplySizeReduced(int version, int procedure, ByteBuf reducedArgs)
            throws XdrFormatException {
        UpperLayerBinding b = forVersion(version);
        return b == null ? -1 : b.maxInlineReplySizeReduced(version, procedure, reducedArgs);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("VersionedBinding[program ").append(program);
        for (UpperLayerBinding b : bindings) {
            s.append(", ").append(b.getClass().getSimpleName());
        }
        return s.append(']').toString();
    }
}
