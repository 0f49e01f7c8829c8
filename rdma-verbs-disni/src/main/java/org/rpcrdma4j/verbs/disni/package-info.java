package org.rpcrdma4j.verbs.disni;
