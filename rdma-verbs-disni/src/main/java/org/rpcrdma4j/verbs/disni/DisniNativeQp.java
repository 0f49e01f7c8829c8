package org.rpcrdma4j.verbs.disni;

import java.io.IOException;
import java.util.List;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;

/** {@link NativeQp} over DiSNI's {@link IbvQP}. */
final class DisniNativeQp implements NativeQp {
    private final IbvQP qp;
    private final int qpNum;

    DisniNativeQp(IbvQP qp) throws IOException {
        this.qp = qp;
        this.qpNum = qp.getQp_num();
    }

    @Override
    public int qpNum() {
        return qpNum;
    }

    @Override
    public SVCPostSend prepareSend(List<IbvSendWR> chain) throws IOException {
        return qp.postSend(chain, null);
    }

    @Override
    public SVCPostRecv prepareRecv(List<IbvRecvWR> chain) throws IOException {
        return qp.postRecv(chain, null);
    }
}
