package org.rpcrdma4j.nfs.vfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileSystemException;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.nfs.Nfs3Status;

/** The errno text the JDK reports, mapped to NFSv3 statuses. */
class IoErrorsTest {
    @Test
    void filechannelsFileTooLargeIsFbig() {
        // FileChannel.write reports EFBIG as a plain IOException whose message is the errno text
        assertThat(IoErrors.map(new IOException("File too large"), "write").status())
                .isEqualTo(Nfs3Status.NFS3ERR_FBIG);
        assertThat(IoErrors.map(new FileSystemException("/x", null, "File too large"), "write").status())
                .isEqualTo(Nfs3Status.NFS3ERR_FBIG);
    }

    @Test
    void anUnknownPlainIoExceptionIsIo() {
        assertThat(IoErrors.map(new IOException("something odd"), "write").status())
                .isEqualTo(Nfs3Status.NFS3ERR_IO);
    }
}
