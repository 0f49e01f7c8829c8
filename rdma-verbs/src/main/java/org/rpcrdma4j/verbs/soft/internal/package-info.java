/**
 * The software iWARP device's implementation; not an API (only {@link org.rpcrdma4j.verbs.soft.internal.SoftDevice}
 * and the fault handle are public, for the provider and tests).
 * <p>
 * Structure: {@link org.rpcrdma4j.verbs.soft.internal.SoftDevice} owns the engines, the STag table and the open
 * objects. Each {@link org.rpcrdma4j.verbs.soft.internal.Engine} is one thread with one selector. A
 * {@link org.rpcrdma4j.verbs.soft.internal.SoftQp} is one TCP connection owned by one engine; its
 * {@code Transmitter} builds FPDUs from the send queue, the IRQ (Read Responses), placement probes and Terminates
 * into a {@code Gather} list written with gathering writes ({@code ProbeHold} decides when the answer to a peer's
 * probe may wait for other output); its {@code Receiver} reads headers into a small buffer
 * (with whatever follows, up to its size: several small FPDUs come in one read) and payloads straight into their
 * destination, each segment's tail in one read with the start of the next. Connection setup is {@code ActiveHandshake} (initiator) and
 * {@code PassiveHandshake} (responder, per accepted socket) under {@code SoftConnectionManager}.
 * <p>
 * Ownership: every field of a queue pair except its two posting rings belongs to its engine — the engine thread, or a
 * posting thread that took the idle engine's claim to transmit what it posted ({@code Engine#tryClaim}); rings are
 * filled by posting threads under the ring's lock and published with a volatile counter. Region state changes under
 * the region's monitor. Completion queues are shared between engine threads and one polling thread under the queue's
 * monitor.
 * <p>
 * STags: a 24-bit index into a two-level table, allocated cyclically from a random start, and an 8-bit key starting
 * at 0; lkey equals rkey. Every access checks, in siw's order, that the STag is valid with that key, that the region
 * is in the queue pair's protection domain, the access right, and the bounds (tagged offsets are addresses:
 * {@code iova <= TO} and {@code TO + length <= iova + length}).
 */
package org.rpcrdma4j.verbs.soft.internal;
