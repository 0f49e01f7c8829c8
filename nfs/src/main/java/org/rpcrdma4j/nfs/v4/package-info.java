/**
 * The RFC 8267 upper-layer binding of NFS version 4 (minor versions 0, 1 and 2) for RPC-over-RDMA:
 * {@link org.rpcrdma4j.nfs.v4.Nfs4UpperLayerBinding}, an {@link org.rpcrdma4j.xprt.UpperLayerBinding} for program
 * 100003 version 4, and the NFSv4 XDR knowledge it needs to find the DDP-eligible items inside a COMPOUND.
 *
 * <h2>What moves into chunks</h2>
 * NFSv4 has one procedure that matters, COMPOUND, whose arguments and results are lists of operations. RFC 8267
 * makes four items DDP-eligible: {@code WRITE4args.data} and the {@code linkdata} of CREATE's NF4LNK arm in calls,
 * {@code READ4resok.data} and {@code READLINK4resok.link} in replies. Under the default chunk list complexity a
 * COMPOUND moves at most its <em>first</em> such item per direction: a call carries at most one data Read chunk
 * (besides a possible position-zero Read chunk), a reply fills at most one Write chunk. So the binding walks the
 * COMPOUND from its start to the first item and stops there:
 * <pre>
 *   COMPOUND4args:  tag | minorversion | count | { opcode | arguments } ...
 *                                                 SEQUENCE, PUTFH, WRITE(stateid, offset, stable, [len] data)
 *                                                                                                 ^ item offset
 *   COMPOUND4res:   status | tag | count | { opcode | status | result } ...
 *                                          SEQUENCE ok, PUTFH ok, READ ok (eof, [len] data)
 *                                                                                  ^ item offset
 * </pre>
 * To reach the item it must know the exact size of every operation before it: {@code Nfs4Arguments} and
 * {@code Nfs4Results} walk the arguments and successful results of the operations of RFC 7530, RFC 8881, RFC 7862
 * and RFC 8276 (all but a few that only ever travel alone, such as EXCHANGE_ID and CREATE_SESSION, or that are
 * rare and complex, such as COPY). At anything it does not know it stops and reports no item, so the transport
 * falls back to inline, position-zero Read chunk or Reply chunk messages: slower, never wrong.
 *
 * <h2>Sizes</h2>
 * A requester provides a Write chunk as large as the first READ's count ({@code maxReplyItemLength}), and leaves
 * the Reply chunk out only when {@code Nfs4ReplySizes} can bound the whole reply from the call: every operation's
 * result must have a protocol bound (READ, WRITE, SEQUENCE, PUTFH, GETATTR of fixed-size attributes, ...); OPEN
 * (its delegation carries an ACE with a free-form name), SECINFO, GETATTR of owners or ACLs and the unknown are
 * unbounded. A READ COMPOUND of the Linux client, SEQUENCE + PUTFH + READ, is bounded at 504 bytes, RPC reply header included.
 *
 * <h2>Plugging it in</h2>
 * The binding serves both sides. A server registers the NFSv4 program (an nfs4j server, or any oncrpc4j
 * {@code RpcDispatchable} for program 100003 version 4) with {@code RdmaRpcServer} and gives it
 * {@code binding(Nfs4UpperLayerBinding.INSTANCE)}, or, to serve NFSv3 on the same port,
 * {@code binding(VersionedBinding.of(Nfs3UpperLayerBinding.INSTANCE, Nfs4UpperLayerBinding.INSTANCE))} (the
 * transports take one binding per program). A client gives the same to {@code RdmaClientConfig.Builder.binding};
 * {@code RdmaDataTransport} does so by default. Then an unmodified oncrpc4j {@code RpcCall} carrying a COMPOUND
 * with a WRITE sends the data as a Read chunk at the data item's XDR position, and one with a READ provides a Write
 * chunk as large as the READ's count; the server pulls the one and fills the other from the program's encoded reply.
 * A COMPOUND that cannot be bounded gets a Reply chunk of the client's {@code defaultMaxReplySize}, which NFSv4.1
 * clients should set to their session's {@code ca_maxresponsesize}.
 *
 * <h2>Ownership and threads</h2>
 * Every method borrows the buffer it is given and moves none of its indexes; the binding keeps one
 * {@link org.rpcrdma4j.xprt.XdrCursor} per thread, so calls allocate nothing and may come from any thread.
 *
 * <h2>File attributes</h2>
 * {@link org.rpcrdma4j.nfs.v4.Fattr4} holds the attribute numbers of RFC 8881, RFC 7862, RFC 8275 and RFC 8276 and
 * the {@code fattr4} codec that the NFSv4.1 server and client share; {@link org.rpcrdma4j.nfs.v4.Bitmap4} is the
 * {@code bitmap4} set of attribute numbers. The server fills a {@link org.rpcrdma4j.nfs.v4.Fattr4Values} from its
 * {@code FileAttributes}, handle and file system, and {@code Fattr4.encode} writes the requested attributes it
 * supports (GETATTR, READDIR entries); it reads SETATTR, OPEN and CREATE attributes with
 * {@code Fattr4.decodeSettable} into a {@code SetAttributes} (owners as numeric strings, as the Linux client sends
 * them with id mapping off). The client reads replies with {@code Fattr4.decode} into a
 * {@link org.rpcrdma4j.nfs.v4.Fattr4Decoded} and writes what it sets with {@code Fattr4.encodeSettable}. Broken XDR
 * is a {@link org.rpcrdma4j.nfs.xdr.BadXdrException} ({@code NFS4ERR_BADXDR} on the server); a well-formed request
 * the server refuses is an {@link org.rpcrdma4j.nfs.v4.Nfs4Exception} with its status.
 */
package org.rpcrdma4j.nfs.v4;
