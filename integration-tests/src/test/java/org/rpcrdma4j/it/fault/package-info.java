/**
 * A test-only fault layer for the software iWARP device, built outside the device and the transports:
 * <ul>
 * <li>{@link org.rpcrdma4j.it.fault.FaultyDevice}: a decorator of any verbs {@code RdmaDevice} whose queue pairs pass
 * every {@code postSend} through a {@link org.rpcrdma4j.it.fault.FaultPlan} (refuse the post, drop the connection
 * before or after it, or between a chain's RDMA WRITEs and its Send), and whose connection manager can refuse
 * connects;</li>
 * <li>{@link org.rpcrdma4j.it.fault.FaultProxy}: a TCP forwarder that follows MPA framing and can cut a connection in
 * the middle of an FPDU, corrupt a CRC field or a payload byte, refuse connects, delay, or reset everything;</li>
 * <li>{@link org.rpcrdma4j.it.fault.LeakWatch}: collects the reports of Netty's ByteBuf leak detector.</li>
 * </ul>
 */
package org.rpcrdma4j.it.fault;
