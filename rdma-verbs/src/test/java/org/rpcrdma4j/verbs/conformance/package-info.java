/**
 * The provider-neutral verbs conformance suite. Each abstract class covers one area (device verbs, data transfer,
 * registration, protection errors, connections, large transfers); a provider runs it by extending each class and
 * implementing {@code newDevice()}. Optional capabilities are checked with hooks and JUnit assumptions, so a device
 * without them skips those tests with a reason. After every test the fixture closes what the test made and asserts
 * that the devices' resource counts are back to zero. The module ships this package in its test-jar, with what other
 * modules' tests share: {@link org.rpcrdma4j.verbs.conformance.AllocationWindows}, and the forwarding device,
 * protection domain, registered memory, connection manager and connection request that tests' fault-injecting
 * devices extend, overriding only the verbs they change.
 */
package org.rpcrdma4j.verbs.conformance;
