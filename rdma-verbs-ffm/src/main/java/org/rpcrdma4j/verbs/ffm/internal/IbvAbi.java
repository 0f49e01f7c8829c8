package org.rpcrdma4j.verbs.ffm.internal;

/**
 * Where things are in the structures of libibverbs' stable ABI ({@code <infiniband/verbs.h>}, x86-64 and other LP64
 * targets): byte offsets and sizes, as rdma-core lays them out. {@code IbvAbiTest} compiles a C program against the
 * installed header and checks every one of them.
 * <p>
 * {@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_poll_cq} and {@code ibv_req_notify_cq} are inline functions
 * in the header, not symbols of the library: they call through the provider's table in {@code ibv_context.ops}, so
 * their offsets are here too.
 */
public final class IbvAbi {
    // struct ibv_device
    public static final long DEVICE_SIZE = 664;
    public static final long DEVICE_NODE_TYPE = 16;
    public static final long DEVICE_TRANSPORT_TYPE = 20;
    public static final long DEVICE_NAME = 24;
    /** {@code IBV_SYSFS_NAME_MAX}. */
    public static final int SYSFS_NAME_MAX = 64;

    // struct ibv_context and its ops table
    public static final long CONTEXT_SIZE = 328;
    public static final long CONTEXT_DEVICE = 0;
    public static final long CONTEXT_OPS_ALLOC_MW = 64;
    public static final long CONTEXT_OPS_BIND_MW = 72;
    public static final long CONTEXT_OPS_DEALLOC_MW = 80;
    public static final long CONTEXT_OPS_POLL_CQ = 96;
    public static final long CONTEXT_OPS_REQ_NOTIFY_CQ = 104;
    public static final long CONTEXT_OPS_POST_SEND = 208;
    public static final long CONTEXT_OPS_POST_RECV = 216;
    public static final long CONTEXT_ASYNC_FD = 268;

    // struct ibv_device_attr
    public static final long DEVICE_ATTR_SIZE = 232;
    public static final long DEVICE_ATTR_MAX_MR_SIZE = 80;
    public static final long DEVICE_ATTR_VENDOR_ID = 96;
    public static final long DEVICE_ATTR_MAX_QP_WR = 112;
    public static final long DEVICE_ATTR_DEVICE_CAP_FLAGS = 116;
    public static final long DEVICE_ATTR_MAX_SGE = 120;
    public static final long DEVICE_ATTR_MAX_CQE = 132;
    public static final long DEVICE_ATTR_MAX_QP_RD_ATOM = 144;
    public static final long DEVICE_ATTR_MAX_QP_INIT_RD_ATOM = 156;
    public static final long DEVICE_ATTR_MAX_MW = 176;
    public static final long DEVICE_ATTR_MAX_FMR = 204;
    public static final long DEVICE_ATTR_PHYS_PORT_CNT = 227;

    // struct ibv_port_attr
    public static final long PORT_ATTR_SIZE = 52;
    public static final long PORT_ATTR_STATE = 0;
    public static final long PORT_ATTR_ACTIVE_MTU = 8;
    public static final long PORT_ATTR_LINK_LAYER = 46;

    // struct ibv_sge
    public static final long SGE_SIZE = 16;
    public static final long SGE_ADDR = 0;
    public static final long SGE_LENGTH = 8;
    public static final long SGE_LKEY = 12;

    // struct ibv_send_wr
    public static final long SEND_WR_SIZE = 128;
    public static final long SEND_WR_WR_ID = 0;
    public static final long SEND_WR_NEXT = 8;
    public static final long SEND_WR_SG_LIST = 16;
    public static final long SEND_WR_NUM_SGE = 24;
    public static final long SEND_WR_OPCODE = 28;
    public static final long SEND_WR_SEND_FLAGS = 32;
    /** A union with {@code imm_data}. */
    public static final long SEND_WR_INVALIDATE_RKEY = 36;
    public static final long SEND_WR_RDMA_REMOTE_ADDR = 40;
    public static final long SEND_WR_RDMA_RKEY = 48;
    public static final long SEND_WR_BIND_MW_MW = 80;
    public static final long SEND_WR_BIND_MW_RKEY = 88;
    public static final long SEND_WR_BIND_MW_BIND_INFO = 96;

    // struct ibv_mw_bind_info (inside ibv_send_wr.bind_mw)
    public static final long MW_BIND_INFO_MR = 0;
    public static final long MW_BIND_INFO_ADDR = 8;
    public static final long MW_BIND_INFO_LENGTH = 16;
    public static final long MW_BIND_INFO_ACCESS = 24;

    // struct ibv_recv_wr
    public static final long RECV_WR_SIZE = 32;
    public static final long RECV_WR_WR_ID = 0;
    public static final long RECV_WR_NEXT = 8;
    public static final long RECV_WR_SG_LIST = 16;
    public static final long RECV_WR_NUM_SGE = 24;

    // struct ibv_wc
    public static final long WC_SIZE = 48;
    public static final long WC_WR_ID = 0;
    public static final long WC_STATUS = 8;
    public static final long WC_OPCODE = 12;
    public static final long WC_VENDOR_ERR = 16;
    public static final long WC_BYTE_LEN = 20;
    /** A union with {@code imm_data}. */
    public static final long WC_INVALIDATED_RKEY = 24;
    public static final long WC_QP_NUM = 28;
    public static final long WC_WC_FLAGS = 36;

    // struct ibv_mr, ibv_mw, ibv_cq, ibv_qp, ibv_comp_channel
    public static final long MR_ADDR = 16;
    public static final long MR_LENGTH = 24;
    public static final long MR_LKEY = 36;
    public static final long MR_RKEY = 40;
    public static final long MW_SIZE = 32;
    public static final long MW_RKEY = 16;
    public static final long CQ_SIZE = 128;
    public static final long CQ_CONTEXT = 0;
    public static final long CQ_CQE = 28;
    public static final long QP_CONTEXT = 0;
    public static final long QP_QP_NUM = 52;
    public static final long COMP_CHANNEL_FD = 8;

    // struct ibv_qp_init_attr and its ibv_qp_cap
    public static final long QP_INIT_ATTR_SIZE = 64;
    public static final long QP_INIT_ATTR_QP_CONTEXT = 0;
    public static final long QP_INIT_ATTR_SEND_CQ = 8;
    public static final long QP_INIT_ATTR_RECV_CQ = 16;
    public static final long QP_INIT_ATTR_CAP = 32;
    public static final long QP_INIT_ATTR_QP_TYPE = 52;
    public static final long QP_INIT_ATTR_SQ_SIG_ALL = 56;
    public static final long QP_CAP_MAX_SEND_WR = 0;
    public static final long QP_CAP_MAX_RECV_WR = 4;
    public static final long QP_CAP_MAX_SEND_SGE = 8;
    public static final long QP_CAP_MAX_RECV_SGE = 12;
    public static final long QP_CAP_MAX_INLINE_DATA = 16;

    // enum ibv_transport_type
    public static final int TRANSPORT_IB = 0;
    public static final int TRANSPORT_IWARP = 1;

    // enum ibv_port_attr.link_layer
    public static final int LINK_LAYER_INFINIBAND = 1;
    public static final int LINK_LAYER_ETHERNET = 2;

    // enum ibv_device_cap_flags
    public static final int DEVICE_MEM_WINDOW = 1 << 17;
    public static final int DEVICE_MEM_MGT_EXTENSIONS = 1 << 21;
    public static final int DEVICE_MEM_WINDOW_TYPE_2A = 1 << 23;
    public static final int DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24;

    // enum ibv_wr_opcode
    public static final int WR_RDMA_WRITE = 0;
    public static final int WR_SEND = 2;
    public static final int WR_RDMA_READ = 4;
    public static final int WR_LOCAL_INV = 7;
    public static final int WR_BIND_MW = 8;
    public static final int WR_SEND_WITH_INV = 9;

    // enum ibv_access_flags, ibv_send_flags, ibv_qp_type
    public static final int ACCESS_LOCAL_WRITE = 1;
    public static final int ACCESS_REMOTE_WRITE = 1 << 1;
    public static final int ACCESS_REMOTE_READ = 1 << 2;
    public static final int SEND_FENCE = 1;
    public static final int SEND_SIGNALED = 1 << 1;
    public static final int SEND_SOLICITED = 1 << 2;
    public static final int SEND_INLINE = 1 << 3;
    public static final int QPT_RC = 2;
    public static final int ACCESS_MW_BIND = 1 << 4;
    public static final int MW_TYPE_2 = 2;
    public static final int WC_OP_BIND_MW = 5;
    public static final int WC_OP_LOCAL_INV = 6;
    public static final int WC_WITH_INV = 1 << 3;
    /**
     * The kernel's {@code IB_WC_WITH_INVALIDATE}. rxe's completions reach user space in the kernel's numbering of
     * {@code wc_flags}, where libibverbs' bit 2 is {@code IBV_WC_IP_CSUM_OK} (which no reliable-connected receive
     * carries) and its {@code IBV_WC_WITH_INV} is bit 3.
     */
    public static final int KERNEL_WC_WITH_INVALIDATE = 1 << 2;
    /** rxe's {@code vendor_id}. */
    public static final int RXE_VENDOR_ID = 0xFFFFFF;
    /** siw's {@code vendor_id} ("bmt"). */
    public static final int SIW_VENDOR_ID = 0x626D74;
    public static final int WC_REM_ACCESS_ERR = 10;

    // enum ibv_wc_status, ibv_wc_opcode
    public static final int WC_SUCCESS = 0;
    public static final int WC_OP_SEND = 0;
    public static final int WC_OP_RDMA_WRITE = 1;
    public static final int WC_OP_RDMA_READ = 2;
    public static final int WC_OP_RECV = 128;

    /** {@code enum ibv_wc_status} in order: the name of value i is {@code IBV_WC_} + element i. */
    public static final String[] WC_STATUS_NAMES = {"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR",
            "LOC_PROT_ERR", "WR_FLUSH_ERR", "MW_BIND_ERR", "BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR",
            "REM_ACCESS_ERR", "REM_OP_ERR", "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR",
            "REM_INV_RD_REQ_ERR", "REM_ABORT_ERR", "INV_EECN_ERR", "INV_EEC_STATE_ERR", "FATAL_ERR",
            "RESP_TIMEOUT_ERR", "GENERAL_ERR"};
    public static final int WC_WR_FLUSH_ERR = 5;

    private IbvAbi() {
    }
}
