package org.rpcrdma4j.nfs;
