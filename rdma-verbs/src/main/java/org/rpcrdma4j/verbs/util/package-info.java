/** Small utilities shared by the layers above the verbs: enum-named counters. */
package org.rpcrdma4j.verbs.util;
