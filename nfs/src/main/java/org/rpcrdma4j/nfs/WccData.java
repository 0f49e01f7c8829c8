package org.rpcrdma4j.nfs;

/**
 * {@code wcc_data}: weak cache consistency data, the object's attributes before and after an operation. Either may
 * be absent (null). A server that cannot take {@code before} atomically with the operation must leave it out.
 */
public record WccData(WccAttr before, FileAttributes after) {
    public static final WccData NONE = new WccData(null, null);

    public static WccData after(FileAttributes after) {
        return new WccData(null, after);
    }
}
