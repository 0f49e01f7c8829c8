package org.rpcrdma4j.verbs.disni;

import java.io.IOException;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCReqNotify;

/**
 * {@link NativeCq} over DiSNI: an {@link IbvCQ} with a completion channel of its own, and a reusable notification call.
 */
final class DisniNativeCq implements NativeCq {
    private final IbvCompChannel channel;
    private final IbvCQ cq;
    private final SVCReqNotify notify;

    private DisniNativeCq(IbvCompChannel channel, IbvCQ cq, SVCReqNotify notify) {
        this.channel = channel;
        this.cq = cq;
        this.notify = notify;
    }

    /** Creates a channel and a queue of {@code entries} entries on it. */
    static DisniNativeCq create(IbvContext context, int entries) throws IOException {
        IbvCompChannel channel = context.createCompChannel();
        if (channel == null) {
            throw new IOException("ibv_create_comp_channel failed");
        }
        IbvCQ cq;
        try {
            cq = context.createCQ(channel, entries, 0);
            if (cq == null) {
                throw new IOException("ibv_create_cq of " + entries + " entries failed");
            }
        } catch (IOException e) {
            channel.destroyCompChannel();
            throw e;
        }
        return new DisniNativeCq(channel, cq, cq.reqNotification(false));
    }

    @Override
    public SVCPollCq newPoll(IbvWC[] wcs) throws IOException {
        return cq.poll(wcs, wcs.length);
    }

    @Override
    public void requestNotify() throws IOException {
        notify.execute();
    }

    @Override
    public boolean takeEvent() throws IOException {
        return channel.getCqEvent(cq, 0);
    }

    @Override
    public void ackEvents(int count) throws IOException {
        cq.ackEvents(count);
    }

    @Override
    public void destroy() throws IOException {
        notify.free();
        cq.destroyCQ();
        channel.destroyCompChannel();
    }

    @Override
    public IbvCQ ibvCq() {
        return cq;
    }
}
