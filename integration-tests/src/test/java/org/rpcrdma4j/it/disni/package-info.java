/**
 * The RPC-over-RDMA client and server, and NFSv3 over them, on the {@code disni} provider: a real RDMA device
 * (InfiniBand, RoCE, iWARP hardware, or the kernel's rxe/siw) reached through DiSNI and libdisni.
 *
 * <p>These tests need a device and libdisni, so they run only when asked: {@code -Drdma.disni=true
 * -Drdma.disni.address=<IPv4 address of the RDMA interface>} (and optionally {@code -Drdma.disni.options=k=v,...},
 * the provider options of {@code DisniDeviceConfig}), with {@code --add-exports java.base/sun.nio.ch=ALL-UNNAMED}
 * and libdisni on {@code java.library.path}. Otherwise every test is skipped with {@link DisniRun#HOW} as its
 * reason. Server and client run in one JVM, each on its own device instance, connected over the device's own
 * address; every payload that arrives is compared byte for byte with what was sent.
 *
 * <p>{@code rdma-verbs-disni/src/test/siw/run-in-guest.sh} runs them over Soft-iWARP in a qemu guest.
 */
package org.rpcrdma4j.it.disni;
