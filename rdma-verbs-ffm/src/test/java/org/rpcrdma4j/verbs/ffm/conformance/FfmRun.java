package org.rpcrdma4j.verbs.ffm.conformance;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.rpcrdma4j.verbs.RdmaDevice;
import org.rpcrdma4j.verbs.ffm.FfmDeviceInfo;
import org.rpcrdma4j.verbs.ffm.FfmDevices;
import org.rpcrdma4j.verbs.ffm.FfmProvider;

/**
 * What the conformance suite needs to run over the {@code ffm} provider: a device, which exists only in the guest
 * ({@code FfmGuestTest} runs the suite there through {@link GuestConformance}, with {@value #ADDRESS} set to the
 * address of the guest's RDMA interface). Elsewhere each test is skipped, saying so.
 * <p>
 * Where siw or rxe themselves behave otherwise than the suite requires, the test is disabled on that device with what
 * the device does ({@link #DIFFERENCES}); the module's README lists the same.
 */
final class FfmRun implements ExecutionCondition {
    static final String ADDRESS = "rdma.ffm.address";
    static final String WHY_SKIPPED = "needs an RDMA device: FfmGuestTest runs these in the guest over siw and rxe "
            + "(or set -D" + ADDRESS + "=<IPv4 or IPv6 address of an RDMA interface>)";

    /** A test the named device kind cannot pass, because of what the device does. */
    record Difference(String devicePrefix, String test, String what) {
    }

    private static final String SIW_LOCAL_SGE = "siw completes a Send whose local SGE fails its check (unknown "
            + "lkey, beyond the region, another protection domain's region) with LOC_QP_OP_ERR, not LOC_PROT_ERR";

    private static final String RXE_LOCAL_SGE = "rxe completes a Send whose local SGE fails its check (unknown "
            + "lkey, another protection domain's region) with LOC_QP_OP_ERR, not LOC_PROT_ERR";

    private static final String RXE_WINDOW_BOUNDS = "rxe (Linux 6.1) checks an access through a type 2 memory "
            + "window against the bounds of the memory region the window is bound over, not the window's own: a "
            + "WRITE that runs past the window's end, inside the region, lands";
    static final List<Difference> DIFFERENCES = List.of(
            new Difference("siw", "readPastTheEndOfARegion", "siw completes an RDMA READ the peer refused with "
                    + "WR_FLUSH_ERR, not REM_ACCESS_ERR: the refusal arrives as a TERMINATE that moves the queue "
                    + "pair to error, and the pending READ is flushed"),
            new Difference("siw", "manyQueuePairsInParallel", "siw (Linux 6.1) refuses ibv_create_cq once the "
                    + "completion queues of one context hold about 144 pages of small queues (144 of 32 entries, "
                    + "72 of 128, 16 of 1024; hundreds of 512 or 4096 entries are made); the test makes 256"),
            new Difference("siw", "sendFromAnUnknownLkey", SIW_LOCAL_SGE),
            new Difference("siw", "sendSgeBeyondItsRegion", SIW_LOCAL_SGE),
            new Difference("siw", "sendFromAnotherProtectionDomainsRegion", SIW_LOCAL_SGE),
            new Difference("siw", "receiveIntoARegionWithoutLocalWrite", "siw completes a receive into memory "
                    + "registered without LOCAL_WRITE with GENERAL_ERR, not LOC_PROT_ERR"),
            new Difference("siw", "readWithoutRemoteReadRight", "siw serves an RDMA READ of memory registered "
                    + "without REMOTE_READ: the READ completes successfully with the bytes"),
            new Difference("siw", "outstandingRequestsAreFlushedInOrderAfterAnError", "siw completes the requests "
                    + "posted after an RDMA READ the peer refused before the READ itself: the first completion is "
                    + "the unsignaled WRITE posted after it"),
            new Difference("siw", "completionsFollowPostingOrderAcrossReads", "siw completes a WRITE or Send "
                    + "posted after an RDMA READ once it is sent, without waiting for the READ's response: under load "
                    + "the READ's completion comes after theirs"),
            new Difference("rxe", "sendFromAnUnknownLkey", RXE_LOCAL_SGE),
            new Difference("rxe", "sendFromAnotherProtectionDomainsRegion", RXE_LOCAL_SGE),
            new Difference("rxe", "sendIntoAReceiveTooSmall", "rxe completes a receive too small for the Send "
                    + "with LOC_QP_OP_ERR, not LOC_LEN_ERR"),
            new Difference("rxe", "receiveIntoARegionWithoutLocalWrite", "rxe completes a receive into memory "
                    + "registered without LOCAL_WRITE with LOC_QP_OP_ERR, not LOC_PROT_ERR"),
            new Difference("rxe", "tableRunRegistrationReachesOnlyItsPages", RXE_WINDOW_BOUNDS),
            new Difference("rxe", "runOfATableCarvedFromRegisteredMemoryReachesOnlyItsBytes", RXE_WINDOW_BOUNDS),
            new Difference("rxe", "sendWithInvalidateOfRegisteredMemoryIsRefusedByTheReceiver", "rxe completes "
                    + "the receive of a Send with Invalidate naming memory registered with ibv_reg_mr "
                    + "successfully, where the receiver must refuse it"));

    private static String deviceName;

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isEmpty()) {
            return ConditionEvaluationResult.enabled("decided per test");
        }
        if (System.getProperty(ADDRESS, "").isBlank()) {
            return ConditionEvaluationResult.disabled(WHY_SKIPPED);
        }
        String test = context.getRequiredTestMethod().getName();
        String device = deviceName();
        for (Difference d : DIFFERENCES) {
            if (d.test().equals(test) && device.startsWith(d.devicePrefix())) {
                return ConditionEvaluationResult.disabled("on " + device + ": " + d.what());
            }
        }
        return ConditionEvaluationResult.enabled("an RDMA device at " + System.getProperty(ADDRESS));
    }

    /** The name of the device the address belongs to (the guest has one). */
    private static synchronized String deviceName() {
        if (deviceName == null) {
            try {
                List<FfmDeviceInfo> devices = FfmDevices.list();
                deviceName = devices.size() == 1 ? devices.get(0).name() : "";
            } catch (Exception e) {
                deviceName = "";
            }
        }
        return deviceName;
    }

    static InetAddress address() {
        try {
            return InetAddress.getByName(System.getProperty(ADDRESS));
        } catch (UnknownHostException e) {
            throw new AssertionError("-D" + ADDRESS + ": " + e.getMessage(), e);
        }
    }

    /** The device the address belongs to. */
    static RdmaDevice device() throws Exception {
        return new FfmProvider().open(Map.of("address", address().getHostAddress()));
    }

    /** A device listens on its own address (it cannot reach the loopback interface). */
    static InetSocketAddress listenAddress() {
        return new InetSocketAddress(address(), 0);
    }
}
