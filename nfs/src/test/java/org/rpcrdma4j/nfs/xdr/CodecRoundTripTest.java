package org.rpcrdma4j.nfs.xdr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.rpcrdma4j.nfs.CreateMode;
import org.rpcrdma4j.nfs.DirEntry;
import org.rpcrdma4j.nfs.FileAttributes;
import org.rpcrdma4j.nfs.FileHandle;
import org.rpcrdma4j.nfs.FileType;
import org.rpcrdma4j.nfs.NfsTime;
import org.rpcrdma4j.nfs.SetAttributes;
import org.rpcrdma4j.nfs.SetAttributes.TimeSetting;
import org.rpcrdma4j.nfs.StableHow;
import org.rpcrdma4j.nfs.WccAttr;
import org.rpcrdma4j.nfs.WccData;
import org.rpcrdma4j.nfs.testing.XdrBytes;

/** Every codec decodes what it encodes; decoders refuse what breaks a bound. */
class CodecRoundTripTest {

    @Provide
    Arbitrary<FileHandle> handles() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(64).map(FileHandle::wrap);
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.strings().withCharRange('\u0001', '\ud7ff').ofMaxLength(60);
    }

    @Provide
    Arbitrary<NfsTime> times() {
        return Combinators.combine(Arbitraries.longs().between(0, 0xFFFFFFFFL),
                Arbitraries.integers().between(0, 999_999_999)).as(NfsTime::new);
    }

    @Provide
    Arbitrary<FileAttributes> attributes() {
        return Combinators.combine(Arbitraries.of(FileType.class), Arbitraries.integers(), Arbitraries.longs(),
                Arbitraries.longs(), times(), times()).as((type, i, size, id, t1, t2) ->
                new FileAttributes(type, i & 07777, i >>> 20, i, ~i, size, size ^ id, i >>> 3, i >>> 5, id, ~id, t1, t2,
                        t1));
    }

    @Provide
    Arbitrary<SetAttributes> sattrs() {
        Arbitrary<TimeSetting> time = Arbitraries.oneOf(Arbitraries.just(null),
                Arbitraries.just(TimeSetting.SERVER_TIME), times().map(TimeSetting::client));
        return Combinators.combine(Arbitraries.integers().injectNull(0.4), Arbitraries.integers().injectNull(0.4),
                Arbitraries.integers().injectNull(0.4), Arbitraries.longs().greaterOrEqual(0).injectNull(0.4), time,
                time).as(SetAttributes::new);
    }

    @Property
    void setattrArgs(@ForAll("handles") FileHandle fh, @ForAll("sattrs") SetAttributes s,
                     @ForAll("times") NfsTime guard, @ForAll boolean guarded) throws Exception {
        SetattrArgs back = XdrBytes.decode(XdrBytes.encode(new SetattrArgs(fh, s, guarded ? guard : null)),
                new SetattrArgs());
        assertThat(back.object).isEqualTo(fh);
        assertThat(back.attributes).isEqualTo(s);
        assertThat(back.guardCtime).isEqualTo(guarded ? guard : null);
    }

    @Property
    void writeArgsCarryTheirData(@ForAll("handles") FileHandle fh, @ForAll long offset, @ForAll StableHow stable,
                                 @ForAll @Size(max = 200) byte[] data) throws Exception {
        ByteBuf src = Unpooled.wrappedBuffer(data);
        WriteArgs back = XdrBytes.decode(XdrBytes.encode(new WriteArgs(fh, offset, stable, src)), new WriteArgs());
        assertThat(back.file).isEqualTo(fh);
        assertThat(back.offset).isEqualTo(offset);
        assertThat(back.count).isEqualTo(data.length);
        assertThat(back.stable).isEqualTo(stable);
        byte[] got = new byte[back.data.remaining()];
        back.data.get(got);
        assertThat(got).isEqualTo(data);
        assertThat(src.readerIndex()).isZero(); // the caller's buffer is borrowed, not consumed
    }

    @Property
    void createAndSymlinkArgs(@ForAll("handles") FileHandle fh, @ForAll("names") String name,
                              @ForAll CreateMode mode, @ForAll("sattrs") SetAttributes s, @ForAll long verifier)
            throws Exception {
        CreateArgs c = XdrBytes.decode(XdrBytes.encode(new CreateArgs(fh, name, mode, s, verifier)), new CreateArgs());
        assertThat(c.dir).isEqualTo(fh);
        assertThat(c.name).isEqualTo(name);
        assertThat(c.mode).isEqualTo(mode);
        if (mode == CreateMode.EXCLUSIVE) {
            assertThat(c.verifier).isEqualTo(verifier);
        } else {
            assertThat(c.attributes).isEqualTo(s);
        }
        SymlinkArgs l = XdrBytes.decode(XdrBytes.encode(new SymlinkArgs(fh, name, s, name + "/..")),
                new SymlinkArgs());
        assertThat(l.target).isEqualTo(name + "/..");
        assertThat(l.attributes).isEqualTo(s);
    }

    @Property
    void readdirplusResults(@ForAll @Size(max = 20) List<@net.jqwik.api.From("names") String> names,
                            @ForAll("attributes") FileAttributes a, @ForAll("handles") FileHandle fh,
                            @ForAll boolean eof) throws Exception {
        ReaddirRes res = new ReaddirRes(true);
        res.dirAttributes = a;
        res.cookieVerifier = 77;
        res.eof = eof;
        res.entries = names.stream().map(n -> new DirEntry(n.length(), n, n.hashCode(), n.length() % 2 == 0 ? a : null,
                n.length() % 3 == 0 ? null : fh)).toList();
        ReaddirRes back = XdrBytes.decode(XdrBytes.encode(res), new ReaddirRes(true));
        assertThat(back.entries).isEqualTo(res.entries);
        assertThat(back.dirAttributes).isEqualTo(a);
        assertThat(back.eof).isEqualTo(eof);
        assertThat(back.cookieVerifier).isEqualTo(77);
    }

    @Property
    void readResultsFillTheSink(@ForAll("attributes") FileAttributes a, @ForAll @Size(max = 300) byte[] data,
                                @ForAll boolean eof) throws Exception {
        ReadRes res = new ReadRes();
        res.attributes = a;
        res.count = data.length;
        res.eof = eof;
        res.data = ByteBuffer.wrap(data);
        ByteBuf sink = Unpooled.buffer(300, 300);
        ReadRes back = XdrBytes.decode(XdrBytes.encode(res), new ReadRes(sink));
        assertThat(back.attributes).isEqualTo(a);
        assertThat(back.eof).isEqualTo(eof);
        assertThat(sink.readableBytes()).isEqualTo(data.length);
        assertThat(java.util.Arrays.copyOf(sink.array(), data.length)).isEqualTo(data);
    }

    @Property
    void wccAndWriteResults(@ForAll("attributes") FileAttributes a, @ForAll StableHow how, @ForAll long verifier)
            throws Exception {
        WriteRes res = new WriteRes();
        res.wcc = new WccData(WccAttr.of(a), a);
        res.count = 12;
        res.committed = how;
        res.verifier = verifier;
        WriteRes back = XdrBytes.decode(XdrBytes.encode(res), new WriteRes());
        assertThat(back.wcc).isEqualTo(res.wcc);
        assertThat(back.committed).isEqualTo(how);
        assertThat(back.verifier).isEqualTo(verifier);
    }

    @org.junit.jupiter.api.Test
    void aReadLargerThanItsSinkIsABadReply() {
        ReadRes res = new ReadRes();
        res.count = 10;
        res.data = ByteBuffer.allocate(10);
        byte[] bytes = XdrBytes.encode(res);
        assertThatThrownBy(() -> XdrBytes.decode(bytes, new ReadRes(Unpooled.buffer(9, 9))))
                .isInstanceOf(BadXdrException.class);
    }

    @org.junit.jupiter.api.Test
    void decodersRefuseWhatBreaksABound() {
        assertThatThrownBy(() -> XdrBytes.decode(new byte[] {0, 0, 0, 65}, new FhArgs()))
                .isInstanceOf(BadXdrException.class).hasMessageContaining("64");
        assertThatThrownBy(() -> XdrBytes.decode(new byte[] {(byte) 0xFF, 0, 0, 0}, new FhArgs()))
                .isInstanceOf(BadXdrException.class);
        byte[] listOfGarbageBool = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
        assertThatThrownBy(() -> XdrBytes.decode(listOfGarbageBool, new ReaddirRes(false)))
                .isInstanceOf(BadXdrException.class).hasMessageContaining("bool");
        byte[] badTimeHow = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3};
        assertThatThrownBy(() -> XdrBytes.decode(badTimeHow, new SetattrArgs()))
                .isInstanceOf(BadXdrException.class).hasMessageContaining("time_how");
    }
}
