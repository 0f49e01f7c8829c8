package org.rpcrdma4j.xprt.client;

import java.util.concurrent.Executor;

import org.rpcrdma4j.verbs.VerbsException;
import org.rpcrdma4j.xprt.XprtCounter;

/**
 * Marshals calls again after the connection was lost: their registration handles died with it, and registering may
 * wait for free handles, which must not happen on the agent thread. Runs on the transport's recovery thread and hands
 * each slot back to the agent, to send or (when marshaling failed) to fail.
 */
final class Remarshaler {
    private final ClientAgent agent;
    private final CallMarshaler marshaler;
    private final Executor executor;

    Remarshaler(ClientAgent agent, CallMarshaler marshaler, Executor executor) {
        this.agent = agent;
        this.marshaler = marshaler;
        this.executor = executor;
    }

    /** Queues {@code slot} (owned by the caller, the agent, until now) for marshaling on the recovery thread. */
    void dispatch(RequestSlot slot) {
        slot.invalidating = false;
        slot.state = RequestSlot.State.MARSHALING;
        executor.execute(() -> remarshal(slot));
    }

    private void remarshal(RequestSlot slot) {
        Throwable failure = null;
        try {
            marshaler.marshalAcrossResets(slot);
        } catch (VerbsException e) {
            failure = new RdmaConnectionException("registering xid 0x" + Integer.toHexString(slot.xid)
                    + " again failed: " + e.getMessage(), e);
        } catch (RdmaMarshalException e) {
            agent.counters().increment(XprtCounter.FAILED_MARSHAL_COUNT);
            failure = e;
        } catch (RdmaTransportException e) {
            agent.counters().increment(XprtCounter.TIMEOUTS);
            failure = e; // timed out waiting for memory or registration handles
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = new RdmaConnectionException("interrupted while marshaling xid 0x"
                    + Integer.toHexString(slot.xid) + " again", e);
        } catch (RuntimeException | Error e) {
            // an Error too: the slot must come back, and this thread goes on with the others
            failure = new RdmaMarshalException("marshaling xid 0x" + Integer.toHexString(slot.xid)
                    + " again failed: " + e, e);
        }
        if (failure != null) {
            slot.failure = failure;
            slot.command = RequestSlot.Command.FAIL;
        } else {
            slot.command = RequestSlot.Command.SEND;
        }
        agent.submit(slot);
    }
}
