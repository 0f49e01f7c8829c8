package org.rpcrdma4j.registration;

/**
 * Told when every handle of a {@link Registration} is invalid, so the RPC may complete to its caller. Implemented by
 * the transport's request context (no allocation per RPC). Called on the thread that processes the send completion
 * queue ({@link RegistrationPool#onCompletion}) or that calls {@link RegistrationPool#onDisconnect()}; must not block.
 */
@FunctionalInterface
public interface InvalidationListener {
    void onInvalidated(Registration registration);
}
