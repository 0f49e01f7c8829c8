package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.Nfs3Status;
import org.rpcrdma4j.nfs.NfsException;

class SpecialFilesTest {
    @TempDir
    Path dir;

    @Test
    void timesAreWrittenAsTouchReadsThem() {
        assertThat(SpecialFiles.seconds(Instant.ofEpochSecond(1_000_000_000L, 123))).isEqualTo("1000000000.000000123");
        assertThat(SpecialFiles.seconds(Instant.ofEpochSecond(0))).isEqualTo("0.000000000");
        // half a second before the epoch: second -1 plus 500 ms
        assertThat(SpecialFiles.seconds(Instant.ofEpochSecond(-1, 500_000_000))).isEqualTo("-0.500000000");
        assertThat(SpecialFiles.seconds(Instant.ofEpochSecond(-86_400))).isEqualTo("-86400.000000000");
    }

    @Test
    void aFifosTimesAndModeChangeWithoutOpeningIt() throws Exception {
        Path fifo = dir.resolve("fifo");
        SpecialFiles.make(fifo, FileType.FIFO, 0, 0, 0640);
        assertThat(mode(fifo)).isEqualTo(0010640);
        FileTime before1970 = FileTime.from(Instant.ofEpochSecond(-86_400, 250_000_000));
        FileTime later = FileTime.from(Instant.ofEpochSecond(1_500_000_000L, 7));
        SpecialFiles.setTimes(fifo, before1970, later);
        assertThat(Files.getLastModifiedTime(fifo, LinkOption.NOFOLLOW_LINKS)).isEqualTo(later);
        assertThat(Files.getAttribute(fifo, "lastAccessTime", LinkOption.NOFOLLOW_LINKS)).isEqualTo(before1970);
        SpecialFiles.setMode(fifo, 01600);
        assertThat(mode(fifo)).isEqualTo(0011600);
    }

    @Test
    void aSocketDeepInTheTreeIsMadeThroughALink() throws Exception {
        Path deep = Files.createDirectories(dir.resolve("d".repeat(60)).resolve("e".repeat(60)));
        Path socket = deep.resolve("sock");
        assertThat(socket.toString().length()).isGreaterThan(SpecialFiles.MAX_SOCKET_PATH);
        SpecialFiles.make(socket, FileType.SOCKET, 0, 0, 0600);
        assertThat(mode(socket)).isEqualTo(0140600);
        assertThatThrownBy(() -> SpecialFiles.make(deep.resolve("s".repeat(200)), FileType.SOCKET, 0, 0, null))
                .isInstanceOfSatisfying(NfsException.class,
                        e -> assertThat(e.status()).isEqualTo(Nfs3Status.NFS3ERR_NAMETOOLONG));
    }

    @Test
    void aCommandsRefusalIsMapped() throws Exception {
        Path fifo = dir.resolve("taken");
        SpecialFiles.make(fifo, FileType.FIFO, 0, 0, null);
        assertThatThrownBy(() -> SpecialFiles.make(fifo, FileType.FIFO, 0, 0, null))
                .isInstanceOfSatisfying(java.nio.file.FileSystemException.class,
                        e -> assertThat(IoErrors.map(e, "mkfifo").status()).isEqualTo(Nfs3Status.NFS3ERR_EXIST));
    }

    private static int mode(Path p) throws Exception {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
    }
}
