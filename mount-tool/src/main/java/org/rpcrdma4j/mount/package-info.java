package org.rpcrdma4j.mount;
