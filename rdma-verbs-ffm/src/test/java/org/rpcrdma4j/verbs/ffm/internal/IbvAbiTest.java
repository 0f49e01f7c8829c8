package org.rpcrdma4j.verbs.ffm.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.testsupport.RequiredPeer;

/**
 * Every offset, size and constant of {@link IbvAbi} and {@link RdmaCmAbi} against rdma-core's own headers: a C program
 * prints what the compiler makes of each, and the two must agree. Needs gcc and the headers ({@code libibverbs-dev},
 * {@code librdmacm-dev}), which CI installs.
 */
class IbvAbiTest {
    @TempDir
    Path dir;

    @Test
    void everyOffsetSizeAndConstantIsTheHeadersOwn() throws Exception {
        Map<String, Long> java = expected();
        List<String> names = new ArrayList<>(java.keySet());
        StringBuilder c = new StringBuilder("#include <stdio.h>\n#include <stddef.h>\n#include <infiniband/verbs.h>\n"
                + "#include <rdma/rdma_cma.h>\n#include <netinet/in.h>\n#include <poll.h>\n#include <sys/eventfd.h>\n"
                + "int main(void) {\n");
        for (int i = 0; i < names.size(); i++) {
            c.append("    printf(\"%lld\\n\", (long long) (").append(names.get(i)).append("));\n");
        }
        c.append("    return 0;\n}\n");
        Path source = Files.writeString(dir.resolve("abi.c"), c.toString());
        Path binary = dir.resolve("abi");
        String unavailable = compile(source, binary);
        RequiredPeer.require("rdma-core's headers and gcc", unavailable);
        Process run = new ProcessBuilder(binary.toString()).redirectErrorStream(true).start();
        List<String> lines = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        assertThat(run.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(lines).hasSize(names.size());
        Map<String, String> differing = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            long header = Long.parseLong(lines.get(i).trim());
            long ours = java.get(names.get(i));
            if (header != ours) {
                differing.put(names.get(i), "ours " + ours + ", the header's " + header);
            }
        }
        assertThat(differing).as("what differs from rdma-core's headers").isEmpty();
    }

    /** Null when gcc compiled the probe, else why it could not. */
    private static String compile(Path source, Path binary) throws Exception {
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-o", binary.toString(), source.toString()).redirectErrorStream(true)
                    .start();
        } catch (java.io.IOException e) {
            return "gcc cannot be run: " + e.getMessage();
        }
        String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            return out.contains("No such file") ? "rdma-core's headers are not installed (libibverbs-dev, "
                    + "librdmacm-dev): " + out.lines().findFirst().orElse("") : "gcc failed: " + out;
        }
        return null;
    }

    private static Map<String, Long> expected() {
        Map<String, Long> m = new LinkedHashMap<>();
        String dev = "struct ibv_device";
        m.put("sizeof(" + dev + ")", IbvAbi.DEVICE_SIZE);
        m.put(off(dev, "node_type"), IbvAbi.DEVICE_NODE_TYPE);
        m.put(off(dev, "transport_type"), IbvAbi.DEVICE_TRANSPORT_TYPE);
        m.put(off(dev, "name"), IbvAbi.DEVICE_NAME);
        m.put("IBV_SYSFS_NAME_MAX", (long) IbvAbi.SYSFS_NAME_MAX);
        String ctx = "struct ibv_context";
        m.put("sizeof(" + ctx + ")", IbvAbi.CONTEXT_SIZE);
        m.put(off(ctx, "device"), IbvAbi.CONTEXT_DEVICE);
        m.put(off(ctx, "ops.alloc_mw"), IbvAbi.CONTEXT_OPS_ALLOC_MW);
        m.put(off(ctx, "ops.bind_mw"), IbvAbi.CONTEXT_OPS_BIND_MW);
        m.put(off(ctx, "ops.dealloc_mw"), IbvAbi.CONTEXT_OPS_DEALLOC_MW);
        m.put(off(ctx, "ops.poll_cq"), IbvAbi.CONTEXT_OPS_POLL_CQ);
        m.put(off(ctx, "ops.req_notify_cq"), IbvAbi.CONTEXT_OPS_REQ_NOTIFY_CQ);
        m.put(off(ctx, "ops.post_send"), IbvAbi.CONTEXT_OPS_POST_SEND);
        m.put(off(ctx, "ops.post_recv"), IbvAbi.CONTEXT_OPS_POST_RECV);
        m.put(off(ctx, "async_fd"), IbvAbi.CONTEXT_ASYNC_FD);
        String attr = "struct ibv_device_attr";
        m.put("sizeof(" + attr + ")", IbvAbi.DEVICE_ATTR_SIZE);
        m.put(off(attr, "max_mr_size"), IbvAbi.DEVICE_ATTR_MAX_MR_SIZE);
        m.put(off(attr, "vendor_id"), IbvAbi.DEVICE_ATTR_VENDOR_ID);
        m.put(off(attr, "max_qp_wr"), IbvAbi.DEVICE_ATTR_MAX_QP_WR);
        m.put(off(attr, "device_cap_flags"), IbvAbi.DEVICE_ATTR_DEVICE_CAP_FLAGS);
        m.put(off(attr, "max_sge"), IbvAbi.DEVICE_ATTR_MAX_SGE);
        m.put(off(attr, "max_cqe"), IbvAbi.DEVICE_ATTR_MAX_CQE);
        m.put(off(attr, "max_qp_rd_atom"), IbvAbi.DEVICE_ATTR_MAX_QP_RD_ATOM);
        m.put(off(attr, "max_qp_init_rd_atom"), IbvAbi.DEVICE_ATTR_MAX_QP_INIT_RD_ATOM);
        m.put(off(attr, "max_mw"), IbvAbi.DEVICE_ATTR_MAX_MW);
        m.put(off(attr, "max_fmr"), IbvAbi.DEVICE_ATTR_MAX_FMR);
        m.put(off(attr, "phys_port_cnt"), IbvAbi.DEVICE_ATTR_PHYS_PORT_CNT);
        String port = "struct ibv_port_attr";
        m.put("sizeof(" + port + ")", IbvAbi.PORT_ATTR_SIZE);
        m.put(off(port, "state"), IbvAbi.PORT_ATTR_STATE);
        m.put(off(port, "active_mtu"), IbvAbi.PORT_ATTR_ACTIVE_MTU);
        m.put(off(port, "link_layer"), IbvAbi.PORT_ATTR_LINK_LAYER);
        String sge = "struct ibv_sge";
        m.put("sizeof(" + sge + ")", IbvAbi.SGE_SIZE);
        m.put(off(sge, "addr"), IbvAbi.SGE_ADDR);
        m.put(off(sge, "length"), IbvAbi.SGE_LENGTH);
        m.put(off(sge, "lkey"), IbvAbi.SGE_LKEY);
        String swr = "struct ibv_send_wr";
        m.put("sizeof(" + swr + ")", IbvAbi.SEND_WR_SIZE);
        m.put(off(swr, "wr_id"), IbvAbi.SEND_WR_WR_ID);
        m.put(off(swr, "next"), IbvAbi.SEND_WR_NEXT);
        m.put(off(swr, "sg_list"), IbvAbi.SEND_WR_SG_LIST);
        m.put(off(swr, "num_sge"), IbvAbi.SEND_WR_NUM_SGE);
        m.put(off(swr, "opcode"), IbvAbi.SEND_WR_OPCODE);
        m.put(off(swr, "send_flags"), IbvAbi.SEND_WR_SEND_FLAGS);
        m.put(off(swr, "invalidate_rkey"), IbvAbi.SEND_WR_INVALIDATE_RKEY);
        m.put(off(swr, "imm_data"), IbvAbi.SEND_WR_INVALIDATE_RKEY);
        m.put(off(swr, "wr.rdma.remote_addr"), IbvAbi.SEND_WR_RDMA_REMOTE_ADDR);
        m.put(off(swr, "wr.rdma.rkey"), IbvAbi.SEND_WR_RDMA_RKEY);
        m.put(off(swr, "bind_mw.mw"), IbvAbi.SEND_WR_BIND_MW_MW);
        m.put(off(swr, "bind_mw.rkey"), IbvAbi.SEND_WR_BIND_MW_RKEY);
        m.put(off(swr, "bind_mw.bind_info"), IbvAbi.SEND_WR_BIND_MW_BIND_INFO);
        String bind = "struct ibv_mw_bind_info";
        m.put(off(bind, "mr"), IbvAbi.MW_BIND_INFO_MR);
        m.put(off(bind, "addr"), IbvAbi.MW_BIND_INFO_ADDR);
        m.put(off(bind, "length"), IbvAbi.MW_BIND_INFO_LENGTH);
        m.put(off(bind, "mw_access_flags"), IbvAbi.MW_BIND_INFO_ACCESS);
        String rwr = "struct ibv_recv_wr";
        m.put("sizeof(" + rwr + ")", IbvAbi.RECV_WR_SIZE);
        m.put(off(rwr, "wr_id"), IbvAbi.RECV_WR_WR_ID);
        m.put(off(rwr, "next"), IbvAbi.RECV_WR_NEXT);
        m.put(off(rwr, "sg_list"), IbvAbi.RECV_WR_SG_LIST);
        m.put(off(rwr, "num_sge"), IbvAbi.RECV_WR_NUM_SGE);
        String wc = "struct ibv_wc";
        m.put("sizeof(" + wc + ")", IbvAbi.WC_SIZE);
        m.put(off(wc, "wr_id"), IbvAbi.WC_WR_ID);
        m.put(off(wc, "status"), IbvAbi.WC_STATUS);
        m.put(off(wc, "opcode"), IbvAbi.WC_OPCODE);
        m.put(off(wc, "vendor_err"), IbvAbi.WC_VENDOR_ERR);
        m.put(off(wc, "byte_len"), IbvAbi.WC_BYTE_LEN);
        m.put(off(wc, "invalidated_rkey"), IbvAbi.WC_INVALIDATED_RKEY);
        m.put(off(wc, "qp_num"), IbvAbi.WC_QP_NUM);
        m.put(off(wc, "wc_flags"), IbvAbi.WC_WC_FLAGS);
        m.put(off("struct ibv_mr", "addr"), IbvAbi.MR_ADDR);
        m.put(off("struct ibv_mr", "length"), IbvAbi.MR_LENGTH);
        m.put(off("struct ibv_mr", "lkey"), IbvAbi.MR_LKEY);
        m.put(off("struct ibv_mr", "rkey"), IbvAbi.MR_RKEY);
        m.put(off("struct ibv_mw", "rkey"), IbvAbi.MW_RKEY);
        m.put(off("struct ibv_cq", "context"), IbvAbi.CQ_CONTEXT);
        m.put(off("struct ibv_cq", "cqe"), IbvAbi.CQ_CQE);
        m.put("sizeof(struct ibv_cq)", IbvAbi.CQ_SIZE);
        m.put(off("struct ibv_qp", "context"), IbvAbi.QP_CONTEXT);
        m.put(off("struct ibv_qp", "qp_num"), IbvAbi.QP_QP_NUM);
        m.put(off("struct ibv_comp_channel", "fd"), IbvAbi.COMP_CHANNEL_FD);
        String qpa = "struct ibv_qp_init_attr";
        m.put("sizeof(" + qpa + ")", IbvAbi.QP_INIT_ATTR_SIZE);
        m.put(off(qpa, "qp_context"), IbvAbi.QP_INIT_ATTR_QP_CONTEXT);
        m.put(off(qpa, "send_cq"), IbvAbi.QP_INIT_ATTR_SEND_CQ);
        m.put(off(qpa, "recv_cq"), IbvAbi.QP_INIT_ATTR_RECV_CQ);
        m.put(off(qpa, "cap"), IbvAbi.QP_INIT_ATTR_CAP);
        m.put(off(qpa, "qp_type"), IbvAbi.QP_INIT_ATTR_QP_TYPE);
        m.put(off(qpa, "sq_sig_all"), IbvAbi.QP_INIT_ATTR_SQ_SIG_ALL);
        String cap = "struct ibv_qp_cap";
        m.put(off(cap, "max_send_wr"), IbvAbi.QP_CAP_MAX_SEND_WR);
        m.put(off(cap, "max_recv_wr"), IbvAbi.QP_CAP_MAX_RECV_WR);
        m.put(off(cap, "max_send_sge"), IbvAbi.QP_CAP_MAX_SEND_SGE);
        m.put(off(cap, "max_recv_sge"), IbvAbi.QP_CAP_MAX_RECV_SGE);
        m.put(off(cap, "max_inline_data"), IbvAbi.QP_CAP_MAX_INLINE_DATA);
        m.put("IBV_TRANSPORT_IB", (long) IbvAbi.TRANSPORT_IB);
        m.put("IBV_TRANSPORT_IWARP", (long) IbvAbi.TRANSPORT_IWARP);
        m.put("IBV_LINK_LAYER_INFINIBAND", (long) IbvAbi.LINK_LAYER_INFINIBAND);
        m.put("IBV_LINK_LAYER_ETHERNET", (long) IbvAbi.LINK_LAYER_ETHERNET);
        m.put("IBV_DEVICE_MEM_WINDOW", (long) IbvAbi.DEVICE_MEM_WINDOW);
        m.put("IBV_DEVICE_MEM_MGT_EXTENSIONS", (long) IbvAbi.DEVICE_MEM_MGT_EXTENSIONS);
        m.put("IBV_DEVICE_MEM_WINDOW_TYPE_2A", (long) IbvAbi.DEVICE_MEM_WINDOW_TYPE_2A);
        m.put("IBV_DEVICE_MEM_WINDOW_TYPE_2B", (long) IbvAbi.DEVICE_MEM_WINDOW_TYPE_2B);
        m.put("IBV_WR_RDMA_WRITE", (long) IbvAbi.WR_RDMA_WRITE);
        m.put("IBV_WR_SEND", (long) IbvAbi.WR_SEND);
        m.put("IBV_WR_RDMA_READ", (long) IbvAbi.WR_RDMA_READ);
        m.put("IBV_WR_LOCAL_INV", (long) IbvAbi.WR_LOCAL_INV);
        m.put("IBV_WR_BIND_MW", (long) IbvAbi.WR_BIND_MW);
        m.put("IBV_WR_SEND_WITH_INV", (long) IbvAbi.WR_SEND_WITH_INV);
        m.put("IBV_ACCESS_LOCAL_WRITE", (long) IbvAbi.ACCESS_LOCAL_WRITE);
        m.put("IBV_ACCESS_REMOTE_WRITE", (long) IbvAbi.ACCESS_REMOTE_WRITE);
        m.put("IBV_ACCESS_REMOTE_READ", (long) IbvAbi.ACCESS_REMOTE_READ);
        m.put("IBV_SEND_FENCE", (long) IbvAbi.SEND_FENCE);
        m.put("IBV_SEND_SIGNALED", (long) IbvAbi.SEND_SIGNALED);
        m.put("IBV_SEND_SOLICITED", (long) IbvAbi.SEND_SOLICITED);
        m.put("IBV_SEND_INLINE", (long) IbvAbi.SEND_INLINE);
        m.put("IBV_QPT_RC", (long) IbvAbi.QPT_RC);
        m.put("IBV_WC_SUCCESS", (long) IbvAbi.WC_SUCCESS);
        for (int i = 0; i < IbvAbi.WC_STATUS_NAMES.length; i++) {
            m.put("IBV_WC_" + IbvAbi.WC_STATUS_NAMES[i], (long) i);
        }
        m.put("IBV_WC_WR_FLUSH_ERR + 0", (long) IbvAbi.WC_WR_FLUSH_ERR);
        m.put("IBV_WC_SEND", (long) IbvAbi.WC_OP_SEND);
        m.put("IBV_WC_RDMA_WRITE", (long) IbvAbi.WC_OP_RDMA_WRITE);
        m.put("IBV_WC_RDMA_READ", (long) IbvAbi.WC_OP_RDMA_READ);
        m.put("IBV_WC_RECV", (long) IbvAbi.WC_OP_RECV);
        m.put("IBV_ACCESS_MW_BIND", (long) IbvAbi.ACCESS_MW_BIND);
        m.put("IBV_MW_TYPE_2", (long) IbvAbi.MW_TYPE_2);
        m.put("IBV_WC_BIND_MW", (long) IbvAbi.WC_OP_BIND_MW);
        m.put("IBV_WC_LOCAL_INV", (long) IbvAbi.WC_OP_LOCAL_INV);
        m.put("IBV_WC_WITH_INV", (long) IbvAbi.WC_WITH_INV);
        m.put("IBV_WC_REM_ACCESS_ERR", (long) IbvAbi.WC_REM_ACCESS_ERR);
        m.put("sizeof(struct ibv_mw)", IbvAbi.MW_SIZE);
        m.put("RDMA_PS_TCP", (long) RdmaCmAbi.PS_TCP);
        for (int i = 0; i < RdmaCmAbi.EVENT_NAMES.length; i++) {
            m.put("RDMA_CM_EVENT_" + RdmaCmAbi.EVENT_NAMES[i], (long) i);
        }
        m.put("RDMA_CM_EVENT_ADDR_RESOLVED + 0", (long) RdmaCmAbi.EVENT_ADDR_RESOLVED);
        m.put("RDMA_CM_EVENT_ADDR_ERROR + 0", (long) RdmaCmAbi.EVENT_ADDR_ERROR);
        m.put("RDMA_CM_EVENT_ROUTE_RESOLVED + 0", (long) RdmaCmAbi.EVENT_ROUTE_RESOLVED);
        m.put("RDMA_CM_EVENT_ROUTE_ERROR + 0", (long) RdmaCmAbi.EVENT_ROUTE_ERROR);
        m.put("RDMA_CM_EVENT_CONNECT_REQUEST + 0", (long) RdmaCmAbi.EVENT_CONNECT_REQUEST);
        m.put("RDMA_CM_EVENT_CONNECT_RESPONSE + 0", (long) RdmaCmAbi.EVENT_CONNECT_RESPONSE);
        m.put("RDMA_CM_EVENT_CONNECT_ERROR + 0", (long) RdmaCmAbi.EVENT_CONNECT_ERROR);
        m.put("RDMA_CM_EVENT_UNREACHABLE + 0", (long) RdmaCmAbi.EVENT_UNREACHABLE);
        m.put("RDMA_CM_EVENT_REJECTED + 0", (long) RdmaCmAbi.EVENT_REJECTED);
        m.put("RDMA_CM_EVENT_ESTABLISHED + 0", (long) RdmaCmAbi.EVENT_ESTABLISHED);
        m.put("RDMA_CM_EVENT_DISCONNECTED + 0", (long) RdmaCmAbi.EVENT_DISCONNECTED);
        m.put("RDMA_CM_EVENT_DEVICE_REMOVAL + 0", (long) RdmaCmAbi.EVENT_DEVICE_REMOVAL);
        m.put("RDMA_CM_EVENT_ADDR_CHANGE + 0", (long) RdmaCmAbi.EVENT_ADDR_CHANGE);
        m.put("RDMA_CM_EVENT_TIMEWAIT_EXIT + 0", (long) RdmaCmAbi.EVENT_TIMEWAIT_EXIT);
        String id = "struct rdma_cm_id";
        m.put(off(id, "verbs"), RdmaCmAbi.CM_ID_VERBS);
        m.put(off(id, "context"), RdmaCmAbi.CM_ID_CONTEXT);
        m.put(off(id, "qp"), RdmaCmAbi.CM_ID_QP);
        m.put(off(id, "port_num"), RdmaCmAbi.CM_ID_PORT_NUM);
        m.put(off(id, "route.addr.src_addr"), RdmaCmAbi.CM_ID_SRC_ADDR);
        m.put(off(id, "route.addr.dst_addr"), RdmaCmAbi.CM_ID_DST_ADDR);
        m.put(off(id, "pd"), RdmaCmAbi.CM_ID_PD);
        String ev = "struct rdma_cm_event";
        m.put("sizeof(" + ev + ")", RdmaCmAbi.CM_EVENT_SIZE);
        m.put("sizeof(struct sockaddr_in)", RdmaCm.SOCKADDR_IN_SIZE);
        m.put("sizeof(struct sockaddr_in6)", RdmaCm.SOCKADDR_IN6_SIZE);
        m.put(off("struct sockaddr_in6", "sin6_addr"), RdmaCm.SIN6_ADDR);
        m.put(off("struct sockaddr_in6", "sin6_scope_id"), RdmaCm.SIN6_SCOPE_ID);
        m.put(off(ev, "id"), RdmaCmAbi.CM_EVENT_ID);
        m.put(off(ev, "listen_id"), RdmaCmAbi.CM_EVENT_LISTEN_ID);
        m.put(off(ev, "event"), RdmaCmAbi.CM_EVENT_EVENT);
        m.put(off(ev, "status"), RdmaCmAbi.CM_EVENT_STATUS);
        m.put(off(ev, "param.conn.private_data"), RdmaCmAbi.CM_EVENT_CONN_PRIVATE_DATA);
        m.put(off(ev, "param.conn.private_data_len"), RdmaCmAbi.CM_EVENT_CONN_PRIVATE_DATA_LEN);
        m.put(off(ev, "param.conn.responder_resources"), RdmaCmAbi.CM_EVENT_CONN_RESPONDER_RESOURCES);
        m.put(off(ev, "param.conn.initiator_depth"), RdmaCmAbi.CM_EVENT_CONN_INITIATOR_DEPTH);
        String cp = "struct rdma_conn_param";
        m.put("sizeof(" + cp + ")", RdmaCmAbi.CONN_PARAM_SIZE);
        m.put(off(cp, "private_data"), RdmaCmAbi.CONN_PARAM_PRIVATE_DATA);
        m.put(off(cp, "private_data_len"), RdmaCmAbi.CONN_PARAM_PRIVATE_DATA_LEN);
        m.put(off(cp, "responder_resources"), RdmaCmAbi.CONN_PARAM_RESPONDER_RESOURCES);
        m.put(off(cp, "initiator_depth"), RdmaCmAbi.CONN_PARAM_INITIATOR_DEPTH);
        m.put(off(cp, "flow_control"), RdmaCmAbi.CONN_PARAM_FLOW_CONTROL);
        m.put(off(cp, "retry_count"), RdmaCmAbi.CONN_PARAM_RETRY_COUNT);
        m.put(off(cp, "rnr_retry_count"), RdmaCmAbi.CONN_PARAM_RNR_RETRY_COUNT);
        m.put(off("struct rdma_event_channel", "fd"), RdmaCmAbi.EVENT_CHANNEL_FD);
        m.put("sizeof(struct pollfd)", Libc.POLLFD_SIZE);
        m.put(off("struct pollfd", "fd"), Libc.POLLFD_FD);
        m.put(off("struct pollfd", "events"), Libc.POLLFD_EVENTS);
        m.put(off("struct pollfd", "revents"), Libc.POLLFD_REVENTS);
        m.put("POLLIN", (long) Libc.POLLIN);
        m.put("EFD_NONBLOCK | EFD_CLOEXEC", (long) Libc.EFD_FLAGS);
        return m;
    }

    private static String off(String struct, String member) {
        return "offsetof(" + struct + ", " + member + ")";
    }
}
