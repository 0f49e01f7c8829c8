package org.rpcrdma4j.nfs.server.v4;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.function.Consumer;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.junit.jupiter.api.Test;

/** {@link EncodedSize} counts what oncrpc4j's {@code Xdr} writes, call for call. */
class EncodedSizeTest {
    private static void sameSize(Consumer<XdrEncodingStream> encoding) {
        EncodedSize size = new EncodedSize();
        encoding.accept(size);
        try (Xdr xdr = new Xdr(64)) {
            xdr.beginEncoding();
            encoding.accept(xdr);
            xdr.endEncoding();
            assertThat(size.bytes()).isEqualTo(xdr.asBuffer().remaining());
        }
    }

    @Test
    void countsEveryKindOfItemAsOncrpc4jEncodesIt() {
        sameSize(x -> x.xdrEncodeInt(7));
        sameSize(x -> x.xdrEncodeLong(7));
        sameSize(x -> x.xdrEncodeBoolean(true));
        sameSize(x -> x.xdrEncodeFloat(1f));
        sameSize(x -> x.xdrEncodeDouble(1d));
        sameSize(x -> x.xdrEncodeByte((byte) 1));
        sameSize(x -> x.xdrEncodeShort((short) 1));
        for (int n = 0; n < 9; n++) {
            byte[] b = new byte[n];
            int length = n;
            sameSize(x -> x.xdrEncodeDynamicOpaque(b));
            sameSize(x -> x.xdrEncodeOpaque(b, length));
            sameSize(x -> x.xdrEncodeOpaque(new byte[length + 3], 2, length));
            sameSize(x -> x.xdrEncodeByteBuffer(ByteBuffer.allocate(length + 5).position(5)));
            sameSize(x -> x.xdrEncodeIntVector(new int[length]));
            sameSize(x -> x.xdrEncodeIntFixedVector(new int[length], length));
            sameSize(x -> x.xdrEncodeLongVector(new long[length]));
            sameSize(x -> x.xdrEncodeLongFixedVector(new long[length], length));
            sameSize(x -> x.xdrEncodeFloatVector(new float[length]));
            sameSize(x -> x.xdrEncodeFloatFixedVector(new float[length], length));
            sameSize(x -> x.xdrEncodeDoubleVector(new double[length]));
            sameSize(x -> x.xdrEncodeDoubleFixedVector(new double[length], length));
            sameSize(x -> x.xdrEncodeByteVector(new byte[length]));
            sameSize(x -> x.xdrEncodeByteFixedVector(new byte[length], length));
            sameSize(x -> x.xdrEncodeShortVector(new short[length]));
            sameSize(x -> x.xdrEncodeShortFixedVector(new short[length], length));
        }
    }

    @Test
    void countsStringsInUtf8AsTheJdkEncodesThem() {
        for (String s : new String[] {"", "a", "abcd", "abcde", "Grüße", "名前", "\uD83D\uDE00 smile", "lone \uD800 high",
                "lone \uDC00 low", "end \uD800"}) {
            sameSize(x -> x.xdrEncodeString(s));
        }
    }
}
