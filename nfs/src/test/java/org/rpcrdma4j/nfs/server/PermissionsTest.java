package org.rpcrdma4j.nfs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.dcache.oncrpc4j.rpc.RpcAuthTypeNone;
import org.dcache.oncrpc4j.rpc.RpcAuthTypeUnix;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;

/** The permission rules alone: mode bits per identity, squashing, the sticky bit, and what SETATTR may change. */
class PermissionsTest {
    private static final Caller ROOT = new Caller(0, 0, new int[0]);
    private static final Caller ALICE = new Caller(1000, 1000, new int[] {50});
    private static final Caller BOB = new Caller(1001, 1001, new int[0]);

    private static FileAttributes file(int mode, int uid, int gid) {
        NfsTime t = new NfsTime(1, 0);
        return new FileAttributes(FileType.REGULAR, mode, 1, uid, gid, 0, 0, 0, 0, 1, 2, t, t, t);
    }

    private static FileAttributes dir(int mode, int uid, int gid) {
        NfsTime t = new NfsTime(1, 0);
        return new FileAttributes(FileType.DIRECTORY, mode, 2, uid, gid, 0, 0, 0, 0, 1, 3, t, t, t);
    }

    private static void assertStatus(ThrowingRunnable r, Nfs3Status status) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(NfsException.class,
                e -> assertThat(e.status()).isEqualTo(status));
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void theClassOfTheCallerPicksTheBits() {
        FileAttributes f = file(0640, 1000, 50);
        assertThat(Permissions.bits(ALICE, f)).isEqualTo(6);
        assertThat(Permissions.bits(new Caller(1002, 7, new int[] {50}), f)).as("a supplementary group").isEqualTo(4);
        assertThat(Permissions.bits(BOB, f)).isZero();
        assertThat(Permissions.bits(ROOT, f)).as("root, no execute bit anywhere").isEqualTo(6);
        assertThat(Permissions.bits(ROOT, file(0100, 5, 5))).isEqualTo(7);
        assertThat(Permissions.bits(ROOT, dir(0, 5, 5))).isEqualTo(7);
        // the owner class decides even when it gives less than the others get
        assertThat(Permissions.bits(ALICE, file(0077, 1000, 1000))).isZero();
    }

    @Test
    void theOwnerMayAlwaysReadAndWriteDataAndAProgramMayBeRead() throws Exception {
        Permissions.requireWrite(ALICE, file(0400, 1000, 1000));
        Permissions.requireRead(ALICE, file(0000, 1000, 1000));
        Permissions.requireRead(BOB, file(0711, 1000, 1000));
        assertStatus(() -> Permissions.requireRead(BOB, file(0700, 1000, 1000)), Nfs3Status.NFS3ERR_ACCES);
        assertStatus(() -> Permissions.requireWrite(BOB, file(0644, 1000, 1000)), Nfs3Status.NFS3ERR_ACCES);
        Permissions.requireWrite(BOB, dir(0555, 1000, 1000)); // not a file: left to the VFS
    }

    @Test
    void stickyDirectoriesKeepOthersFromRemoving() throws Exception {
        FileAttributes tmp = dir(01777, 0, 0);
        FileAttributes alices = file(0666, 1000, 1000);
        Permissions.requireRemove(ALICE, tmp, alices);
        Permissions.requireRemove(ROOT, tmp, alices);
        assertStatus(() -> Permissions.requireRemove(BOB, tmp, alices), Nfs3Status.NFS3ERR_PERM);
        Permissions.requireRemove(BOB, dir(01777, 1001, 0), alices); // the directory's owner
        Permissions.requireRemove(BOB, dir(0777, 0, 0), alices);
        assertStatus(() -> Permissions.requireRemove(BOB, dir(0755, 0, 0), alices), Nfs3Status.NFS3ERR_ACCES);
    }

    @Test
    void setattrLetsTheOwnerChangeModeAndGroupAndOnlyRootGiveAway() throws Exception {
        FileAttributes f = file(02644, 1000, 1000);
        assertThat(Permissions.requireSetattr(ALICE, f, SetAttributes.NONE.withMode(0600)).mode()).isEqualTo(0600);
        assertStatus(() -> Permissions.requireSetattr(BOB, f, SetAttributes.NONE.withMode(0666)),
                Nfs3Status.NFS3ERR_PERM);
        assertStatus(() -> Permissions.requireSetattr(ALICE, f, SetAttributes.NONE.withOwner(1001, 1000)),
                Nfs3Status.NFS3ERR_PERM);
        assertThat(Permissions.requireSetattr(ALICE, f, SetAttributes.NONE.withOwner(1000, 50)).gid()).isEqualTo(50);
        assertStatus(() -> Permissions.requireSetattr(ALICE, f, SetAttributes.NONE.withOwner(1000, 99)),
                Nfs3Status.NFS3ERR_PERM);
        assertThat(Permissions.requireSetattr(ROOT, f, SetAttributes.NONE.withOwner(1001, 99)).uid()).isEqualTo(1001);
        // a setgid bit the owner may not set (not in the group) is dropped, as chmod(2) drops it
        FileAttributes other = file(0644, 1000, 77);
        assertThat(Permissions.requireSetattr(ALICE, other, SetAttributes.NONE.withMode(02755)).mode())
                .isEqualTo(0755);
        // size: write permission or ownership; times of the caller's choosing: ownership
        Permissions.requireSetattr(BOB, file(0666, 1000, 1000), SetAttributes.NONE.withSize(0));
        assertStatus(() -> Permissions.requireSetattr(BOB, f, SetAttributes.NONE.withSize(0)),
                Nfs3Status.NFS3ERR_ACCES);
        Permissions.requireSetattr(BOB, file(0666, 1000, 1000),
                SetAttributes.NONE.withMtime(SetAttributes.TimeSetting.SERVER_TIME));
        assertStatus(() -> Permissions.requireSetattr(BOB, file(0666, 1000, 1000),
                SetAttributes.NONE.withMtime(SetAttributes.TimeSetting.client(new NfsTime(5, 0)))),
                Nfs3Status.NFS3ERR_PERM);
    }

    @Test
    void callersAreSquashedAsTheGrantSays() {
        RpcCall rootCall = new RpcCall(100003, 3, new RpcAuthTypeUnix(0, 0, new int[] {0, 10}, 0, "h"), null);
        RpcCall aliceCall = new RpcCall(100003, 3, new RpcAuthTypeUnix(1000, 1000, new int[] {50}, 0, "h"), null);
        ExportClients.Grant squash = new ExportClients.Grant(false, true, false, 65534, 65533);
        assertThat(Caller.of(rootCall, squash)).isEqualTo(new Caller(65534, 65533, new int[] {65533, 10}));
        assertThat(Caller.of(aliceCall, squash)).isEqualTo(new Caller(1000, 1000, new int[] {50}));
        assertThat(Caller.of(rootCall, ExportClients.Grant.EVERYTHING)).isEqualTo(new Caller(0, 0, new int[] {0, 10}));
        ExportClients.Grant all = new ExportClients.Grant(false, true, true, 7, 8);
        assertThat(Caller.of(aliceCall, all)).isEqualTo(new Caller(7, 8, new int[0]));
        RpcCall none = new RpcCall(100003, 3, new RpcAuthTypeNone(), null);
        assertThat(Caller.of(none, ExportClients.Grant.EVERYTHING)).isEqualTo(new Caller(65534, 65534, new int[0]));
    }
}
