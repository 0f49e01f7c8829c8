package org.rpcrdma4j.it.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rpcrdma4j.nfs.client.NfsMount;
import org.rpcrdma4j.nfs.client.NfsMounts;
import org.rpcrdma4j.xprt.client.RdmaClientConfig;
import org.rpcrdma4j.xprt.client.RdmaClientTransport;

/**
 * The README's Java snippets compile against the current API, and run: against the embedded server, as written,
 * with three substitutions. Each snippet becomes a method of its own, whose parameters are the names it uses but does
 * not declare (a directory, a dispatchable, the call's arguments...). A line starting with "..." stands for the
 * caller's code: it runs the test's own step there. The ports 2049 and 20049 become free ones, and the host "server"
 * becomes 127.0.0.1. So the one-call server is mounted over RDMA and a file written and read back through it; the
 * oncrpc4j program served on {@code RdmaRpcServer} answers the README's unmodified {@code RpcCall} and its DDP call,
 * whose data lands in the registered sink and is compared byte for byte.
 */
class ReadmeSnippetsTest {
    private static final String IMPORTS = """
            import java.net.InetSocketAddress;
            import java.nio.file.Path;
            import java.util.Map;
            import java.util.concurrent.TimeUnit;
            import io.netty.buffer.ByteBuf;
            import org.dcache.oncrpc4j.rpc.*;
            import org.dcache.oncrpc4j.xdr.XdrAble;
            import org.rpcrdma4j.nfs.binding.NfsBinding;
            import org.rpcrdma4j.nfs.client.*;
            import org.rpcrdma4j.nfs.server.NfsServer;
            import org.rpcrdma4j.nfs.server.rdma.NfsRdmaServer;
            import org.rpcrdma4j.nfs.vfs.LocalVfs;
            import org.rpcrdma4j.registration.RegisteredBuffer;
            import org.rpcrdma4j.xprt.client.RdmaCall;
            import org.rpcrdma4j.xprt.client.RdmaClientConfig;
            import org.rpcrdma4j.xprt.client.RdmaClientTransport;
            import org.rpcrdma4j.xprt.drc.*;
            import org.rpcrdma4j.xprt.server.RdmaRpcServer;
            """;
    /** Names a snippet may use without declaring them, with their types. */
    private static final String[][] GIVEN = {
        {"Path", "dir"}, {"RpcDispatchable", "dispatchable"}, {"int", "PROGRAM"}, {"int", "VERSION"},
        {"int", "PROCEDURE"}, {"XdrAble", "args"}, {"XdrAble", "result"}, {"RdmaClientTransport", "rdma"},
        {"ByteBuf", "encodedCall"}, {"ByteBuf", "replyBuf"}, {"Runnable", "between"},
    };

    private static final int NFS_PROGRAM = 100003;
    private static final int NFSPROC3_READ = 6;

    @TempDir
    Path out;
    @TempDir
    Path exported;

    private static List<String> snippets() throws IOException {
        Path root = Path.of("").toAbsolutePath();
        Path readme = Files.isRegularFile(root.resolve("README.md")) ? root.resolve("README.md")
                : root.getParent().resolve("README.md");
        Matcher m = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(readme));
        List<String> found = new ArrayList<>();
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    private static String method(int index, String snippet) {
        String body = snippet.lines().map(l -> l.strip().startsWith("...")
                        ? l.replaceFirst("\\.\\.\\.", "between.run();") : l)
                .reduce("", (a, l) -> a + l + "\n");
        String code = body.replaceAll("//[^\n]*", "");
        List<String> params = new ArrayList<>();
        for (String[] g : GIVEN) {
            boolean used = Pattern.compile("\\b" + g[1] + "\\b").matcher(code).find();
            boolean declared = Pattern.compile("\\b[A-Z]\\w*(<[^>]*>)?\\s+" + g[1] + "\\s*=").matcher(body).find();
            if (used && !declared) {
                params.add(g[0] + " " + g[1]);
            }
        }
        return "    public static void snippet" + index + "(" + String.join(", ", params) + ") throws Exception {\n"
                + body + "    }\n";
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Compiles every snippet (the ports and host replaced) into one class, and loads it. */
    private Class<?> compile(List<String> snippets, Map<String, String> replacements) throws Exception {
        StringBuilder source = new StringBuilder(IMPORTS).append("\npublic class ReadmeSnippets {\n");
        source.append("    public static final java.util.List<byte[]> CONSUMED = new java.util.ArrayList<>();\n"
                + "    static void consume(ByteBuf buffer, int length) {\n"
                + "        byte[] copy = new byte[length];\n"
                + "        buffer.getBytes(0, copy);\n"
                + "        CONSUMED.add(copy);\n    }\n");
        for (int i = 0; i < snippets.size(); i++) {
            String text = snippets.get(i);
            for (Map.Entry<String, String> r : replacements.entrySet()) {
                text = text.replaceAll(r.getKey(), r.getValue());
            }
            source.append(method(i + 1, text));
        }
        source.append("}\n");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac).as("a JDK's compiler").isNotNull();
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///ReadmeSnippets.java"),
                JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        StringWriter diagnostics = new StringWriter();
        boolean ok = javac.getTask(diagnostics, null, null, List.of("-d", out.toString(), "-classpath",
                System.getProperty("java.class.path"), "-proc:none", "-parameters"), null, List.of(file)).call();
        assertThat(ok).as("the README's snippets compile:%n%s%n%s", diagnostics, source).isTrue();
        URLClassLoader loader = new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader());
        return loader.loadClass("ReadmeSnippets");
    }

    /** Runs the snippet whose text contains {@code marker}, giving each parameter its value by name. */
    private static void run(Class<?> snippets, List<String> texts, String marker, Map<String, Object> given)
            throws Throwable {
        int index = -1;
        for (int i = 0; i < texts.size(); i++) {
            if (texts.get(i).contains(marker)) {
                assertThat(index).as("one README snippet with " + marker).isEqualTo(-1);
                index = i + 1;
            }
        }
        assertThat(index).as("a README snippet with " + marker).isPositive();
        Method method = null;
        for (Method m : snippets.getMethods()) {
            if (m.getName().equals("snippet" + index)) {
                method = m;
            }
        }
        assertThat(method).isNotNull();
        Object[] values = new Object[method.getParameterCount()];
        Parameter[] parameters = method.getParameters();
        for (int i = 0; i < values.length; i++) {
            assertThat(given).as("a value for the snippet's " + parameters[i].getName())
                    .containsKey(parameters[i].getName());
            values[i] = given.get(parameters[i].getName());
        }
        try {
            method.invoke(null, values);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Test
    void theReadmesJavaSnippetsCompileAndRunAgainstTheEmbeddedServer() throws Throwable {
        List<String> texts = snippets();
        assertThat(texts).as("Java snippets in the README").hasSizeGreaterThanOrEqualTo(4);
        int tcpPort = freePort();
        int rdmaPort = freePort();
        Map<String, String> replacements = new HashMap<>();
        replacements.put("\\b20049\\b", String.valueOf(rdmaPort));
        replacements.put("\\b2049\\b", String.valueOf(tcpPort));
        replacements.put("\"server\"", "\"127.0.0.1\"");
        Class<?> snippets = compile(texts, replacements);

        // the one-call server: mounted over RDMA (NFSv4.2, as mount.nfs would) while it runs
        byte[] data = new byte[3 * 1024 * 1024 + 17];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31 + 7);
        }
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        Map<String, Object> given = new HashMap<>();
        given.put("dir", exported);
        given.put("between", (Runnable) () -> {
            Path local = out.resolve("upload.bin");
            try (NfsMount mount = NfsMounts.mount("rdma://127.0.0.1:" + rdmaPort + "/data")) {
                Files.write(local, data);
                mount.upload(local, "/readme.bin");
                assertThat(mount.readAll("/readme.bin")).isEqualTo(data);
            } catch (Throwable t) {
                failures.add(t);
            }
        });
        run(snippets, texts, "NfsRdmaServer.start", given);
        assertThat(failures).isEmpty();
        assertThat(Files.readAllBytes(exported.resolve("readme.bin"))).as("the file on the server's disk").isEqualTo(data);

        // an oncrpc4j program on RdmaRpcServer: the README's RpcCall and DDP call run against it while it serves
        ReadProgram program = new ReadProgram();
        given.clear();
        given.put("dispatchable", program);
        given.put("between", (Runnable) () -> {
            try {
                run(snippets, texts, "new RpcCall(", Map.of("PROGRAM", NFS_PROGRAM, "VERSION", 3, "PROCEDURE", 0,
                        "args", XdrVoid.XDR_VOID, "result", XdrVoid.XDR_VOID));
                try (RdmaClientTransport rdma = RdmaClientTransport.connect(
                        new InetSocketAddress("127.0.0.1", rdmaPort), RdmaClientConfig.builder().build())) {
                    ByteBuf replyBuf = Unpooled.buffer();
                    run(snippets, texts, "new RdmaCall()", Map.of("rdma", rdma,
                            "encodedCall", readCall(rdma.nextXid(), 1 << 20), "replyBuf", replyBuf));
                    // the reduced reply: accepted, NFS3_OK, no attributes, count, eof, and the data's length word
                    replyBuf.skipBytes(24);
                    assertThat(replyBuf.readInt()).as("NFS3_OK").isZero();
                    assertThat(replyBuf.readInt()).as("no post-op attributes").isZero();
                    assertThat(replyBuf.readInt()).as("count").isEqualTo(1 << 20);
                    replyBuf.skipBytes(4);
                    assertThat(replyBuf.readInt()).as("the data's length").isEqualTo(1 << 20);
                    assertThat(replyBuf.readableBytes()).as("no data inline").isZero();
                }
            } catch (Throwable t) {
                failures.add(t);
            }
        });
        run(snippets, texts, "RdmaRpcServer server = RdmaRpcServer.builder()", given);
        assertThat(failures).isEmpty();
        assertThat(program.nulls).as("the RpcCall reached the program").isEqualTo(1);
        assertThat(program.reads).as("the DDP call reached the program").isEqualTo(1);
        // what "consume(buffer, length)" in a snippet was given, copied
        @SuppressWarnings("unchecked")
        List<byte[]> consumed = (List<byte[]>) snippets.getField("CONSUMED").get(null);
        assertThat(consumed).singleElement().satisfies(
                placed -> assertThat(placed).as("the bytes placed in the sink").isEqualTo(ReadProgram.pattern(1 << 20)));
    }

    /** An NFSv3 READ call of {@code count} bytes at offset 0 of an 8-byte file handle, with AUTH_NONE. */
    private static ByteBuf readCall(int xid, int count) {
        ByteBuf call = Unpooled.buffer();
        call.writeInt(xid).writeInt(0).writeInt(2).writeInt(NFS_PROGRAM).writeInt(3).writeInt(NFSPROC3_READ);
        call.writeInt(0).writeInt(0).writeInt(0).writeInt(0);
        call.writeInt(8).writeBytes("readme!!".getBytes(StandardCharsets.US_ASCII));
        call.writeLong(0).writeInt(count);
        return call;
    }

    /** NULL, and READ answering any file handle with a pattern of the count asked (NFSv3 READ3resok, no attributes). */
    static final class ReadProgram implements RpcDispatchable {
        volatile int nulls;
        volatile int reads;

        static byte[] pattern(int length) {
            byte[] bytes = new byte[length];
            for (int i = 0; i < length; i++) {
                bytes[i] = (byte) (i * 13 + 5);
            }
            return bytes;
        }

        @Override
        public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
            switch (call.getProcedure()) {
                case 0 -> {
                    call.retrieveCall(XdrVoid.XDR_VOID);
                    nulls++;
                    call.reply(XdrVoid.XDR_VOID);
                }
                case NFSPROC3_READ -> {
                    ReadArgs args = new ReadArgs();
                    call.retrieveCall(args);
                    reads++;
                    call.reply(new ReadResult(pattern(args.count)));
                }
                default -> call.failProcedureUnavailable();
            }
        }
    }

    static final class ReadArgs implements XdrAble {
        int count;

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrDecodeDynamicOpaque();
            xdr.xdrDecodeLong();
            count = xdr.xdrDecodeInt();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) {
            throw new UnsupportedOperationException();
        }
    }

    record ReadResult(byte[] data) implements XdrAble {
        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeInt(0);
            xdr.xdrEncodeBoolean(false);
            xdr.xdrEncodeInt(data.length);
            xdr.xdrEncodeBoolean(false);
            xdr.xdrEncodeDynamicOpaque(data);
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) {
            throw new UnsupportedOperationException();
        }
    }
}
