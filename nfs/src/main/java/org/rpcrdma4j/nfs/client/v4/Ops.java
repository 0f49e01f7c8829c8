package org.rpcrdma4j.nfs.client.v4;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.v4.Bitmap4;
import org.rpcrdma4j.nfs.v4.Fattr4;
import org.rpcrdma4j.nfs.v4.Fattr4Decoded;
import org.rpcrdma4j.nfs.v4.ChannelAttributesXdr;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.state.ChannelAttributes;
import org.rpcrdma4j.nfs.xdr.BadXdrException;
import org.rpcrdma4j.nfs.xdr.Nfs3Xdr;

/**
 * The operations the client sends (RFC 8881 section 18), their arguments and the decoding of their results. Every
 * variable-length item of a reply is bounded before anything is allocated ({@link Nfs4}'s {@code DECODE_MAX_*}),
 * every enum and bool checked; a reply that breaks the XDR or says what the call did not ask (another session, slot
 * or sequence id in SEQUENCE, more bytes than asked in READ, more written than sent in WRITE) is a
 * {@link BadXdrException}.
 */
final class Ops {
    private Ops() {
    }

    // ============================================================================================ shared types

    static void encodeName(XdrEncodingStream xdr, String name) {
        Nfs3Xdr.encodeString(xdr, name);
    }

    static void encodeVerifier(XdrEncodingStream xdr, long verifier) {
        xdr.xdrEncodeLong(verifier); // an 8-byte opaque: the same bytes as a hyper, big-endian
    }

    static long decodeVerifier(XdrDecodingStream xdr) throws BadXdrException {
        return ByteBuffer.wrap(Nfs3Xdr.decodeFixedOpaque(xdr, Nfs4.VERIFIER_SIZE)).getLong();
    }

    /** {@code change_info4}: read and checked; the client keeps no directory cache, so the values go unused. */
    static void skipChangeInfo(XdrDecodingStream xdr) throws BadXdrException {
        Nfs3Xdr.decodeBool(xdr);
        Nfs3Xdr.decodeLong(xdr);
        Nfs3Xdr.decodeLong(xdr);
    }

    /** {@code nfs_fh4} as a {@link FileHandle}: at most 128 bytes. */
    static FileHandle decodeFileHandle(XdrDecodingStream xdr) throws BadXdrException {
        byte[] fh = Nfs3Xdr.decodeOpaque(xdr, Nfs4.FHSIZE, "nfs_fh4");
        if (fh.length == 0) {
            throw new BadXdrException("an empty file handle");
        }
        return FileHandle.wrap(fh);
    }

    /** {@code nfsace4}: type, flag, access mask, who (read and dropped). */
    static void skipAce(XdrDecodingStream xdr) throws BadXdrException {
        Nfs3Xdr.decodeInt(xdr);
        Nfs3Xdr.decodeInt(xdr);
        Nfs3Xdr.decodeInt(xdr);
        Nfs3Xdr.decodeOpaque(xdr, Nfs4.DECODE_MAX_NAME, "ace who");
    }



    // ================================================================================================ session

    record SequenceOk(byte[] sessionId, int sequenceId, int slotId, int highestSlotId, int targetHighestSlotId,
                      int statusFlags) {
    }

    static final class Sequence extends Op {
        final byte[] sessionId;
        final int sequenceId;
        final int slotId;
        final int highestSlotId;
        final boolean cacheThis;

        Sequence(byte[] sessionId, int sequenceId, int slotId, int highestSlotId, boolean cacheThis) {
            super(Nfs4.OP_SEQUENCE);
            this.sessionId = sessionId;
            this.sequenceId = sequenceId;
            this.slotId = slotId;
            this.highestSlotId = highestSlotId;
            this.cacheThis = cacheThis;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeOpaque(sessionId, 0, Nfs4.SESSIONID_SIZE);
            xdr.xdrEncodeInt(sequenceId);
            xdr.xdrEncodeInt(slotId);
            xdr.xdrEncodeInt(highestSlotId);
            xdr.xdrEncodeBoolean(cacheThis);
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            byte[] sid = Nfs3Xdr.decodeFixedOpaque(xdr, Nfs4.SESSIONID_SIZE);
            int seq = Nfs3Xdr.decodeInt(xdr);
            int slot = Nfs3Xdr.decodeInt(xdr);
            int highest = Nfs3Xdr.decodeInt(xdr);
            int target = Nfs3Xdr.decodeInt(xdr);
            int flags = Nfs3Xdr.decodeInt(xdr);
            if (!Arrays.equals(sid, sessionId) || seq != sequenceId || slot != slotId) {
                throw new BadXdrException("SEQUENCE answered for another session, slot or sequence id (slot " + slot
                        + " seq " + Integer.toUnsignedString(seq) + ", asked slot " + slotId + " seq "
                        + Integer.toUnsignedString(sequenceId) + ")");
            }
            if (highest < 0 || target < 0) {
                throw new BadXdrException("SEQUENCE slot ids out of range: " + highest + ", " + target);
            }
            return new SequenceOk(sid, seq, slot, highest, target, flags);
        }
    }

    record ExchangeIdOk(long clientId, int sequenceId, int flags, byte[] serverOwner, byte[] serverScope) {
    }

    static final class ExchangeId extends Op {
        private static final byte[] IMPL_DOMAIN = "rpcrdma4j.org".getBytes(StandardCharsets.US_ASCII);
        private static final byte[] IMPL_NAME = "rpcrdma4j NFSv4.1 client".getBytes(StandardCharsets.US_ASCII);
        private final byte[] verifier;
        private final byte[] owner;
        private final int flags;

        ExchangeId(byte[] verifier, byte[] owner, int flags) {
            super(Nfs4.OP_EXCHANGE_ID);
            this.verifier = verifier;
            this.owner = owner;
            this.flags = flags;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeOpaque(verifier, 0, Nfs4.VERIFIER_SIZE);
            Nfs3Xdr.encodeOpaque(xdr, owner);
            xdr.xdrEncodeInt(flags);
            xdr.xdrEncodeInt(Nfs4Ops.SP4_NONE);
            xdr.xdrEncodeInt(1); // eia_client_impl_id<1>
            Nfs3Xdr.encodeOpaque(xdr, IMPL_DOMAIN);
            Nfs3Xdr.encodeOpaque(xdr, IMPL_NAME);
            xdr.xdrEncodeLong(0);
            xdr.xdrEncodeInt(0);
        }

        @Override
        boolean mutating() {
            return true;
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            long clientId = Nfs3Xdr.decodeLong(xdr);
            int seq = Nfs3Xdr.decodeInt(xdr);
            int eirFlags = Nfs3Xdr.decodeInt(xdr);
            int protect = Nfs3Xdr.decodeInt(xdr);
            if (protect != Nfs4Ops.SP4_NONE) {
                throw new BadXdrException("EXCHANGE_ID answered state protection " + protect + " to SP4_NONE");
            }
            Nfs3Xdr.decodeLong(xdr); // so_minor_id
            byte[] major = Nfs3Xdr.decodeOpaque(xdr, Nfs4.OPAQUE_LIMIT, "so_major_id");
            byte[] scope = Nfs3Xdr.decodeOpaque(xdr, Nfs4.OPAQUE_LIMIT, "eir_server_scope");
            int impl = Nfs3Xdr.decodeLength(xdr, 1, "eir_server_impl_id");
            if (impl == 1) {
                Nfs3Xdr.decodeOpaque(xdr, Nfs4.DECODE_MAX_NAME, "nii_domain");
                Nfs3Xdr.decodeOpaque(xdr, Nfs4.DECODE_MAX_NAME, "nii_name");
                Nfs3Xdr.decodeLong(xdr);
                Nfs3Xdr.decodeInt(xdr);
            }
            return new ExchangeIdOk(clientId, seq, eirFlags, major, scope);
        }
    }

    record CreateSessionOk(byte[] sessionId, int sequence, int flags, ChannelAttributes fore,
                           ChannelAttributes back) {
    }

    static final class CreateSession extends Op {
        private final long clientId;
        private final int sequence;
        private final int flags;
        private final ChannelAttributes fore;
        private final ChannelAttributes back;

        CreateSession(long clientId, int sequence, int flags, ChannelAttributes fore, ChannelAttributes back) {
            super(Nfs4.OP_CREATE_SESSION);
            this.clientId = clientId;
            this.sequence = sequence;
            this.flags = flags;
            this.fore = fore;
            this.back = back;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeLong(clientId);
            xdr.xdrEncodeInt(sequence);
            xdr.xdrEncodeInt(flags);
            ChannelAttributesXdr.encode(xdr, fore);
            ChannelAttributesXdr.encode(xdr, back);
            xdr.xdrEncodeInt(Nfs4Ops.CB_PROGRAM);
            xdr.xdrEncodeInt(1); // csa_sec_parms<>: one entry,
            xdr.xdrEncodeInt(0); // AUTH_NONE
        }

        @Override
        boolean mutating() {
            return true;
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            byte[] sid = Nfs3Xdr.decodeFixedOpaque(xdr, Nfs4.SESSIONID_SIZE);
            int seq = Nfs3Xdr.decodeInt(xdr);
            int csrFlags = Nfs3Xdr.decodeInt(xdr);
            ChannelAttributes f = ChannelAttributesXdr.decode(xdr);
            ChannelAttributes b = ChannelAttributesXdr.decode(xdr);
            if (seq != sequence) {
                throw new BadXdrException("CREATE_SESSION answered sequence " + seq + " to " + sequence);
            }
            if (f.maxRequests() == 0 || Integer.compareUnsigned(f.maxOperations(), 2) < 0) {
                throw new BadXdrException("CREATE_SESSION granted " + f.maxRequests() + " slots and "
                        + f.maxOperations() + " operations");
            }
            return new CreateSessionOk(sid, seq, csrFlags, f, b);
        }
    }

    /**
     * BIND_CONN_TO_SESSION of the connection the call goes on, for the fore channel and the back channel where the
     * session has one (CDFC4_FORE_OR_BOTH, not in RDMA mode: RPC-over-RDMA is the transport's business).
     */
    static final class BindConnToSession extends Op {
        static final int CDFC4_FORE_OR_BOTH = 3;
        private final byte[] sessionId;

        BindConnToSession(byte[] sessionId) {
            super(Nfs4.OP_BIND_CONN_TO_SESSION);
            this.sessionId = sessionId;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeOpaque(sessionId, 0, Nfs4.SESSIONID_SIZE);
            xdr.xdrEncodeInt(CDFC4_FORE_OR_BOTH);
            xdr.xdrEncodeBoolean(false);
        }

        /** @return {@code bctsr_dir}: 1 fore, 2 back, 3 both */
        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            byte[] sid = Nfs3Xdr.decodeFixedOpaque(xdr, Nfs4.SESSIONID_SIZE);
            if (!java.util.Arrays.equals(sid, sessionId)) {
                throw new BadXdrException("BIND_CONN_TO_SESSION answered for another session");
            }
            int dir = Nfs3Xdr.decodeInt(xdr);
            Nfs3Xdr.decodeBool(xdr); // RDMA mode
            return dir;
        }
    }

    static final class DestroySession extends Op {
        private final byte[] sessionId;

        DestroySession(byte[] sessionId) {
            super(Nfs4.OP_DESTROY_SESSION);
            this.sessionId = sessionId;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeOpaque(sessionId, 0, Nfs4.SESSIONID_SIZE);
        }

        @Override
        boolean mutating() {
            return true;
        }
    }

    static final class DestroyClientId extends Op {
        private final long clientId;

        DestroyClientId(long clientId) {
            super(Nfs4.OP_DESTROY_CLIENTID);
            this.clientId = clientId;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeLong(clientId);
        }

        @Override
        boolean mutating() {
            return true;
        }
    }

    static final class ReclaimComplete extends Op {
        ReclaimComplete() {
            super(Nfs4.OP_RECLAIM_COMPLETE);
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeBoolean(false); // rca_one_fs: for all file systems
        }

        @Override
        boolean mutating() {
            return true;
        }
    }

    // ========================================================================================= current handle

    /** An operation without arguments or result (PUTROOTFH, LOOKUPP, SAVEFH, RESTOREFH). */
    static final class Plain extends Op {
        Plain(int opcode) {
            super(opcode);
        }

        @Override
        void encode(XdrEncodingStream xdr) {
        }
    }

    static final class PutFh extends Op {
        private final FileHandle fh;

        PutFh(FileHandle fh) {
            super(Nfs4.OP_PUTFH);
            this.fh = fh;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            Nfs3Xdr.encodeOpaque(xdr, fh.unsafeBytes());
        }
    }

    static final class GetFh extends Op {
        GetFh() {
            super(Nfs4.OP_GETFH);
        }

        @Override
        void encode(XdrEncodingStream xdr) {
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            return decodeFileHandle(xdr);
        }
    }

    static final class Lookup extends Op {
        private final String name;

        Lookup(String name) {
            super(Nfs4.OP_LOOKUP);
            this.name = name;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            encodeName(xdr, name);
        }
    }

    // ============================================================================================ attributes

    static final class GetAttr extends Op {
        private final Bitmap4 attributes;

        GetAttr(Bitmap4 attributes) {
            super(Nfs4.OP_GETATTR);
            this.attributes = attributes;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            attributes.encode(xdr);
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            return Fattr4.decode(xdr);
        }
    }

    static final class SetAttr extends Op.WithStateid {
        private final SetAttributes attributes;

        SetAttr(StateidSource state, SetAttributes attributes) {
            super(Nfs4.OP_SETATTR, state);
            this.attributes = attributes;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            stateid.encode(xdr);
            Fattr4.encodeSettable(attributes, xdr);
        }

        @Override
        boolean mutating() {
            return true;
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            return Bitmap4.decode(xdr);
        }

        @Override
        void decodeError(XdrDecodingStream xdr) throws BadXdrException {
            Bitmap4.decode(xdr); // SETATTR4res carries attrsset whatever the status
        }
    }

    record AccessOk(int supported, int access) {
    }

    static final class Access extends Op {
        private final int bits;

        Access(int bits) {
            super(Nfs4.OP_ACCESS);
            this.bits = bits;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(bits);
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            int supported = Nfs3Xdr.decodeInt(xdr);
            int access = Nfs3Xdr.decodeInt(xdr);
            if ((supported & ~bits) != 0 || (access & ~supported) != 0) {
                throw new BadXdrException("ACCESS answered bits that were not asked or not supported");
            }
            return new AccessOk(supported, access);
        }
    }

    // ============================================================================================ directories

    record RawEntry(long cookie, String name, Fattr4Decoded attributes) {
    }

    record ReaddirOk(long verifier, List<RawEntry> entries, boolean eof) {
    }

    static final class Readdir extends Op {
        private final long cookie;
        private final long verifier;
        private final int dirCount;
        private final int maxCount;
        private final Bitmap4 attributes;

        Readdir(long cookie, long verifier, int dirCount, int maxCount, Bitmap4 attributes) {
            super(Nfs4.OP_READDIR);
            this.cookie = cookie;
            this.verifier = verifier;
            this.dirCount = dirCount;
            this.maxCount = maxCount;
            this.attributes = attributes;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeLong(cookie);
            encodeVerifier(xdr, verifier);
            xdr.xdrEncodeInt(dirCount);
            xdr.xdrEncodeInt(maxCount);
            attributes.encode(xdr);
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            long verf = decodeVerifier(xdr);
            List<RawEntry> entries = new ArrayList<>();
            // each entry takes at least 24 bytes of a reply no larger than maxcount: more is not an answer
            int most = Math.max(1, maxCount / 24);
            while (Nfs3Xdr.decodeBool(xdr)) {
                if (entries.size() >= most) {
                    throw new BadXdrException("READDIR returned more entries than " + maxCount + " bytes can hold");
                }
                long c = Nfs3Xdr.decodeLong(xdr);
                String name = Nfs3Xdr.decodeString(xdr, Nfs4.DECODE_MAX_NAME, "component4");
                Fattr4Decoded a = Fattr4.decode(xdr);
                entries.add(new RawEntry(c, name, a));
            }
            boolean eof = Nfs3Xdr.decodeBool(xdr);
            return new ReaddirOk(verf, entries, eof);
        }
    }

    static final class Readlink extends Op {
        Readlink() {
            super(Nfs4.OP_READLINK);
        }

        @Override
        void encode(XdrEncodingStream xdr) {
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            if (mode.takeItem()) {
                throw new BadXdrException("the link text was placed into the buffer meant for READ data");
            }
            return Nfs3Xdr.decodeString(xdr, Nfs4.DECODE_MAX_PATH, "linktext4");
        }
    }

    /** CREATE of a directory, symbolic link, device, socket or FIFO. */
    static final class Create extends Op {
        private final int type;
        private final String linkText;
        private final int specMajor;
        private final int specMinor;
        private final String name;
        private final SetAttributes attributes;

        Create(int type, String linkText, int specMajor, int specMinor, String name, SetAttributes attributes) {
            super(Nfs4.OP_CREATE);
            this.type = type;
            this.linkText = linkText;
            this.specMajor = specMajor;
            this.specMinor = specMinor;
            this.name = name;
            this.attributes = attributes;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(type);
            if (type == Nfs4Ops.NF4LNK) {
                Nfs3Xdr.encodeString(xdr, linkText);
            } else if (type == Nfs4Ops.NF4BLK || type == Nfs4Ops.NF4CHR) {
                xdr.xdrEncodeInt(specMajor);
                xdr.xdrEncodeInt(specMinor);
            }
            encodeName(xdr, name);
            Fattr4.encodeSettable(attributes, xdr);
        }

        @Override
        boolean mutating() {
            return true;
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            skipChangeInfo(xdr);
            return Bitmap4.decode(xdr);
        }
    }

    /** An operation on one name of the current directory (REMOVE, LINK): its result is a {@code change_info4}. */
    static final class NameOp extends Op {
        private final String name;

        NameOp(int opcode, String name) {
            super(opcode);
            this.name = name;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            encodeName(xdr, name);
        }

        @Override
        boolean mutating() {
            return true;
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            skipChangeInfo(xdr);
            return null;
        }
    }

    static final class Rename extends Op {
        private final String from;
        private final String to;

        Rename(String from, String to) {
            super(Nfs4.OP_RENAME);
            this.from = from;
            this.to = to;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            encodeName(xdr, from);
            encodeName(xdr, to);
        }

        @Override
        boolean mutating() {
            return true;
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            skipChangeInfo(xdr);
            skipChangeInfo(xdr);
            return null;
        }
    }

    // ================================================================================================== state

    /**
     * @param stateid    the open's stateid
     * @param delegation a delegation the server granted anyway (this client asks for none, with
     *                   OPEN4_SHARE_ACCESS_WANT_NO_DELEG), to be returned; or null
     */
    record OpenOk(Stateid4 stateid, int rflags, Bitmap4 attrset, Stateid4 delegation) {
    }

    /**
     * OPEN with share deny NONE; its {@code share_access} always carries OPEN4_SHARE_ACCESS_WANT_NO_DELEG (the client
     * keeps no delegation, so the server need not grant one and recall it later).
     */
    static final class Open extends Op {
        private final int shareAccess;
        private final byte[] owner;
        /** {@code createmode4}, or -1 for OPEN4_NOCREATE. */
        private final int createMode;
        private final SetAttributes attributes;
        private final long verifier;
        private final int claim;
        private final String name;
        private long clientId;

        private Open(int shareAccess, byte[] owner, int createMode, SetAttributes attributes, long verifier,
                     int claim, String name) {
            super(Nfs4.OP_OPEN);
            this.shareAccess = shareAccess;
            this.owner = owner;
            this.createMode = createMode;
            this.attributes = attributes == null ? SetAttributes.NONE : attributes;
            this.verifier = verifier;
            this.claim = claim;
            this.name = name;
        }

        /** OPEN4_CREATE of {@code name} in the current directory (CLAIM_NULL). */
        static Open create(int shareAccess, byte[] owner, int createMode, SetAttributes attributes, long verifier,
                           String name) {
            return new Open(shareAccess, owner, createMode, attributes, verifier, Nfs4Ops.CLAIM_NULL, name);
        }

        /** OPEN4_NOCREATE of {@code name} in the current directory (CLAIM_NULL). */
        static Open byName(int shareAccess, byte[] owner, String name) {
            return new Open(shareAccess, owner, -1, null, 0, Nfs4Ops.CLAIM_NULL, name);
        }

        /** OPEN4_NOCREATE of the current file (CLAIM_FH). */
        static Open byHandle(int shareAccess, byte[] owner) {
            return new Open(shareAccess, owner, -1, null, 0, Nfs4Ops.CLAIM_FH, null);
        }

        /** A reclaim of the current file's open after a server restart (CLAIM_PREVIOUS, no delegation). */
        static Open reclaim(int shareAccess, byte[] owner) {
            return new Open(shareAccess, owner, -1, null, 0, Nfs4Ops.CLAIM_PREVIOUS, null);
        }

        @Override
        void prepare(long id) {
            clientId = id;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeInt(0); // seqid: unused in NFSv4.1
            // the client keeps no delegation: it says so, rather than return one the server would otherwise grant
            xdr.xdrEncodeInt(shareAccess | Nfs4Ops.SHARE_ACCESS_WANT_NO_DELEG);
            xdr.xdrEncodeInt(Nfs4Ops.SHARE_DENY_NONE);
            xdr.xdrEncodeLong(clientId);
            Nfs3Xdr.encodeOpaque(xdr, owner);
            if (createMode < 0) {
                xdr.xdrEncodeInt(Nfs4Ops.OPEN4_NOCREATE);
            } else {
                xdr.xdrEncodeInt(Nfs4Ops.OPEN4_CREATE);
                xdr.xdrEncodeInt(createMode);
                switch (createMode) {
                    case Nfs4Ops.EXCLUSIVE4 -> encodeVerifier(xdr, verifier);
                    case Nfs4Ops.EXCLUSIVE4_1 -> {
                        encodeVerifier(xdr, verifier);
                        Fattr4.encodeSettable(attributes, xdr);
                    }
                    default -> Fattr4.encodeSettable(attributes, xdr);
                }
            }
            xdr.xdrEncodeInt(claim);
            switch (claim) {
                case Nfs4Ops.CLAIM_NULL -> encodeName(xdr, name);
                case Nfs4Ops.CLAIM_PREVIOUS -> xdr.xdrEncodeInt(Nfs4Ops.OPEN_DELEGATE_NONE);
                default -> { } // CLAIM_FH: the current file
            }
        }

        @Override
        boolean mutating() {
            return true;
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            Stateid4 stateid = Stateid4.decode(xdr);
            skipChangeInfo(xdr);
            int rflags = Nfs3Xdr.decodeInt(xdr);
            Bitmap4 attrset = Bitmap4.decode(xdr);
            Stateid4 delegation = null;
            int type = Nfs3Xdr.decodeInt(xdr);
            switch (type) {
                case Nfs4Ops.OPEN_DELEGATE_NONE -> { }
                case Nfs4Ops.OPEN_DELEGATE_READ -> {
                    delegation = Stateid4.decode(xdr);
                    Nfs3Xdr.decodeBool(xdr); // recall
                    skipAce(xdr);
                }
                case Nfs4Ops.OPEN_DELEGATE_WRITE -> {
                    delegation = Stateid4.decode(xdr);
                    Nfs3Xdr.decodeBool(xdr);
                    int limitBy = Nfs3Xdr.decodeInt(xdr);
                    switch (limitBy) {
                        case 1 -> Nfs3Xdr.decodeLong(xdr); // NFS_LIMIT_SIZE
                        case 2 -> { // NFS_LIMIT_BLOCKS
                            Nfs3Xdr.decodeInt(xdr);
                            Nfs3Xdr.decodeInt(xdr);
                        }
                        default -> throw new BadXdrException("limit_by4 " + limitBy);
                    }
                    skipAce(xdr);
                }
                case Nfs4Ops.OPEN_DELEGATE_NONE_EXT -> {
                    int why = Nfs3Xdr.decodeInt(xdr);
                    if (why == 1 || why == 2) { // WND4_CONTENTION, WND4_RESOURCE
                        Nfs3Xdr.decodeBool(xdr);
                    }
                }
                default -> throw new BadXdrException("open_delegation_type4 " + type);
            }
            return new OpenOk(stateid, rflags, attrset, delegation);
        }
    }

    /** CLOSE, or DELEGRETURN: an operation on one stateid. */
    static final class StateOp extends Op {
        final Stateid4 stateid;

        StateOp(int opcode, Stateid4 stateid) {
            super(opcode);
            this.stateid = stateid;
        }

        static StateOp close(Stateid4 stateid) {
            return new StateOp(Nfs4.OP_CLOSE, stateid);
        }

        static StateOp delegReturn(Stateid4 stateid) {
            return new StateOp(Nfs4.OP_DELEGRETURN, stateid);
        }

        static StateOp freeStateid(Stateid4 stateid) {
            return new StateOp(Nfs4.OP_FREE_STATEID, stateid);
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            if (opcode == Nfs4.OP_CLOSE) {
                xdr.xdrEncodeInt(0); // seqid: unused in NFSv4.1
            }
            stateid.encode(xdr);
        }

        @Override
        boolean mutating() {
            return true;
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            return opcode == Nfs4.OP_CLOSE ? Stateid4.decode(xdr) : null;
        }
    }

    // ===================================================================================================== I/O

    record ReadOk(boolean eof, int count) {
    }

    /**
     * READ into {@code sink}, at its writer index; {@link #prepare} puts the writer index back where it was before
     * the first attempt, so a retried READ overwrites what a failed one may have left.
     */
    static final class Read extends Op.WithStateid {
        private final long offset;
        private final int count;
        final ByteBuf sink;
        private final int sinkStart;

        Read(StateidSource state, long offset, int count, ByteBuf sink) {
            super(Nfs4.OP_READ, state);
            this.offset = offset;
            this.count = count;
            this.sink = sink;
            this.sinkStart = sink.writerIndex();
        }

        @Override
        void prepare(long clientId) {
            super.prepare(clientId);
            sink.writerIndex(sinkStart);
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            stateid.encode(xdr);
            xdr.xdrEncodeLong(offset);
            xdr.xdrEncodeInt(count);
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            boolean eof = Nfs3Xdr.decodeBool(xdr);
            int room = Math.min(count, sink.writableBytes());
            if (mode.takeItem()) {
                int length = Nfs3Xdr.decodeLength(xdr, room, "READ data");
                if (length != mode.placedBytes) {
                    throw new BadXdrException("READ data of " + length + " bytes, but " + mode.placedBytes
                            + " were placed");
                }
                sink.writerIndex(sink.writerIndex() + length);
                return new ReadOk(eof, length);
            }
            ByteBuffer data = Nfs3Xdr.decodeDataView(xdr, room, "READ data");
            int length = data.remaining();
            sink.writeBytes(data);
            return new ReadOk(eof, length);
        }
    }

    record WriteOk(int count, StableHow committed, long verifier) {
    }

    /** WRITE of the readable bytes of {@code data} (borrowed; indexes untouched). */
    static final class Write extends Op.WithStateid {
        private final long offset;
        private final StableHow stable;
        final ByteBuf data;

        Write(StateidSource state, long offset, StableHow stable, ByteBuf data) {
            super(Nfs4.OP_WRITE, state);
            this.offset = offset;
            this.stable = stable;
            this.data = data;
        }

        /** The arguments up to the data's length word. */
        void encodeBeforeData(XdrEncodingStream xdr) {
            stateid.encode(xdr);
            xdr.xdrEncodeLong(offset);
            xdr.xdrEncodeInt(stable.wireValue());
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            encodeBeforeData(xdr);
            Nfs3Xdr.encodeDataShallow(xdr, data);
        }

        @Override
        boolean mutating() {
            return true;
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            long n = Nfs3Xdr.decodeUint(xdr);
            int how = Nfs3Xdr.decodeInt(xdr);
            long verifier = decodeVerifier(xdr);
            StableHow committed = StableHow.fromWire(how);
            if (committed == null) {
                throw new BadXdrException("stable_how4 out of range: " + how);
            }
            if (n > data.readableBytes()) {
                throw new BadXdrException("WRITE of " + data.readableBytes() + " bytes answered count " + n);
            }
            return new WriteOk((int) n, committed, verifier);
        }
    }

    static final class Commit extends Op {
        private final long offset;
        private final int count;

        Commit(long offset, int count) {
            super(Nfs4.OP_COMMIT);
            this.offset = offset;
            this.count = count;
        }

        @Override
        void encode(XdrEncodingStream xdr) {
            xdr.xdrEncodeLong(offset);
            xdr.xdrEncodeInt(count);
        }

        @Override
        Object decodeOk(XdrDecodingStream xdr, ReplyDecoding mode) throws BadXdrException {
            return decodeVerifier(xdr);
        }
    }
}
