package org.rpcrdma4j.nfs.server.v4;

import org.dcache.oncrpc4j.rpc.RpcAuth;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;

import java.nio.charset.StandardCharsets;

import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.v4.ChannelAttributesXdr;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Exception;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.state.ChannelAttributes;
import org.rpcrdma4j.nfs.v4.state.CreateSessionResult;
import org.rpcrdma4j.nfs.v4.state.ExchangeIdResult;
import org.rpcrdma4j.nfs.v4.state.SequenceResult;
import org.rpcrdma4j.nfs.v4.state.Session;
import org.rpcrdma4j.nfs.v4.state.SessionId;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * The session operations (RFC 8881 sections 18.35-18.37, 18.46, 18.50, 18.51, 18.34, 18.33): EXCHANGE_ID,
 * CREATE_SESSION, SEQUENCE, DESTROY_SESSION, DESTROY_CLIENTID, RECLAIM_COMPLETE, BIND_CONN_TO_SESSION and
 * BACKCHANNEL_CTL. The rules live in the state layer ({@link org.rpcrdma4j.nfs.v4.state.ClientTable}); these classes
 * carry its arguments and results over XDR. State protection is SP4_NONE only: SP4_MACH_CRED needs an
 * integrity-protected RPC (NFS4ERR_INVAL under AUTH_SYS, as Linux's server answers), SP4_SSV is
 * NFS4ERR_ENCR_ALG_UNSUPP.
 */
final class SessionOps {
    /** {@code server_owner4.so_major_id} and {@code eir_server_scope}: one server, no trunking across hosts. */
    static final byte[] SERVER_OWNER = "rpcrdma4j".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] IMPL_DOMAIN = "rpcrdma4j.org".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] IMPL_NAME = "rpcrdma4j NFSv4.1 server".getBytes(StandardCharsets.US_ASCII);
    private static final int SP4_NONE = 0;
    private static final int SP4_MACH_CRED = 1;
    private static final int SP4_SSV = 2;
    /** Most entries accepted in a {@code callback_sec_parms4<>} and similar small arrays. */
    private static final int MAX_ARRAY = 16;

    private SessionOps() {
    }

    /** Whether {@code op} may come first without SEQUENCE (then as the COMPOUND's only operation). */
    static boolean runsAlone(Op op) {
        return op instanceof ExchangeId || op instanceof CreateSession || op instanceof DestroySession
                || op instanceof DestroyClientId || op instanceof BindConnToSession;
    }

    static byte[] decodeSessionId(XdrDecodingStream xdr) throws BadXdrException {
        return Nfs3Xdr.decodeFixedOpaque(xdr, Nfs4.SESSIONID_SIZE);
    }

    /**
     * What a SEQUENCE's slot remembers of its request, to tell a retry from another request on a reused sequence id:
     * the operation count and the caller's credential (flavor, and the AUTH_SYS identity), which Linux's server
     * compares too.
     */
    record Request(int opCount, int flavor, org.rpcrdma4j.nfs.server.Caller caller) {
        static Request of(Compound c) {
            int flavor = c.call == null || c.call.getCredential() == null ? -1 : c.call.getCredential().type();
            return new Request(c.opCount, flavor, org.rpcrdma4j.nfs.server.Caller.of(c.call, null));
        }
    }

    static final class Sequence extends Op {
        /** {@code nfs_resop4} of a SEQUENCE that went through: opcode, status, session, five words. */
        static final int RESULT_SIZE = 4 + 4 + Nfs4.SESSIONID_SIZE + 5 * 4;
        private byte[] sessionId;
        private int seqId;
        private int slotId;
        private int highestSlotId;
        private boolean cacheThis;
        private SequenceResult result;

        Sequence() {
            super(Nfs4.OP_SEQUENCE);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            sessionId = decodeSessionId(xdr);
            seqId = Nfs3Xdr.decodeInt(xdr);
            slotId = Nfs3Xdr.decodeInt(xdr);
            highestSlotId = Nfs3Xdr.decodeInt(xdr);
            cacheThis = Nfs3Xdr.decodeBool(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            Session s = c.server.clients.session(sessionId);
            if (c.opCount > s.fore().maxOperations()) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_TOO_MANY_OPS, c.opCount + " operations, the session "
                        + "allows " + s.fore().maxOperations());
            }
            int size = c.requestSize();
            if (Integer.toUnsignedLong(size) > Integer.toUnsignedLong(s.fore().maxRequestSize())) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_REQ_TOO_BIG, "a request of " + size + " bytes, the "
                        + "session allows " + Integer.toUnsignedString(s.fore().maxRequestSize())
                        + " (ca_maxrequestsize)");
            }
            c.replyKept = cacheThis;
            c.replyLimit = Integer.toUnsignedLong(cacheThis ? s.fore().maxResponseSizeCached()
                    : s.fore().maxResponseSize());
            if (c.replyRoom() < RESULT_SIZE) {
                // as Linux's server, before the slot is touched: not even this result fits the reply
                throw c.replyTooBig("SEQUENCE's result");
            }
            result = c.server.clients.sequence(sessionId, seqId, slotId, highestSlotId, cacheThis,
                    Request.of(c));
            c.session = result.session();
            c.clientId = result.session().clientId();
            c.slotId = slotId;
            c.sequenceId = seqId;
        }

        /** The reply to send again instead of running the COMPOUND, or null. */
        byte[] replay() {
            return result != null && result.verdict().isReplay() ? result.verdict().cachedReply() : null;
        }

        /** Whether the client asked for the reply to be kept: it must then be encoded into bytes. */
        boolean cacheThis() {
            return cacheThis;
        }

        /** Ends the slot's request with the COMPOUND's reply, kept when the client asked; null when it did not. */
        void finish(Compound c, byte[] reply) {
            if (result != null && !result.verdict().isReplay()) {
                if (reply != null) {
                    c.server.clients.completeSequence(result.session(), slotId, reply);
                } else {
                    c.server.clients.releaseSlot(result.session(), slotId);
                }
            }
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeOpaque(sessionId, 0, Nfs4.SESSIONID_SIZE);
            xdr.xdrEncodeInt(seqId);
            xdr.xdrEncodeInt(slotId);
            xdr.xdrEncodeInt(result.highestSlotId());
            xdr.xdrEncodeInt(result.targetHighestSlotId());
            xdr.xdrEncodeInt(result.statusFlags());
        }
    }

    static final class ExchangeId extends Op {
        private byte[] verifier;
        private byte[] ownerId;
        private int flags;
        private int protection;
        private ExchangeIdResult result;

        ExchangeId() {
            super(Nfs4.OP_EXCHANGE_ID);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            verifier = Nfs3Xdr.decodeFixedOpaque(xdr, Nfs4.VERIFIER_SIZE);
            ownerId = Nfs3Xdr.decodeOpaque(xdr, Nfs4.OPAQUE_LIMIT, "co_ownerid");
            flags = Nfs3Xdr.decodeInt(xdr);
            protection = Nfs3Xdr.decodeInt(xdr);
            if (protection == SP4_MACH_CRED) {
                org.rpcrdma4j.nfs.v4.Bitmap4.decode(xdr);
                org.rpcrdma4j.nfs.v4.Bitmap4.decode(xdr);
            } else if (protection != SP4_NONE) {
                return; // SP4_SSV or unknown: refused before anything after it is needed
            }
            int impl = Nfs3Xdr.decodeLength(xdr, 1, "eia_client_impl_id");
            if (impl == 1) {
                Nfs3Xdr.decodeOpaque(xdr, Nfs4.DECODE_MAX_NAME, "nii_domain");
                Nfs3Xdr.decodeOpaque(xdr, Nfs4.DECODE_MAX_NAME, "nii_name");
                Nfs3Xdr.decodeLong(xdr);
                Nfs3Xdr.decodeInt(xdr);
            }
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            if (protection == SP4_MACH_CRED) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "SP4_MACH_CRED needs an integrity-protected RPC");
            }
            if (protection == SP4_SSV) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_ENCR_ALG_UNSUPP, "SP4_SSV is not supported");
            }
            if (protection != SP4_NONE) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "state_protect_how4 " + protection);
            }
            if ((flags & ExchangeIdResult.FLAG_CONFIRMED_R) != 0) {
                throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "EXCHGID4_FLAG_CONFIRMED_R from a client");
            }
            result = c.server.clients.exchangeId(ownerId, verifier, flags);
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeLong(result.clientId());
            xdr.xdrEncodeInt(result.sequenceId());
            xdr.xdrEncodeInt(result.flags());
            xdr.xdrEncodeInt(SP4_NONE);
            xdr.xdrEncodeLong(0); // so_minor_id
            Nfs3Xdr.encodeOpaque(xdr, SERVER_OWNER);
            Nfs3Xdr.encodeOpaque(xdr, SERVER_OWNER); // eir_server_scope
            xdr.xdrEncodeInt(1);
            Nfs3Xdr.encodeOpaque(xdr, IMPL_DOMAIN);
            Nfs3Xdr.encodeOpaque(xdr, IMPL_NAME);
            xdr.xdrEncodeLong(0);
            xdr.xdrEncodeInt(0);
        }
    }



    /**
     * {@code callback_sec_parms4<>}: what the client's callback service takes. The first AUTH_SYS credential offered
     * is the one callbacks carry (the Linux client's callback service refuses any other call than CB_NULL without
     * one), else AUTH_NONE when offered; null when neither is (RPCSEC_GSS, which this server does not speak).
     */
    static RpcAuth decodeCallbackSecurity(XdrDecodingStream xdr) throws BadXdrException {
        int n = Nfs3Xdr.decodeLength(xdr, MAX_ARRAY, "callback_sec_parms4");
        RpcAuth chosen = null;
        for (int i = 0; i < n; i++) {
            int flavor = Nfs3Xdr.decodeInt(xdr);
            switch (flavor) {
                case 0 -> {
                    if (chosen == null) {
                        chosen = new RpcAuthTypeNone();
                    }
                }
                case 1 -> {
                    int stamp = Nfs3Xdr.decodeInt(xdr);
                    byte[] machine = Nfs3Xdr.decodeOpaque(xdr, 255, "machinename");
                    int uid = Nfs3Xdr.decodeInt(xdr);
                    int gid = Nfs3Xdr.decodeInt(xdr);
                    int count = Nfs3Xdr.decodeLength(xdr, MAX_ARRAY, "gids");
                    int[] gids = new int[count];
                    for (int g = 0; g < count; g++) {
                        gids[g] = Nfs3Xdr.decodeInt(xdr);
                    }
                    if (!(chosen instanceof RpcAuthTypeUnix)) {
                        chosen = new RpcAuthTypeUnix(uid, gid, gids, stamp,
                                new String(machine, StandardCharsets.UTF_8));
                    }
                }
                case 6 -> {
                    Nfs3Xdr.decodeInt(xdr);
                    Nfs3Xdr.decodeOpaque(xdr, Nfs4.DECODE_MAX_OPAQUE, "gcbp_handle_from_server");
                    Nfs3Xdr.decodeOpaque(xdr, Nfs4.DECODE_MAX_OPAQUE, "gcbp_handle_from_client");
                }
                default -> throw new BadXdrException("callback security flavor " + flavor);
            }
        }
        return chosen;
    }

    static final class CreateSession extends Op {
        private long clientId;
        private int sequence;
        private int flags;
        private ChannelAttributes fore;
        private ChannelAttributes back;
        private int callbackProgram;
        private RpcAuth security;
        private CreateSessionResult result;

        CreateSession() {
            super(Nfs4.OP_CREATE_SESSION);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            clientId = Nfs3Xdr.decodeLong(xdr);
            sequence = Nfs3Xdr.decodeInt(xdr);
            flags = Nfs3Xdr.decodeInt(xdr);
            fore = ChannelAttributesXdr.decode(xdr);
            back = ChannelAttributesXdr.decode(xdr);
            callbackProgram = Nfs3Xdr.decodeInt(xdr);
            security = decodeCallbackSecurity(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            result = c.server.clients.createSession(clientId, sequence, flags, fore, back, callbackProgram);
            c.server.backChannel.setUp(c.server.clients, result.sessionId(), security, c.minorVersion);
            if ((result.flags() & CreateSessionResult.FLAG_CONN_BACK_CHAN) != 0 && c.call != null) {
                c.server.backChannel.probe(c.server.clients, result.sessionId(), callbackProgram,
                        c.call.getTransport());
            }
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeOpaque(result.sessionId().toByteArray(), 0, Nfs4.SESSIONID_SIZE);
            xdr.xdrEncodeInt(result.sequence());
            xdr.xdrEncodeInt(result.flags());
            ChannelAttributesXdr.encode(xdr, result.fore());
            ChannelAttributesXdr.encode(xdr, result.back());
        }
    }

    static final class DestroySession extends Op {
        private byte[] sessionId;

        DestroySession() {
            super(Nfs4.OP_DESTROY_SESSION);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            sessionId = decodeSessionId(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            c.server.clients.destroySession(sessionId);
            c.server.backChannel.forget(SessionId.of(sessionId));
        }
    }

    static final class DestroyClientId extends Op {
        private long clientId;

        DestroyClientId() {
            super(Nfs4.OP_DESTROY_CLIENTID);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            clientId = Nfs3Xdr.decodeLong(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            c.server.clients.destroyClientId(clientId);
        }
    }

    static final class ReclaimComplete extends Op {
        private boolean oneFs;

        ReclaimComplete() {
            super(Nfs4.OP_RECLAIM_COMPLETE);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            oneFs = Nfs3Xdr.decodeBool(xdr);
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            c.server.clients.reclaimComplete(c.clientId, oneFs);
        }
    }

    /**
     * BIND_CONN_TO_SESSION: every connection already serves the sessions' fore channels; the answer names the
     * directions. A connection bound for the back channel too is probed (CB_NULL) and becomes the session's callback
     * path when it answers.
     */
    static final class BindConnToSession extends Op {
        private static final int CDFC4_FORE = 1;
        private static final int CDFC4_BACK = 2;
        private static final int CDFC4_FORE_OR_BOTH = 3;
        private static final int CDFC4_BACK_OR_BOTH = 7;
        private byte[] sessionId;
        private int direction;
        private int answer;

        BindConnToSession() {
            super(Nfs4.OP_BIND_CONN_TO_SESSION);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            sessionId = decodeSessionId(xdr);
            direction = Nfs3Xdr.decodeInt(xdr);
            Nfs3Xdr.decodeBool(xdr); // RDMA mode: not used
        }

        @Override
        void execute(Compound c) throws Nfs4Exception {
            Session s = c.server.clients.session(sessionId);
            boolean back = (s.flags() & CreateSessionResult.FLAG_CONN_BACK_CHAN) != 0;
            answer = switch (direction) {
                case CDFC4_FORE -> 1;
                case CDFC4_BACK -> 2;
                case CDFC4_FORE_OR_BOTH, CDFC4_BACK_OR_BOTH -> back ? 3 : direction == CDFC4_FORE_OR_BOTH ? 1 : 2;
                default -> throw new Nfs4Exception(Nfs4Status.NFS4ERR_INVAL, "channel_dir_from_client4 "
                        + direction);
            };
            if ((answer & CDFC4_BACK) != 0 && back && c.call != null) {
                c.server.backChannel.probe(c.server.clients, s.id(), s.callbackProgram(), c.call.getTransport());
            }
        }

        @Override
        void encodeOk(XdrEncodingStream xdr) {
            xdr.xdrEncodeOpaque(sessionId, 0, Nfs4.SESSIONID_SIZE);
            xdr.xdrEncodeInt(answer);
            xdr.xdrEncodeBoolean(false);
        }
    }

    static final class BackchannelCtl extends Op {
        private RpcAuth security;

        BackchannelCtl() {
            super(Nfs4.OP_BACKCHANNEL_CTL);
        }

        @Override
        void decode(XdrDecodingStream xdr) throws BadXdrException {
            Nfs3Xdr.decodeInt(xdr); // bca_cb_program: callbacks keep the session's
            security = decodeCallbackSecurity(xdr);
        }

        @Override
        void execute(Compound c) {
            if (c.session != null) {
                c.server.backChannel.setUp(c.server.clients, c.session.id(), security, c.minorVersion);
            }
        }
    }
}
