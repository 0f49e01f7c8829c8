package org.rpcrdma4j.xprt;

import java.util.ArrayList;
import java.util.List;

import org.rpcrdma4j.testsupport.GuestSuite;

/**
 * Runs the client and server suites in this JVM over another provider's device (the {@code ffm} provider on siw and
 * rxe in a guest) and prints one line per test, then {@code transport: N passed, N failed, N skipped}. Exit status 0
 * when nothing failed. Arguments: the provider, the IPv4 address of the RDMA interface, then optionally the simple
 * names of the classes to run, or {@code Class#method} for one test. Tests that need the software device itself (its
 * options, its fault injection) skip, saying so ({@link TestDevices#assumeSoft}).
 */
public final class GuestTransportSuites {
    static final List<String> SUITE = List.of(
            "client.OncRpcCallTest", "client.DdpCallTest", "client.ConnectionTest", "client.ClientConnectionSizesTest",
            "client.KeepAliveTest", "client.ReconnectThresholdsTest", "client.InlineAgentWorkTest",
            "client.HostilePeerTest",
            "server.ServerBehaviourTest", "server.ServerWireTest", "server.ServerLargeCallTest",
            "server.ServerKeptCallDataTest", "server.ServerKeepOffTest", "server.ServerWithoutInlineWorkTest",
            "server.SameThreadDispatchTest", "server.OncRpcOverRdmaTest", "server.ReverseDirectionTest",
            "server.ReverseReplyTimeoutTest", "server.ServerHostileTest",
            "drc.DrcOverRdmaTest");

    private GuestTransportSuites() {
    }

    public static void main(String[] args) throws ClassNotFoundException {
        System.setProperty("rpcrdma4j.test.provider", args[0]);
        System.setProperty("rpcrdma4j.test.address", args[1]);
        List<Class<?>> classes = new ArrayList<>();
        for (String name : SUITE) {
            classes.add(Class.forName("org.rpcrdma4j.xprt." + name));
        }
        System.exit(GuestSuite.run("transport", classes, List.of(args).subList(2, args.length)) == 0 ? 0 : 1);
    }
}
