package org.rpcrdma4j.nfs.v4.state;

/**
 * The fore channel request that made some state: its session, slot and sequence id (RFC 8881 section 2.10.6.3). A
 * callback about that state names it ({@code csa_referring_call_lists}), so that a client that has not yet seen the
 * request's reply waits for it instead of answering that it knows no such state.
 */
public record ReferringCall(SessionId session, int slotId, int sequenceId) {
}
