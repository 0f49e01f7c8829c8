package org.rpcrdma4j.verbs.disni;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.rpcrdma4j.verbs.ResourceCounts;

/**
 * What a device has open, counted for {@link org.rpcrdma4j.verbs.RdmaDevice#resourceCounts()} and remembered so that
 * closing the device closes everything. Thread-safe.
 */
final class DeviceResources {
    private final Set<DisniProtectionDomain> pds = ConcurrentHashMap.newKeySet();
    private final Set<DisniCompletionQueue> cqs = ConcurrentHashMap.newKeySet();
    private final Set<DisniQueuePair> qps = ConcurrentHashMap.newKeySet();
    private final Set<DisniListener> listeners = ConcurrentHashMap.newKeySet();
    private final Set<DisniMemoryRegion> mrs = ConcurrentHashMap.newKeySet();

    void protectionDomainOpened(DisniProtectionDomain pd) {
        pds.add(pd);
    }

    void protectionDomainClosed(DisniProtectionDomain pd) {
        pds.remove(pd);
    }

    void memoryRegionOpened(DisniMemoryRegion mr) {
        mrs.add(mr);
    }

    void memoryRegionClosed(DisniMemoryRegion mr) {
        mrs.remove(mr);
    }

    void completionQueueOpened(DisniCompletionQueue cq) {
        cqs.add(cq);
    }

    void completionQueueClosed(DisniCompletionQueue cq) {
        cqs.remove(cq);
    }

    boolean owns(DisniCompletionQueue cq) {
        return cqs.contains(cq);
    }

    boolean owns(DisniQueuePair qp) {
        return qps.contains(qp);
    }

    void queuePairOpened(DisniQueuePair qp) {
        qps.add(qp);
    }

    void queuePairClosed(DisniQueuePair qp) {
        qps.remove(qp);
    }

    void listenerOpened(DisniListener l) {
        listeners.add(l);
    }

    void listenerClosed(DisniListener l) {
        listeners.remove(l);
    }

    List<DisniProtectionDomain> protectionDomains() {
        return new ArrayList<>(pds);
    }

    List<DisniMemoryRegion> memoryRegions() {
        return new ArrayList<>(mrs);
    }

    List<DisniCompletionQueue> completionQueues() {
        return new ArrayList<>(cqs);
    }

    List<DisniQueuePair> queuePairs() {
        return new ArrayList<>(qps);
    }

    List<DisniListener> listeners() {
        return new ArrayList<>(listeners);
    }

    ResourceCounts counts() {
        return new ResourceCounts(pds.size(), mrs.size(), qps.size(), cqs.size(), listeners.size());
    }
}
