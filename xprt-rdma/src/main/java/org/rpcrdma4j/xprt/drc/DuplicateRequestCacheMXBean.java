package org.rpcrdma4j.xprt.drc;

import java.util.Map;

/**
 * A {@link DuplicateRequestCache}'s counters over JMX, registered as
 * {@code org.rpcrdma4j:type=DuplicateRequestCache,name=<DrcConfig.jmxName()>}.
 */
public interface DuplicateRequestCacheMXBean {
    /** Every {@link DrcCounter} by name. */
    Map<String, Long> getCounters();

    /** Entries held now (executing and completed). */
    int getEntries();

    /** Bytes of replies and credentials held now. */
    long getBytes();
}
