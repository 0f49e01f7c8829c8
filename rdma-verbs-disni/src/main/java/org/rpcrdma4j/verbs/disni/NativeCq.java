package org.rpcrdma4j.verbs.disni;

import java.io.IOException;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;

/**
 * A native completion queue with its own completion channel, as {@link DisniCompletionQueue} uses it. The DiSNI
 * implementation wraps an {@link IbvCQ} and an {@code IbvCompChannel}; tests give a fake.
 * <p>
 * Each completion queue has a channel of its own because DiSNI's {@code getCqEvent} does not say which queue an event
 * belongs to, and every event must be acknowledged on its own queue before that queue can be destroyed.
 */
interface NativeCq {

    /** A reusable poll call that fills {@code wcs} (at most {@code wcs.length} per execution). */
    SVCPollCq newPoll(IbvWC[] wcs) throws IOException;

    /** Arms the queue (ibv_req_notify_cq, any completion). */
    void requestNotify() throws IOException;

    /** Takes one completion event if the channel has one, without waiting. */
    boolean takeEvent() throws IOException;

    /** Acknowledges events taken. */
    void ackEvents(int count) throws IOException;

    /** Destroys the queue and its channel; every event taken must have been acknowledged. */
    void destroy() throws IOException;

    /** The DiSNI queue, for creating queue pairs; null in tests. */
    IbvCQ ibvCq();
}
