package org.rpcrdma4j.it.linux;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rpcrdma4j.it.capture.IwarpCapture;
import org.rpcrdma4j.it.capture.IwarpConnection;
import org.rpcrdma4j.it.capture.LinuxCaptures;

/**
 * The check {@link LinuxClientOurNfs4ServerTest} uses to tell a frame of ours that tshark marks malformed because it
 * lost the iWARP framing from one that is: our capture reader's FPDUs per frame
 * ({@link IwarpCapture#responderOpcodesByFrame}) must be the ones tshark shows in every frame it dissects without
 * complaint. Checked on knfsd's side of the reference captures of Linux traffic.
 */
class TsharkFramingCheckTest {
    private static final int KNFSD_PORT = 20049;

    @ParameterizedTest
    @ValueSource(strings = {LinuxCaptures.NFSV3, LinuxCaptures.NFSV41})
    void ourFpdusPerFrameAreTsharks(String name) throws Exception {
        Path file = LinuxCaptures.path(name);
        Map<Integer, List<Integer>> ours = IwarpCapture.responderOpcodesByFrame(file, KNFSD_PORT);
        int fpdus = IwarpCapture.read(file).stream().mapToInt(IwarpConnection::fpdusFromServer).sum();
        assertThat(ours.values().stream().mapToInt(List::size).sum()).as("knfsd's FPDUs, by frame").isEqualTo(fpdus)
                .isPositive();
        if (!LinuxClientOurNfs4ServerTest.tsharkRuns()) {
            return;
        }
        List<String> frames = LinuxClientOurNfs4ServerTest.tshark(file,
                "iwarp_rdma && tcp.srcport == " + KNFSD_PORT + " && !_ws.malformed", "frame.number",
                "iwarp_rdma.opcode");
        int compared = 0;
        for (String line : frames) {
            String[] f = line.split("\\|", -1);
            assertThat(ours.get(Integer.parseInt(f[0]))).as("frame %s", line)
                    .isEqualTo(LinuxClientOurNfs4ServerTest.tsharkOpcodes(f[1]));
            compared++;
        }
        assertThat(compared).as("frames compared").isGreaterThan(fpdus / 4);
    }
}
