package org.rpcrdma4j.nfs.server.v4;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import org.rpcrdma4j.nfs.server.NfsServer;
import org.rpcrdma4j.nfs.v4.Nfs4;
import org.rpcrdma4j.nfs.v4.Nfs4Status;
import org.rpcrdma4j.nfs.v4.OperationGenerator;
import org.rpcrdma4j.nfs.vfs.MemoryVfs;

/**
 * COMPOUNDs no client would send, against the NFSv4.1 server over TCP: after a valid SEQUENCE and PUTFH of a real
 * file, operations of every number the minor version has, with arguments drawn at random ({@link OperationGenerator}),
 * and, among them, the I/O and NFSv4.2 operations (READ, WRITE, SEEK, ALLOCATE, DEALLOCATE, COPY, CLONE) with the file's real
 * stateid and hostile numbers (offsets and lengths at 0, block edges, 2^31, 2^32, 2^62, 2^63 - 1, all ones). Every
 * call is answered as an accepted COMPOUND (no GARBAGE_ARGS: every argument decodes or is NFS4ERR_BADXDR), none with
 * NFS4ERR_SERVERFAULT (which a server fault caught in an operation would be), and the session serves on.
 */
class Nfs41ServerHostileCompoundsTest {
    private static final long[] HOSTILE = {0, 1, 4095, 65535, 65536, 65537, 1L << 20, (1L << 31) - 1, 1L << 31,
        1L << 32, 1L << 62, Long.MAX_VALUE, -1L, -65536L, Long.MIN_VALUE};

    private static NfsServer server;
    private static V4Script script;
    private static Nfs41ServerTest.Client client;
    private static byte[][] file;
    private static byte[][] other;

    private static synchronized void start() throws Exception {
        if (server != null) {
            return;
        }
        MemoryVfs vfs = new MemoryVfs(16L << 20);
        server = NfsServer.builder().export("/export", vfs).bindAddress("127.0.0.1").port(0)
                .nfs4(Nfs41ServerTest.noGrace(Duration.ofSeconds(300))).build();
        server.start();
        script = new V4Script(server.address());
        client = Nfs41ServerTest.session(script, "hostile");
        byte[] root = Nfs41ServerTest.exportRoot(client);
        file = Nfs41ServerTest.create(client, root, "target");
        other = Nfs41ServerTest.create(client, root, "other");
        script.call(client.compound().putfh(file[1]).op(Nfs4.OP_WRITE).stateid(file[0]).hyper(0).word(2)
                .opaque(new byte[200_000])).sequenceOk();
    }

    @AfterContainer
    static void stop() throws Exception {
        if (script != null) {
            script.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static long number(Random r) {
        return r.nextInt(4) == 0 ? r.nextLong() : HOSTILE[r.nextInt(HOSTILE.length)];
    }

    /** One of the operations that reach the file's bytes, with its real stateid and hostile numbers. */
    private static String deep(Random r, V4Script.Args a) {
        byte[] stateid = file[0];
        long x = number(r);
        long y = number(r);
        switch (r.nextInt(8)) {
            case 0 -> {
                int count = (int) (y & 0x7ffff); // a reply this script can take (its records end at 1 MiB)
                a.op(Nfs4.OP_READ).stateid(stateid).hyper(x).word(count);
                return "READ " + x + " " + count;
            }
            case 1 -> {
                a.op(Nfs4.OP_WRITE).stateid(stateid).hyper(x).word(r.nextInt(3)).opaque(new byte[r.nextInt(100)]);
                return "WRITE " + x;
            }
            case 2 -> {
                a.op(Nfs4.OP_SEEK).stateid(stateid).hyper(x).word(r.nextInt(3));
                return "SEEK " + x;
            }
            case 3 -> {
                a.op(Nfs4.OP_ALLOCATE).stateid(stateid).hyper(x).hyper(y);
                return "ALLOCATE " + x + " " + y;
            }
            case 4 -> {
                a.op(Nfs4.OP_DEALLOCATE).stateid(stateid).hyper(x).hyper(y);
                return "DEALLOCATE " + x + " " + y;
            }
            case 5 -> {
                long count = number(r);
                a.op(Nfs4.OP_SAVEFH).putfh(r.nextBoolean() ? file[1] : other[1]).op(Nfs4.OP_COPY).stateid(stateid)
                        .stateid(r.nextBoolean() ? other[0] : stateid).hyper(x).hyper(y).hyper(count)
                        .word(r.nextInt(2)).word(r.nextInt(2)).word(0);
                return "COPY " + x + " " + y + " " + count;
            }
            case 6 -> {
                long count = number(r);
                a.op(Nfs4.OP_SAVEFH).putfh(r.nextBoolean() ? file[1] : other[1]).op(Nfs4.OP_CLONE).stateid(stateid)
                        .stateid(r.nextBoolean() ? other[0] : stateid).hyper(x).hyper(y).hyper(count);
                return "CLONE " + x + " " + y + " " + count;
            }
            default -> {
                a.putfh(file[1]);
                return "PUTFH";
            }
        }
    }

    @Property(tries = 1000)
    void noCompoundMakesTheServerFaultOrLoseItsSession(@ForAll long seed) throws Exception {
        start();
        Random r = new Random(seed);
        int minor = r.nextInt(4) == 0 ? 1 : 2;
        int[] numbers = OperationGenerator.callOperations(minor);
        V4Script.Args a = (minor == 2 ? client.compound42() : client.compound()).putfh(file[1]);
        List<String> sent = new ArrayList<>();
        // half the COMPOUNDs go deep (operations on the file that may succeed one after another), half mix in
        // operations of any number with random arguments, which mostly end the COMPOUND where they stand
        boolean deepOnly = r.nextBoolean();
        for (int i = 0, n = 1 + r.nextInt(6); i < n; i++) {
            if (deepOnly || r.nextInt(3) == 0) {
                sent.add(deep(r, a));
            } else {
                int op = numbers[r.nextInt(numbers.length)];
                a.encodedOp(OperationGenerator.generate(op, minor, r).callBytes());
                sent.add("op " + op);
            }
        }
        V4Script.Res res = script.call(a);
        assertThat(res.status).as("COMPOUND of minor version %d: %s", minor, sent)
                .isNotEqualTo(Nfs4Status.NFS4ERR_SERVERFAULT);
        if (res.status == Nfs4Status.NFS4ERR_TOO_MANY_OPS) {
            client.seq--; // more operations than the session takes: refused at SEQUENCE, the slot unused
            assertThat(res.count).isEqualTo(1);
            return;
        }
        res.sequenceOk();
        // the session serves on
        V4Script.Res next = script.call(client.compound().putfh(file[1]).op(Nfs4.OP_GETFH));
        assertThat(next.status).as("the session after a COMPOUND of minor version %d: %s", minor, sent).isZero();
    }

}
