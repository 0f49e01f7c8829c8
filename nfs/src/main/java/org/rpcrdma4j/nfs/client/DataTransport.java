package org.rpcrdma4j.nfs.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.dcache.oncrpc4j.xdr.XdrAble;

/**
 * How the NFS client sends a call and gets its result: the seam between the NFS layer and a transport. The TCP
 * implementation ({@link TcpDataTransport}) runs over oncrpc4j; an RDMA implementation plugs in here through a
 * {@link DataTransportFactory} without any change above this interface.
 * <p>
 * <b>Bulk data.</b> The DDP-eligible items of RFC 8267 are visible in the types: when {@code args} is a
 * {@link org.rpcrdma4j.nfs.xdr.DdpArgument} (WRITE, SYMLINK), its {@code item()} is the caller's buffer. A stream
 * transport encodes the arguments flat ({@code xdrEncode}, which references the buffer without copying where the
 * stream allows); an RDMA transport calls {@code encodeBeforeItem}, writes the length word, and offers
 * {@code item()} to the server as a read chunk. When {@code result} is a {@link org.rpcrdma4j.nfs.xdr.DdpResult}
 * (READ), its {@code sink()} is the caller's buffer: a stream transport decodes the flat reply, copying the data into
 * the sink once; an RDMA transport registers the sink's writable bytes as a write chunk, lets the server place the
 * data there, and calls {@code decodeReduced}.
 * <p>
 * Thread-safe: calls may be issued from any thread and may be outstanding concurrently (pipelined).
 */
public interface DataTransport extends AutoCloseable {

    /**
     * Sends a call. The returned future completes with {@code result} decoded, or exceptionally with an
     * {@link RpcCallException} ({@link RpcTimeoutException}, {@link RpcConnectionException},
     * {@link RpcDeniedException}, {@link RpcNotAcceptedException}, {@link RpcBadReplyException}).
     * <p>
     * Borrows {@code args} (and a DDP item's buffer) and {@code result} (and its sink) until the future completes.
     */
    <T extends XdrAble> CompletableFuture<T> call(int program, int version, int procedure, XdrAble args, T result);

    /**
     * A buffer of {@code size} bytes' capacity for READ or WRITE data, in memory this transport moves without a copy
     * where it has such memory (RDMA: its registered memory), else on the heap. The caller releases it.
     */
    default ByteBuf allocateData(int size) throws IOException {
        return Unpooled.buffer(size, size);
    }

    /** Whether {@code b} is memory this transport moves without a copy ({@link #allocateData}'s). */
    default boolean movesWithoutCopy(ByteBuf b) {
        return false;
    }

    /**
     * The most READ or WRITE data one call may carry over this transport ({@link Integer#MAX_VALUE} for no limit of
     * its own, as on a stream).
     */
    default int maxDataPerCall() {
        return Integer.MAX_VALUE;
    }

    /**
     * Which connection the calls go over now: a number that changes whenever the transport connects again (0 for a
     * transport that never does). State bound to a connection, such as NFSv4.1's back channel, is bound again when
     * it changes.
     */
    default long connectionGeneration() {
        return 0;
    }

    /**
     * How many calls the transport lets be outstanding at once: over RPC-over-RDMA the credits the server granted
     * last; {@link Integer#MAX_VALUE} where the transport sets no limit of its own. More may be issued; they wait.
     */
    default int maxConcurrentCalls() {
        return Integer.MAX_VALUE;
    }

    /**
     * The largest reply this transport takes for a call whose reply it cannot bound in advance (RDMA: the Reply
     * chunk provided for such calls); {@link Integer#MAX_VALUE} for no limit of its own.
     */
    default int maxUnboundedReply() {
        return Integer.MAX_VALUE;
    }

    /**
     * Whether calls of {@code program} the server sends on this connection's reverse direction are served
     * ({@link NfsClientConfig#withReverseProgram}); false where the transport has no reverse direction.
     */
    default boolean servesReverseProgram(int program, int version) {
        return false;
    }

    /**
     * How a thread waiting for a reply of this transport polls for it before it parks
     * ({@link NfsClientConfig#withReplySpin}); {@link ReplySpin#NONE} where the transport does not poll.
     */
    default ReplySpin replySpin() {
        return ReplySpin.NONE;
    }

    /** The server's address. */
    InetSocketAddress remoteAddress();

    /** Closes the connection; calls still outstanding fail with {@link RpcConnectionException}. */
    @Override
    void close();
}
