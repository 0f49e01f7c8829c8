package org.rpcrdma4j.mount.shell;

import java.io.IOException;
import java.io.InputStream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.ReadReply;

/** A remote file read front to back, one 64 KiB READ at a time (for {@code cat}). Not thread-safe. */
final class RemoteInputStream extends InputStream {
    private static final int CHUNK = 64 << 10;

    private final NfsMount nfs;
    private final FileHandle file;
    private final ByteBuf buffer = Unpooled.buffer(CHUNK, CHUNK);
    private long offset;
    private boolean eof;

    RemoteInputStream(NfsMount nfs, FileHandle file) {
        this.nfs = nfs;
        this.file = file;
    }

    private boolean fill() throws IOException {
        while (!buffer.isReadable() && !eof) {
            buffer.clear();
            ReadReply r = nfs.read(file, offset, buffer);
            offset += r.count();
            eof = r.eof();
            if (r.count() == 0 && !eof) {
                throw new IOException("READ returned nothing before the end of the file");
            }
        }
        return buffer.isReadable();
    }

    @Override
    public int read() throws IOException {
        return fill() ? buffer.readByte() & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (!fill()) {
            return -1;
        }
        int n = Math.min(len, buffer.readableBytes());
        buffer.readBytes(b, off, n);
        return n;
    }

    @Override
    public void close() {
        if (buffer.refCnt() > 0) {
            buffer.release();
        }
    }
}
