package org.rpcrdma4j.registration;
