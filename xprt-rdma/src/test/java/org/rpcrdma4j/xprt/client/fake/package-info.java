/**
 * Test peers for the client transport, written directly on the verbs SPI and the codec (no server code of the
 * project): {@link org.rpcrdma4j.xprt.client.fake.FakeRdmaServer}, a scriptable RPC-over-RDMA responder that records
 * every call (header, inline bytes, Read chunk bytes pulled with RDMA READ, the rebuilt call) and answers as a
 * {@link org.rpcrdma4j.xprt.client.fake.FakeRdmaServer.Script} says, including the misbehaviours of
 * {@link org.rpcrdma4j.xprt.client.fake.Reply}; {@link org.rpcrdma4j.xprt.client.fake.TestProgram}, a small RPC program
 * with DDP-eligible items and its binding; and {@link org.rpcrdma4j.xprt.client.fake.Dispatching}, a script that runs
 * unmodified oncrpc4j programs behind the fake server. Shipped in the module's test-jar for the nfs tests.
 */
package org.rpcrdma4j.xprt.client.fake;
