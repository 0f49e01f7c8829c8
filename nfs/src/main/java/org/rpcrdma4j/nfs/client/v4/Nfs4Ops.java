package org.rpcrdma4j.nfs.client.v4;

import org.rpcrdma4j.nfs.v4.Nfs4;

/** Names of NFSv4 operations for messages, and the few wire constants of RFC 8881 the client needs. */
final class Nfs4Ops {
    /** {@code OPEN4_SHARE_ACCESS_*} and {@code OPEN4_SHARE_DENY_NONE}. */
    static final int SHARE_ACCESS_READ = 1;
    static final int SHARE_ACCESS_WRITE = 2;
    static final int SHARE_ACCESS_BOTH = 3;
    static final int SHARE_DENY_NONE = 0;
    /**
     * {@code OPEN4_SHARE_ACCESS_WANT_NO_DELEG}, a "want" flag of {@code share_access} (RFC 8881 section 18.16.3): the
     * client asks for no delegation.
     */
    static final int SHARE_ACCESS_WANT_NO_DELEG = 0x0400;
    /** {@code opentype4}. */
    static final int OPEN4_NOCREATE = 0;
    static final int OPEN4_CREATE = 1;
    /** {@code createmode4}. */
    static final int UNCHECKED4 = 0;
    static final int GUARDED4 = 1;
    static final int EXCLUSIVE4 = 2;
    static final int EXCLUSIVE4_1 = 3;
    /** {@code open_claim_type4}. */
    static final int CLAIM_NULL = 0;
    static final int CLAIM_PREVIOUS = 1;
    static final int CLAIM_FH = 4;
    /** {@code open_delegation_type4}. */
    static final int OPEN_DELEGATE_NONE = 0;
    static final int OPEN_DELEGATE_READ = 1;
    static final int OPEN_DELEGATE_WRITE = 2;
    static final int OPEN_DELEGATE_NONE_EXT = 3;
    /** {@code nfs_ftype4}. */
    static final int NF4REG = 1;
    static final int NF4DIR = 2;
    static final int NF4BLK = 3;
    static final int NF4CHR = 4;
    static final int NF4LNK = 5;
    static final int NF4SOCK = 6;
    static final int NF4FIFO = 7;
    /** {@code state_protect_how4} SP4_NONE. */
    static final int SP4_NONE = 0;
    /** SEQUENCE's {@code sr_status_flags} that mean state was lost. */
    static final int SEQ4_STATUS_CB_PATH_DOWN = 0x1;
    static final int SEQ4_STATUS_EXPIRED_ALL_STATE_REVOKED = 0x8;
    static final int SEQ4_STATUS_EXPIRED_SOME_STATE_REVOKED = 0x10;
    static final int SEQ4_STATUS_ADMIN_STATE_REVOKED = 0x20;
    static final int SEQ4_STATUS_RECALLABLE_STATE_REVOKED = 0x40;
    static final int SEQ4_STATUS_RESTART_RECLAIM_NEEDED = 0x100;
    static final int STATE_LOST_FLAGS = SEQ4_STATUS_EXPIRED_ALL_STATE_REVOKED | SEQ4_STATUS_EXPIRED_SOME_STATE_REVOKED
            | SEQ4_STATUS_ADMIN_STATE_REVOKED | SEQ4_STATUS_RECALLABLE_STATE_REVOKED;
    /** The callback program number offered in CREATE_SESSION (no back channel is used). */
    static final int SEQ4_STATUS_CB_PATH_DOWN_SESSION = 0x200;
    static final int SEQ4_STATUS_BACKCHANNEL_FAULT = 0x400;
    /** SEQUENCE status flags saying the session's callbacks cannot reach the client. */
    static final int CB_PATH_FLAGS = SEQ4_STATUS_CB_PATH_DOWN | SEQ4_STATUS_CB_PATH_DOWN_SESSION
            | SEQ4_STATUS_BACKCHANNEL_FAULT;
    /** {@code eir_flags}: the client ID is confirmed already. */
    static final int EXCHGID4_FLAG_CONFIRMED_R = 0x80000000;
    /** {@code csa_flags}: use the session's connection for callbacks too. */
    static final int CREATE_SESSION4_FLAG_CONN_BACK_CHAN = 0x2;

    static final int CB_PROGRAM = 0x40000000;

    private Nfs4Ops() {
    }

    /** The operation's name ({@code "LOOKUP"}), {@code "COMPOUND"} for 0, or {@code "operation <n>"}. */
    static String name(int op) {
        if (op == 0) {
            return "COMPOUND";
        }
        return Nfs4.operationName(op);
    }
}
