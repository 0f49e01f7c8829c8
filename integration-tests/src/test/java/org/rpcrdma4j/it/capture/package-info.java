/**
 * A reader of iWARP NFS/RDMA captures, for tests: it turns a pcap or pcapng file (gzip or not) into RPC-over-RDMA
 * messages with the contents of their chunks, so that real traffic (the Linux reference captures in this module's
 * {@code captures/} resources) or our own device's wire output can be checked byte by byte. It depends on nothing
 * but the codec and the JDK, and it never trusts the file: every length is checked before use and anything that
 * breaks the protocols raises {@link org.rpcrdma4j.it.capture.CaptureFormatException} saying where.
 *
 * <h2>The pipeline</h2>
 * <pre>
 *  PcapFile            frames (classic pcap in both byte orders, pcapng with several interfaces)
 *   -> FrameDecoder    Ethernet / VLAN / Linux cooked / loopback / raw -> IPv4 or IPv6 -> TCP segment
 *   -> TcpReassembler  one TcpStream per direction, placed by sequence number (out of order, retransmitted,
 *                      repacketised or wrapping segments are fine; a hole or a disagreeing retransmission is not),
 *                      with the frame after which each byte was deliverable
 *   -> IwarpCapture    MPA Request and Reply (MpaFrame: flags, revision, IRD/ORD, private data), then
 *   -> FpduParser      FPDUs: length, ULPDU, pad, CRC-32C (checked when negotiated; markers are refused),
 *                      each one DdpSegment (tagged: STag, TO; untagged: QN, MSN, MO; L bit, RDMAP opcode)
 *   -> RdmapAssembler  RdmapMessage: Sends by QN 0 / MSN / MO / L, in MSN order; RDMA Writes and Read Responses
 *                      as continuous tagged runs; Read Requests (QN 1); Terminates (QN 2)
 *   -> RpcRdmaTrace    each Send decoded with the codec (RpcRdmaMessage), chunks filled in, calls paired with
 *                      replies (RpcRdmaExchange)
 * </pre>
 *
 * <h2>Chunk contents</h2>
 * A Read chunk's data are what the responder pulled: its RDMA Read Requests name the read segment's handle and
 * offset as their source; the i-th Read Request one side sends is answered by the i-th Read Response of the other
 * side, to the request's sink. A Write or Reply chunk's data are what the responder wrote with RDMA Writes to the
 * segments its reply reports (handle, offset, bytes written) before sending that reply. A call's Write list and
 * Reply chunk only offer memory, so they have no data. {@link org.rpcrdma4j.it.capture.RpcRdmaMessage} puts the
 * data back: {@code unreducedCall()} inserts each data Read chunk (and its XDR pad) at its position,
 * {@code unreducedReply(offset)} inserts Write chunk 0 where an upper-layer binding says the item belongs.
 *
 * <h2>Use</h2>
 * <pre>{@code
 * for (IwarpConnection c : IwarpCapture.read(Path.of("nfs.pcap.gz"))) {
 *     for (RpcRdmaExchange x : RpcRdmaTrace.of(c).exchanges()) {
 *         OncRpcHeader call = x.call().rpcHeader();
 *         byte[] args = x.call().unreducedCall();     // the call as its sender marshaled it
 *         ...
 *     }
 * }
 * }</pre>
 * {@link org.rpcrdma4j.it.capture.PcapWriter} writes TCP segments as a pcap file, to record a conversation (ours)
 * for this reader or for Wireshark. {@link org.rpcrdma4j.it.capture.LinuxCaptures} reads the reference captures once
 * per JVM.
 *
 * <h2>Limits</h2>
 * IP fragments, MPA markers and MSN wrap-around are not handled (no Linux peer produces them); streams must fit in
 * 2 GiB. Everything is held in memory: fine for captures of a few tens of megabytes.
 */
package org.rpcrdma4j.it.capture;
