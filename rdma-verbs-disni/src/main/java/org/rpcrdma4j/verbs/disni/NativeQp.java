package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.util.List;

import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;

/**
 * A native queue pair as the posting code sees it: it serialises work-request lists into DiSNI's reusable post calls.
 * The DiSNI implementation wraps an {@code IbvQP}; tests give a fake, so posting is tested without libdisni.
 */
interface NativeQp {

    /** The queue pair number the device gave (completions carry it). */
    int qpNum();

    /**
     * Serialises a chain of send requests into native memory (allocates); the returned call posts it on every
     * {@code execute()} and can be modified in place with {@link SVCPostSend#getWrMod}.
     */
    SVCPostSend prepareSend(List<IbvSendWR> chain) throws IOException;

    /** Serialises a chain of receive requests (allocates); DiSNI offers no way to modify it afterwards. */
    SVCPostRecv prepareRecv(List<IbvRecvWR> chain) throws IOException;
}
