/**
 * What every module's tests share: {@link org.rpcrdma4j.testsupport.SkipReport} prints why tests were skipped, and
 * {@link org.rpcrdma4j.testsupport.RequiredPeer} turns the skip of a test against an outside peer into a failure in CI.
 * A test-scope dependency of every module; nothing in the libraries depends on it.
 */
package org.rpcrdma4j.testsupport;
