package org.rpcrdma4j.nfs.v4;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;

/**
 * A generated COMPOUND (arguments or results) with a data item at a known place: the unreduced bytes, where the
 * item's data begin and how long they are, and the reduced bytes (data and XDR pad removed, length word kept).
 */
record GeneratedCompound(byte[] unreduced, int itemOffset, int itemLength) {

    /** @return the message without the item's bytes and pad */
    byte[] reduced() {
        int padded = (itemLength + 3) & ~3;
        byte[] out = new byte[unreduced.length - padded];
        System.arraycopy(unreduced, 0, out, 0, itemOffset);
        System.arraycopy(unreduced, itemOffset + padded, out, itemOffset, unreduced.length - itemOffset - padded);
        return out;
    }

    /** @return the item's data */
    byte[] item() {
        return Arrays.copyOfRange(unreduced, itemOffset, itemOffset + itemLength);
    }

    /** @return {@code message} in a buffer whose readable bytes start after {@code prefix} unrelated bytes */
    static ByteBuf buffer(byte[] message, int prefix) {
        ByteBuf b = Unpooled.buffer(prefix + message.length);
        b.writeBytes(new byte[prefix]).writeBytes(message);
        b.readerIndex(prefix);
        return b;
    }

    /** COMPOUND4args header: tag, minor version, operation count. */
    static XdrWriter callHeader(byte[] tag, int minor, int count) {
        return new XdrWriter().opaque(tag).word(minor).word(count);
    }

    /** COMPOUND4res header: status, tag, result count. */
    static XdrWriter replyHeader(int status, byte[] tag, int count) {
        return new XdrWriter().word(status).opaque(tag).word(count);
    }
}
