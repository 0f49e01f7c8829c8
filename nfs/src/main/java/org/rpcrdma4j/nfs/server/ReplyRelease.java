package org.rpcrdma4j.nfs.server;

import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;

import org.dcache.oncrpc4j.rpc.RpcCall;

/**
 * Memory a reply borrows (READ data sent by reference) is given back once the reply has gone out, or could not:
 * the NFSv3 and NFSv4 programs register the same listener.
 */
public final class ReplyRelease {
    private ReplyRelease() {
    }

    /** Runs {@code release} once {@code call}'s reply was sent or failed to be; register before replying. */
    public static void afterReply(RpcCall call, Runnable release) {
        call.registerSendOnceListener(new CompletionHandler<Integer, InetSocketAddress>() {
            @Override
            public void completed(Integer written, InetSocketAddress peer) {
                release.run();
            }

            @Override
            public void failed(Throwable t, InetSocketAddress peer) {
                release.run();
            }
        });
    }
}
