package org.rpcrdma4j.nfs.v4;

/**
 * One generated COMPOUND operation: its number, its encoded arguments (what follows the opcode in a call), a
 * matching successful result (what follows opcode and NFS4_OK in a reply), and a failure: a status other than
 * NFS4_OK with the body that status carries (empty for most).
 */
public record GeneratedOperation(int op, byte[] args, byte[] result, int errorStatus, byte[] errorBody) {

    /** @return the operation as it appears in a call: opcode, then arguments */
    public byte[] callBytes() {
        return new XdrWriter().word(op).raw(args).bytes();
    }

    /** @return the successful result as it appears in a reply: opcode, NFS4_OK, then the body */
    byte[] okBytes() {
        return new XdrWriter().word(op).word(Nfs4.NFS4_OK).raw(result).bytes();
    }

    /** @return the failed result as it appears in a reply: opcode, status, then the error arm's body */
    byte[] errorBytes() {
        return new XdrWriter().word(op).word(errorStatus).raw(errorBody).bytes();
    }

    @Override
    public String toString() {
        return "op " + op + " (" + args.length + " bytes of arguments, " + result.length + " of result)";
    }
}
