package org.rpcrdma4j.codec;
