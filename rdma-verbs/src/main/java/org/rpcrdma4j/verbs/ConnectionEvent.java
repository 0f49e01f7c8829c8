package org.rpcrdma4j.verbs;

/**
 * An event on one queue pair's connection.
 *
 * @param type        what happened
 * @param queuePair   the queue pair it happened to
 * @param privateData private data carried by the event (a reject's), never null
 * @param cause       why, for failures (null otherwise)
 */
public record ConnectionEvent(ConnectionEventType type, QueuePair queuePair, byte[] privateData, Throwable cause) {
    public ConnectionEvent {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
