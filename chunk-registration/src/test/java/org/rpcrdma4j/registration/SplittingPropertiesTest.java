package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.rpcrdma4j.registration.fake.FakeDevice;

/**
 * Random scatter lists, mapped by a page-list strategy (FRWR) and a contiguous-only one (REG_MR) at random depths:
 * the segments must match an independent byte-by-byte model of the splitting rule (count and lengths), and the peer
 * reading every segment in order must get every byte exactly once, in order.
 */
class SplittingPropertiesTest {
    static final int PAGE = RegistrationConfig.PAGE_SIZE;

    enum Placement { NEW_BUFFER, CONTINUE, SAME_BUFFER_NEXT_PAGE }

    record Range(Placement placement, int offset, int length) {
    }

    @Provide
    Arbitrary<List<Range>> lists() {
        Arbitrary<Placement> placement = Arbitraries.of(Placement.class);
        Arbitrary<Integer> offset = Arbitraries.oneOf(Arbitraries.just(0), Arbitraries.integers().between(0, 2 * PAGE));
        Arbitrary<Integer> length = Arbitraries.oneOf(
                Arbitraries.integers().between(1, 64),
                Arbitraries.of(PAGE, 2 * PAGE, 17 * PAGE),
                Arbitraries.integers().between(1, 24 * PAGE));
        return Combinators.combine(placement, offset, length).as(Range::new).list().ofMinSize(1).ofMaxSize(10);
    }

    /** A byte of the chunk: which buffer and where in its arena. */
    record Where(RegisteredArena arena, int arenaOffset) {
    }

    @Property(tries = 120)
    void segmentsFollowTheModelAndCoverEveryByteOnceInOrder(@ForAll("lists") List<Range> ranges,
                                                           @ForAll @IntRange(min = 1, max = 20) int depth,
                                                           @ForAll boolean pageLists) throws Exception {
        FakeDevice device = pageLists ? FakeDevice.frwr(32) : FakeDevice.regMrOnly();
        RegistrationConfig config = RegistrationConfig.defaults(1)
                .withMode(pageLists ? RegistrationMode.FRWR : RegistrationMode.REG_MR)
                .withMaxPagesPerHandle(pageLists ? depth : 0)
                .withHandles(1024, 1024)
                .withMaxSegmentsPerRpc(1024);
        try (FakeHarness h = new FakeHarness(device, config)) {
            Random random = new Random(ranges.hashCode());
            ScatterList list = new ScatterList(2048);
            List<RegisteredBuffer> buffers = new ArrayList<>();
            List<Where> where = new ArrayList<>();
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            RegisteredBuffer current = null;
            int end = 0;
            for (Range r : ranges) {
                int start;
                if (r.placement() == Placement.CONTINUE && current != null && end + r.length() <= current.capacity()) {
                    start = end;
                } else if (r.placement() == Placement.SAME_BUFFER_NEXT_PAGE && current != null
                        && roundUp(end) + r.length() <= current.capacity()) {
                    start = roundUp(end);
                } else {
                    current = h.buffers().allocate(r.offset() + r.length() + random.nextInt(3 * PAGE) + 1);
                    buffers.add(current);
                    start = r.offset();
                }
                byte[] data = new byte[r.length()];
                random.nextBytes(data);
                current.setBytes(start, data);
                expected.write(data);
                list.add(current, start, r.length());
                for (int i = 0; i < r.length(); i++) {
                    where.add(new Where(current.arena(), current.arenaOffset() + start + i));
                }
                end = start + r.length();
            }

            List<Integer> model = modelLengths(where, pageLists ? depth : Integer.MAX_VALUE, pageLists);

            Registration registration = h.pool().newRegistration().begin(0x80000001);
            int n = registration.map(list, ChunkRole.READ_CHUNK_SOURCE);
            h.send(registration);
            List<Integer> lengths = new ArrayList<>();
            ByteArrayOutputStream read = new ByteArrayOutputStream();
            for (int i = 0; i < n; i++) {
                lengths.add(registration.length(i));
                FakeDevice.PeerResult r = device.peerRead(registration.handle(i), registration.offset(i),
                        registration.length(i));
                assertThat(r.ok()).as("segment %d: %s", i, r.why()).isTrue();
                read.write(r.data());
            }
            assertThat(lengths).as("segment lengths").isEqualTo(model);
            assertThat(read.toByteArray()).as("bytes in order").isEqualTo(expected.toByteArray());
            assertThat(list.length()).isEqualTo(expected.size());

            AbstractRegistrationTest.invalidateAndWait(h, registration, null);
            assertThat(device.validStags()).as("nothing left exposed").isEmpty();
            buffers.forEach(RegisteredBuffer::release);
            assertThat(h.buffers().pagesInUse()).isZero();
        }
    }

    private static int roundUp(int offset) {
        return (offset + PAGE - 1) / PAGE * PAGE;
    }

    /**
     * The splitting rule, restated byte by byte: a byte that continues the previous one in the same page stays in
     * the segment; one that starts a page right after a byte that ended one adds a page (with page lists; without,
     * only if it is also the next byte in memory); anything else, or a page beyond the depth, starts a segment.
     */
    static List<Integer> modelLengths(List<Where> bytes, int depth, boolean pageLists) {
        List<Integer> lengths = new ArrayList<>();
        int length = 0;
        int pages = 0;
        Where previous = null;
        for (Where b : bytes) {
            if (previous != null) {
                boolean next = b.arena() == previous.arena() && b.arenaOffset() == previous.arenaOffset() + 1;
                if (next && b.arenaOffset() % PAGE != 0) {
                    length++;
                    previous = b;
                    continue;
                }
                boolean boundary = (previous.arenaOffset() + 1) % PAGE == 0 && b.arenaOffset() % PAGE == 0;
                boolean joins = boundary && (pageLists || next);
                if (joins && pages < depth) {
                    pages++;
                    length++;
                    previous = b;
                    continue;
                }
                lengths.add(length);
            }
            length = 1;
            pages = 1;
            previous = b;
        }
        lengths.add(length);
        return lengths;
    }
}
