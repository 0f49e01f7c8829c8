/** FRWR, FMR and REG_MR handle pools and the registered buffer pool. */
module org.rpcrdma4j.registration {
    requires transitive org.rpcrdma4j.verbs;
    requires transitive io.netty.buffer;
    requires transitive io.netty.common;
    requires org.slf4j;

    exports org.rpcrdma4j.registration;
}
