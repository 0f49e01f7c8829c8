/**
 * XDR codecs for NFS version 3 and MOUNT version 3 (RFC 1813), written by hand as oncrpc4j {@code XdrAble}s.
 * <p>
 * Argument and result classes are mutable carriers with public fields, one per RFC type (several procedures that
 * share a shape share a class: {@link org.rpcrdma4j.nfs.xdr.FhArgs}, {@link org.rpcrdma4j.nfs.xdr.WccRes},
 * {@link org.rpcrdma4j.nfs.xdr.NewObjectRes}...). The shared types ({@code fattr3}, {@code sattr3}, {@code wcc_data},
 * {@code nfs_fh3}) are immutable value types of {@code org.rpcrdma4j.nfs} coded by {@link org.rpcrdma4j.nfs.xdr.Nfs3Xdr}.
 * <p>
 * <b>Bounds.</b> Every variable-length item is checked against a bound before anything is allocated: file handles
 * 64 bytes, names and paths {@link org.rpcrdma4j.nfs.xdr.Nfs3#DECODE_MAX_NAME} (so a server can still answer
 * {@code NFS3ERR_NAMETOOLONG} above 255), data {@link org.rpcrdma4j.nfs.xdr.Nfs3#DECODE_MAX_DATA}, lists
 * {@link org.rpcrdma4j.nfs.xdr.Nfs3#DECODE_MAX_ENTRIES}. Anything else malformed (a bool that is not 0/1, an enum
 * without an arm, non-UTF-8 names) throws {@link org.rpcrdma4j.nfs.xdr.BadXdrException}, which a server turns into
 * {@code GARBAGE_ARGS}.
 * <p>
 * <b>Bulk data.</b> WRITE data and READ data are never copied by the codecs when the stream is an oncrpc4j
 * {@code Xdr}: data to send is referenced with {@code xdrEncodeShallowByteBuffer}, received WRITE data is a view of
 * the request buffer. {@link org.rpcrdma4j.nfs.xdr.DdpArgument} and {@link org.rpcrdma4j.nfs.xdr.DdpResult} mark the
 * RFC 8267 DDP-eligible items, so that an RDMA transport can move them into read and write chunks.
 */
package org.rpcrdma4j.nfs.xdr;
