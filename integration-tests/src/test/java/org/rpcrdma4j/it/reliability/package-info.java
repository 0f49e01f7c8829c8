/**
 * Reliability campaigns: long runs of real traffic between the project's client and server transports (and NFS on
 * top) on the software iWARP device, with faults injected by {@link org.rpcrdma4j.it.fault}, hostile peers, and
 * checks that nothing hangs, no byte arrives wrong, no registered memory stays reachable by the peer, and every pool
 * returns to its full count. Each campaign prints one line of figures ({@code [reliability] <campaign>: ...}).
 * <p>
 * Campaigns: {@code HostileServerCampaignTest} (a server that tries every handle it was given once the call is
 * complete), {@code HostileClientsCampaignTest} (malformed transport headers, absurd chunk lists, credit floods and
 * junk instead of MPA beside a well-behaved client), {@code DisconnectStormCampaignTest} (NFSv3 and NFSv4.1
 * operations with a connection fault every ~500), {@code FuzzCampaignTest} (mutated valid traffic into both receive
 * paths), {@code ServerRestartCampaignTest} (crashes during an UNSTABLE upload, NFSv3 and NFSv4.1) and
 * {@code CreditStarvationCampaignTest} (a server granting one credit); {@code FaultLayerTest} covers the remaining
 * faults once each. Test peers:
 * {@code HostileServer}, {@code HostileClient} with {@code HostileMessages} and {@code NfsCalls}, {@code Mutator};
 * {@code NfsRdmaRig} runs NFSv3 or NFSv4.1 over RDMA end to end behind a {@link org.rpcrdma4j.it.fault.FaultProxy}.
 * {@code OurClientsRandomIoTest} drives random I/O through both NFS clients (mount-tool's data check) and checks
 * every byte.
 * <p>
 * Sizes are system properties with the normal run's defaults: {@code reliability.hostileServer.tries} (2,000;
 * {@code -Preliability}: 10,000), {@code reliability.storm.ops} (50,000), {@code reliability.hostileClients.inputs}
 * (400), {@code reliability.fuzz.inputs} (10,000; {@code -Pfuzz}: 1,000,000).
 */
package org.rpcrdma4j.it.reliability;
