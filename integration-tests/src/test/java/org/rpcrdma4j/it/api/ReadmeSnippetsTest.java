package org.rpcrdma4j.it.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Java snippets compile against the current API: each is put into a method of its own, with the names it
 * uses but does not declare (a directory, a dispatchable, the call's arguments...) as parameters, and compiled on
 * this module's class path. A snippet's "..." line stands for the caller's code and is left out.
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
        {"ByteBuf", "encodedCall"}, {"ByteBuf", "replyBuf"},
    };

    @TempDir
    Path out;

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
        String body = snippet.lines().filter(l -> !l.strip().equals("...")).reduce("", (a, l) -> a + l + "\n");
        List<String> params = new ArrayList<>();
        for (String[] g : GIVEN) {
            boolean used = Pattern.compile("\\b" + g[1] + "\\b").matcher(body).find();
            boolean declared = Pattern.compile("\\b[A-Z]\\w*(<[^>]*>)?\\s+" + g[1] + "\\s*=").matcher(body).find();
            if (used && !declared) {
                params.add(g[0] + " " + g[1]);
            }
        }
        return "    void snippet" + index + "(" + String.join(", ", params) + ") throws Exception {\n" + body
                + "    }\n";
    }

    @Test
    void theReadmesJavaSnippetsCompile() throws Exception {
        List<String> snippets = snippets();
        assertThat(snippets).as("Java snippets in the README").hasSizeGreaterThanOrEqualTo(3);
        StringBuilder source = new StringBuilder(IMPORTS).append("\nclass ReadmeSnippets {\n");
        for (int i = 0; i < snippets.size(); i++) {
            source.append(method(i + 1, snippets.get(i)));
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
                System.getProperty("java.class.path"), "-proc:none"), null, List.of(file)).call();
        assertThat(ok).as("the README's snippets compile:%n%s%n%s", diagnostics, source).isTrue();
    }
}
