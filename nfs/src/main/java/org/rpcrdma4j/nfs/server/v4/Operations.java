package org.rpcrdma4j.nfs.server.v4;

import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;

/**
 * Makes the operation object for an operation number of a COMPOUND of minor version 1 or 2. The numbers of minor
 * version 0 that version 1 dropped (OPEN_CONFIRM, RENEW, SETCLIENTID, SETCLIENTID_CONFIRM, RELEASE_LOCKOWNER) are
 * NFS4ERR_NOTSUPP, as RFC 8881 section 15.2 requires; numbers beyond the minor version's last, and unknown ones, are
 * OP_ILLEGAL. Known operations this server does not do (asking for delegations, pNFS layouts, NFSv4.2's asynchronous copies,
 * READ_PLUS and extended attribute operations) are NFS4ERR_NOTSUPP.
 */
final class Operations {
    private Operations() {
    }

    static Op create(int opcode, int minorVersion) {
        int last = minorVersion == 1 ? Nfs4.LAST_OP_V41 : Nfs4.LAST_OP_V42;
        if (opcode < Nfs4.OP_ACCESS || opcode > last) {
            return new Op.Refused(Nfs4.OP_ILLEGAL, Nfs4Status.NFS4ERR_OP_ILLEGAL, "operation " + opcode);
        }
        return switch (opcode) {
            case Nfs4.OP_SEQUENCE -> new SessionOps.Sequence();
            case Nfs4.OP_EXCHANGE_ID -> new SessionOps.ExchangeId();
            case Nfs4.OP_CREATE_SESSION -> new SessionOps.CreateSession();
            case Nfs4.OP_DESTROY_SESSION -> new SessionOps.DestroySession();
            case Nfs4.OP_DESTROY_CLIENTID -> new SessionOps.DestroyClientId();
            case Nfs4.OP_RECLAIM_COMPLETE -> new SessionOps.ReclaimComplete();
            case Nfs4.OP_BIND_CONN_TO_SESSION -> new SessionOps.BindConnToSession();
            case Nfs4.OP_BACKCHANNEL_CTL -> new SessionOps.BackchannelCtl();
            case Nfs4.OP_SECINFO, Nfs4.OP_SECINFO_NO_NAME -> new FhOps.SecInfo(opcode);
            case Nfs4.OP_PUTFH -> new FhOps.PutFh();
            case Nfs4.OP_PUTROOTFH, Nfs4.OP_PUTPUBFH -> new FhOps.PutRootFh(opcode);
            case Nfs4.OP_GETFH -> new FhOps.GetFh();
            case Nfs4.OP_SAVEFH -> new FhOps.SaveFh();
            case Nfs4.OP_RESTOREFH -> new FhOps.RestoreFh();
            case Nfs4.OP_LOOKUP -> new FhOps.Lookup();
            case Nfs4.OP_LOOKUPP -> new FhOps.LookupP();
            case Nfs4.OP_GETATTR -> new AttrOps.GetAttr();
            case Nfs4.OP_SETATTR -> new AttrOps.SetAttr();
            case Nfs4.OP_ACCESS -> new AttrOps.Access();
            case Nfs4.OP_READDIR -> new ReaddirOp();
            case Nfs4.OP_CREATE -> new CreateOp();
            case Nfs4.OP_REMOVE -> new DirOps.Remove();
            case Nfs4.OP_RENAME -> new DirOps.Rename();
            case Nfs4.OP_LINK -> new LinkOp();
            case Nfs4.OP_READLINK -> new DirOps.ReadLink();
            case Nfs4.OP_OPEN -> new StateOps.Open();
            case Nfs4.OP_CLOSE -> new StateOps.Close();
            case Nfs4.OP_OPEN_DOWNGRADE -> new StateOps.OpenDowngrade();
            case Nfs4.OP_TEST_STATEID -> new StateOps.TestStateid();
            case Nfs4.OP_FREE_STATEID -> new StateOps.FreeStateid();
            case Nfs4.OP_DELEGRETURN -> new StateOps.DelegReturn();
            case Nfs4.OP_LOCK -> new LockOps.Lock();
            case Nfs4.OP_LOCKT -> new LockOps.LockT();
            case Nfs4.OP_LOCKU -> new LockOps.LockU();
            case Nfs4.OP_READ -> new IoOps.Read();
            case Nfs4.OP_WRITE -> new IoOps.Write();
            case Nfs4.OP_COMMIT -> new IoOps.Commit();
            case Nfs4.OP_ALLOCATE, Nfs4.OP_DEALLOCATE -> new SpaceOps.Extent(opcode);
            case Nfs4.OP_SEEK -> new SpaceOps.Seek();
            case Nfs4.OP_COPY -> new CopyOp();
            case Nfs4.OP_CLONE -> new CloneOp();
            case Nfs4.OP_OPEN_CONFIRM, Nfs4.OP_RENEW, Nfs4.OP_SETCLIENTID, Nfs4.OP_SETCLIENTID_CONFIRM,
                 Nfs4.OP_RELEASE_LOCKOWNER -> new Op.Refused(opcode, Nfs4Status.NFS4ERR_NOTSUPP,
                    "an operation of minor version 0 only");
            default -> new Op.Refused(opcode, Nfs4Status.NFS4ERR_NOTSUPP, "operation " + opcode + " not supported");
        };
    }
}
