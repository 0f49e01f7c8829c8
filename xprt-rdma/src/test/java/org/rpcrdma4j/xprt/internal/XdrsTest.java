package org.rpcrdma4j.xprt.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.dcache.oncrpc4j.xdr.BadXdrOncRpcException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.junit.jupiter.api.Test;

/** The decoding streams the server hands oncrpc4j, and where oncrpc4j then encodes the reply. */
class XdrsTest {

    @Test
    void aStreamOverAnArrayDecodesOnlyTheCallAndEncodesALongerReplyInPlace() throws Exception {
        byte[] slot = new byte[4096];
        ByteBuffer.wrap(slot).putInt(0, 7).putInt(4, 9).putInt(8, 0x5a5a5a5a);
        Xdr xdr = Xdrs.over(slot, 8);
        xdr.beginDecoding();
        assertThat(xdr.xdrDecodeInt()).isEqualTo(7);
        assertThat(xdr.xdrDecodeInt()).isEqualTo(9);
        assertThatThrownBy(xdr::xdrDecodeInt).as("the bytes after the call are not part of it")
                .isInstanceOf(BadXdrOncRpcException.class);
        xdr.endDecoding();

        xdr.beginEncoding();
        for (int i = 0; i < 1000; i++) {
            xdr.xdrEncodeInt(i);
        }
        xdr.endEncoding();
        assertThat(xdr.asBuffer().array()).as("a 4000-byte reply to an 8-byte call, in the slot's own array")
                .isSameAs(slot);
        assertThat(Xdrs.length(xdr)).isEqualTo(4000);
        assertThat(ByteBuffer.wrap(slot).getInt(3996)).isEqualTo(999);
    }

    @Test
    void aReplyBeyondTheArrayStillEncodes() throws Exception {
        byte[] slot = new byte[64];
        Xdr xdr = Xdrs.over(slot, 0);
        xdr.beginEncoding();
        for (int i = 0; i < 100; i++) {
            xdr.xdrEncodeInt(i);
        }
        xdr.endEncoding();
        assertThat(Xdrs.length(xdr)).isEqualTo(400);
        ByteBuffer copy = ByteBuffer.allocate(400);
        xdr.asBuffer().get(copy);
        assertThat(copy.getInt(396)).isEqualTo(99);
    }

    @Test
    void encodingElsewhereLeavesTheDecodedBytesAlone() throws Exception {
        ByteBuffer call = ByteBuffer.allocateDirect(64);
        for (int i = 0; i < 16; i++) {
            call.putInt(i * 4, i);
        }
        Xdr xdr = Xdrs.over(call.duplicate());
        xdr.beginDecoding();
        assertThat(xdr.xdrDecodeInt()).isZero();
        xdr.endDecoding();
        byte[] spare = new byte[128];
        Xdrs.encodeElsewhere(xdr, spare);
        assertThatThrownBy(xdr::xdrDecodeInt).as("nothing is left to decode once the reply goes elsewhere")
                .isInstanceOf(BadXdrOncRpcException.class);
        xdr.beginEncoding();
        for (int i = 0; i < 40; i++) {
            xdr.xdrEncodeInt(-1);
        }
        xdr.endEncoding();
        for (int i = 0; i < 16; i++) {
            assertThat(call.getInt(i * 4)).isEqualTo(i);
        }
        assertThat(Xdrs.length(xdr)).isEqualTo(160);
        assertThat(ByteBuffer.wrap(spare).getInt(124)).isEqualTo(-1);
        assertThatThrownBy(() -> Xdrs.encodeElsewhere(new Xdr(16), spare)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aDetachedStreamEncodesItsNextReplyOnTheHeapAndLeavesTheArrayAlone() throws Exception {
        byte[] slot = new byte[4096];
        Xdr xdr = Xdrs.over(slot, 0);
        xdr.beginEncoding();
        xdr.xdrEncodeInt(1);
        xdr.endEncoding();
        Xdrs.detach(xdr);
        java.util.Arrays.fill(slot, (byte) 0x11); // the slot's next call
        assertThatThrownBy(xdr::xdrDecodeInt).as("nothing is left to decode").isInstanceOf(BadXdrOncRpcException.class);

        xdr.beginEncoding(); // a second reply
        for (int i = 0; i < 100; i++) {
            xdr.xdrEncodeInt(-1);
        }
        xdr.endEncoding();
        assertThat(Xdrs.length(xdr)).isEqualTo(400);
        assertThat(xdr.asBuffer().getInt(396)).isEqualTo(-1);
        for (byte b : slot) {
            assertThat(b).isEqualTo((byte) 0x11);
        }
    }

    @Test
    void aDetachedStreamOverABufferLeavesTheBufferAlone() throws Exception {
        ByteBuffer call = ByteBuffer.allocateDirect(64);
        Xdr xdr = Xdrs.over(call.duplicate());
        xdr.beginEncoding();
        xdr.xdrEncodeInt(1);
        xdr.endEncoding();
        Xdrs.detach(xdr);
        xdr.beginEncoding();
        for (int i = 0; i < 40; i++) {
            xdr.xdrEncodeInt(-1);
        }
        xdr.endEncoding();
        assertThat(Xdrs.length(xdr)).isEqualTo(160);
        assertThat(call.getInt(0)).as("the first reply, still there").isEqualTo(1);
        for (int i = 4; i < 64; i++) {
            assertThat(call.get(i)).isZero();
        }
    }

    @Test
    void detachingAStreamOfItsOwnChangesNothing() throws Exception {
        Xdr xdr = new Xdr(16);
        xdr.beginEncoding();
        xdr.xdrEncodeInt(5);
        xdr.endEncoding();
        Xdrs.detach(xdr);
        assertThat(Xdrs.length(xdr)).isEqualTo(4);
        assertThat(xdr.asBuffer().getInt(0)).isEqualTo(5);
    }
}
