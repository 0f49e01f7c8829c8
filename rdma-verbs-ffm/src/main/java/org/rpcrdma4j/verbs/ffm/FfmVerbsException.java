package org.rpcrdma4j.verbs.ffm;

import org.rpcrdma4j.verbs.VerbsException;

/** A verb of libibverbs or librdmacm failed: which verb, and the {@code errno} it left. */
public class FfmVerbsException extends VerbsException {
    private static final long serialVersionUID = 1L;

    private final String verb;
    private final int errno;

    /**
     * @param verb        the C function that failed, e.g. {@code ibv_reg_mr}
     * @param errno       the error number it returned or left in {@code errno}
     * @param description what {@code strerror} says of it
     * @param context     what was being done, or null
     */
    public FfmVerbsException(String verb, int errno, String description, String context) {
        super(verb + " failed: errno " + errno + " (" + description + ")" + (context == null ? "" : ": " + context));
        this.verb = verb;
        this.errno = errno;
    }

    /** The C function that failed. */
    public String verb() {
        return verb;
    }

    /** The error number. */
    public int errno() {
        return errno;
    }
}
