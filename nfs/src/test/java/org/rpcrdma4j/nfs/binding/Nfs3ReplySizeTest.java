package org.rpcrdma4j.nfs.binding;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.util.List;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.FsInfo;
import org.rpcrdma4j.nfs.FsStat;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.PathConf;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.testing.Values;
import org.rpcrdma4j.nfs.testing.XdrBytes;
import org.rpcrdma4j.nfs.xdr.*;

/**
 * {@code maxInlineReplySize} against the largest result each procedure can produce, encoded by our codecs: the bound
 * holds, and for fixed-shape results it is tight.
 */
class Nfs3ReplySizeTest {
    private static final Nfs3UpperLayerBinding ULB = Nfs3UpperLayerBinding.INSTANCE;
    private static final FileHandle FH64 = FileHandle.wrap(new byte[64]);
    private static final ByteBuf FH_ARGS = XdrBytes.encodeToBuf(new FhArgs(FH64));

    private static void assertTight(int procedure, XdrAble largest) throws Exception {
        long bound = ULB.maxInlineReplySize(3, procedure, FH_ARGS);
        assertThat(Nfs3UpperLayerBinding.MAX_REPLY_HEADER + XdrBytes.encode(largest).length)
                .as(Nfs3.procedureName(procedure)).isEqualTo(bound);
    }

    @Test
    void fixedShapeRepliesMeetTheirBoundExactly() throws Exception {
        var attrs = Values.attributes(FileType.REGULAR, 1);
        var wcc = Values.fullWcc();

        GetattrRes getattr = new GetattrRes();
        getattr.attributes = attrs;
        assertTight(Nfs3.GETATTR, getattr);

        WccRes setattr = new WccRes();
        setattr.wcc = wcc;
        assertTight(Nfs3.SETATTR, setattr);
        assertTight(Nfs3.REMOVE, setattr);
        assertTight(Nfs3.RMDIR, setattr);

        LookupRes lookup = new LookupRes();
        lookup.object = FH64;
        lookup.objectAttributes = attrs;
        lookup.dirAttributes = attrs;
        assertTight(Nfs3.LOOKUP, lookup);

        AccessRes access = new AccessRes();
        access.attributes = attrs;
        assertTight(Nfs3.ACCESS, access);

        ReadlinkRes readlink = new ReadlinkRes();
        readlink.attributes = attrs;
        readlink.target = ""; // the item's bytes are not part of the bound, its length word is
        assertTight(Nfs3.READLINK, readlink);

        ReadRes read = new ReadRes();
        read.attributes = attrs;
        read.data = java.nio.ByteBuffer.allocate(0);
        assertTight(Nfs3.READ, read);

        WriteRes write = new WriteRes();
        write.wcc = wcc;
        write.committed = StableHow.FILE_SYNC;
        assertTight(Nfs3.WRITE, write);

        NewObjectRes created = new NewObjectRes();
        created.object = FH64;
        created.attributes = attrs;
        created.dirWcc = wcc;
        for (int proc : new int[] {Nfs3.CREATE, Nfs3.MKDIR, Nfs3.SYMLINK, Nfs3.MKNOD}) {
            assertTight(proc, created);
        }

        RenameRes rename = new RenameRes();
        rename.fromDirWcc = wcc;
        rename.toDirWcc = wcc;
        assertTight(Nfs3.RENAME, rename);

        LinkRes link = new LinkRes();
        link.attributes = attrs;
        link.linkDirWcc = wcc;
        assertTight(Nfs3.LINK, link);

        FsstatRes fsstat = new FsstatRes();
        fsstat.attributes = attrs;
        fsstat.fsstat = new FsStat(1, 2, 3, 4, 5, 6, 7);
        assertTight(Nfs3.FSSTAT, fsstat);

        FsinfoRes fsinfo = new FsinfoRes();
        fsinfo.attributes = attrs;
        fsinfo.fsinfo = new FsInfo(1, 2, 3, 4, 5, 6, 7, 8, NfsTime.ZERO, 0);
        assertTight(Nfs3.FSINFO, fsinfo);

        PathconfRes pathconf = new PathconfRes();
        pathconf.attributes = attrs;
        pathconf.pathconf = new PathConf(1, 255, true, true, false, true);
        assertTight(Nfs3.PATHCONF, pathconf);

        CommitRes commit = new CommitRes();
        commit.wcc = wcc;
        assertTight(Nfs3.COMMIT, commit);
    }

    @Test
    void aReaddirReplyThatRespectsItsCountFitsTheBound() throws Exception {
        ReaddirRes res = new ReaddirRes(true);
        res.dirAttributes = Values.attributes(FileType.DIRECTORY, 4096);
        res.entries = List.of(new DirEntry(1, "a", 1, res.dirAttributes, FH64),
                new DirEntry(2, "bb", 2, res.dirAttributes, FH64));
        int resok = XdrBytes.encode(res).length - 4;
        ByteBuf args = XdrBytes.encodeToBuf(new ReaddirArgs(true, FH64, 0, 0, 512, resok));
        assertThat(Nfs3UpperLayerBinding.MAX_REPLY_HEADER + 4 + resok)
                .isEqualTo(ULB.maxInlineReplySize(3, Nfs3.READDIRPLUS, args));
    }
}
