/**
 * The verbs SPI over DiSNI 2.1 ({@code com.ibm.disni}): RDMA hardware and the kernel's software devices through
 * libibverbs and librdmacm. The entry point is {@link org.rpcrdma4j.verbs.disni.DisniProvider} (provider name
 * {@code disni}, found by {@link java.util.ServiceLoader}); its options are {@link
 * org.rpcrdma4j.verbs.disni.DisniDeviceConfig}.
 * <p>
 * Layers:
 * <ul>
 * <li>Pure translation, tested without libdisni: {@code SendTranslation} (SPI work requests to DiSNI's
 * {@code IbvSendWR}, opcodes, flags, SGEs, refusals), {@code CompletionTranslation} ({@code IbvWC} to
 * {@code WorkCompletion}), {@code AccessFlags}, {@code CmEvents} (rdma_cm events), {@code DisniErrors} (errno and
 * linkage errors), {@code DisniAvailability} (what is missing, in one line), {@code SysfsRdmaDevices}.</li>
 * <li>Posting and polling over narrow native seams ({@code NativeQp}, {@code NativeCq}, {@code NativeCmId}), also
 * tested with fakes: {@code SendPoster}/{@code RecvPoster} (DiSNI's reusable post calls, cached so that steady-state
 * posting allocates nothing), {@code DisniCompletionQueue}, {@code DisniQueuePair}, {@code QpConnection} (the rdma_cm
 * state machine).</li>
 * <li>The DiSNI side, run only where libdisni and a device exist: {@code DisniDevice}, {@code DisniProtectionDomain},
 * {@code DisniMemoryRegion}, the adapters {@code DisniNativeQp}, {@code DisniNativeCq}, {@code DisniCmId}, and the two
 * device threads {@code CmEventLoop} (owns every rdma_cm id) and {@code CompletionEventLoop} (completion events).</li>
 * </ul>
 * <p>
 * What DiSNI 2.1 cannot do, and what this provider does instead: no ibv_query_device (limits come from the
 * configuration); no fast registration, FMR, LOCAL_INV, Send with Invalidate (no capability is claimed, such requests
 * are refused); IRD/ORD cannot be set (the device maxima apply; configured values are reported); private data only
 * with a connect, none delivered to either side; no rdma_reject (a request's id is destroyed); no modification of a
 * serialised receive (receives are cached by content); a failed completion carries only wr_id, status and opcode.
 * Java 9+ needs {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}.
 */
package org.rpcrdma4j.verbs.disni;
