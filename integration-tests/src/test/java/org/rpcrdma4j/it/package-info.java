/** End-to-end, interoperability, fault and hostile-peer tests across the modules. */
package org.rpcrdma4j.it;
