package org.rpcrdma4j.verbs;

/** Work completion status, named as the kernel names them ({@code IB_WC_*}). */
public enum WcStatus {
    SUCCESS,
    /** A message was longer than the receive buffer, or an SGE exceeded its region. */
    LOC_LEN_ERR,
    /** Local QP operation error (e.g. a malformed work request discovered at execution). */
    LOC_QP_OP_ERR,
    /** A local SGE failed the protection check (unknown or invalid lkey, other PD, missing LOCAL_WRITE, bounds). */
    LOC_PROT_ERR,
    /** The QP went to error or was disconnected before this work request finished. */
    WR_FLUSH_ERR,
    /** Memory window bind error. */
    MW_BIND_ERR,
    /** Unexpected response from the peer. */
    BAD_RESP_ERR,
    /** Local access error (e.g. fast registration of a region that is still valid). */
    LOC_ACCESS_ERR,
    /** The peer found the request invalid. */
    REM_INV_REQ_ERR,
    /** The peer refused a tagged access: invalid STag, wrong key, other PD, missing right, out of bounds. */
    REM_ACCESS_ERR,
    /** The peer could not complete the operation (e.g. no receive posted, invalidation failed). */
    REM_OP_ERR,
    /** The transport gave up retrying. */
    RETRY_EXC_ERR,
    /** The peer had no receive posted, and retries were exhausted. */
    RNR_RETRY_EXC_ERR,
    /** Fatal device error. */
    FATAL_ERR,
    GENERAL_ERR
}
