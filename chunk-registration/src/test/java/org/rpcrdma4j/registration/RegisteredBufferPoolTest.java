package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rpcrdma4j.registration.fake.FakeDevice;
import org.rpcrdma4j.verbs.Access;
import org.rpcrdma4j.verbs.ProtectionDomain;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegisteredBufferPoolTest {
    static final int PAGE = 4096;
    FakeDevice device;
    ProtectionDomain pd;
    RegisteredBufferPool pool;

    @BeforeEach
    void setUp() throws Exception {
        device = FakeDevice.regMrOnly();
        pd = device.allocProtectionDomain();
        pool = RegisteredBufferPool.create(pd, new BufferPoolConfig(16 * PAGE, 1, 2, Duration.ofSeconds(30)));
    }

    @AfterEach
    void tearDown() throws Exception {
        assertThat(pool.pagesInUse()).as("every buffer released").isZero();
        pool.close();
        assertThat(device.openRegions()).isZero();
        pd.close();
    }

    @Test
    void buffersAreByteBufsOverRegisteredPagesAndReleaseReturnsThem() throws Exception {
        RegisteredBuffer buffer = pool.allocate(3 * PAGE + 1);
        assertThat(buffer.refCnt()).isEqualTo(1);
        assertThat(buffer.capacity()).isEqualTo(3 * PAGE + 1);
        assertThat(buffer.pageCount()).isEqualTo(4);
        assertThat(buffer.isDirect()).isTrue();
        assertThat(pool.pagesInUse()).isEqualTo(4);
        assertThat(buffer.arena().region().access()).isEqualTo(Access.LOCAL_WRITE);
        assertThat(buffer.arenaOffset() % PAGE).isZero();
        assertThat(buffer.address(10)).isEqualTo(buffer.arena().address(buffer.arenaOffset() + 10));
        assertThat(buffer.lkey()).isEqualTo(buffer.arena().lkey());

        buffer.writeLong(0x0102030405060708L).writeInt(42);
        assertThat(buffer.readLong()).isEqualTo(0x0102030405060708L);
        assertThat(buffer.readInt()).isEqualTo(42);
        // the bytes are the arena's
        assertThat(buffer.arena().page(buffer.firstPage()).get(7)).isEqualTo((byte) 8);

        buffer.retain();
        assertThat(buffer.release()).isFalse();
        assertThat(pool.pagesInUse()).isEqualTo(4);
        assertThat(buffer.release()).isTrue();
        assertThat(pool.pagesInUse()).isZero();
    }

    @Test
    void aViewOfALiveBufferFindsItsOwnerRetainedAndNothingElseDoes() throws Exception {
        RegisteredBuffer first = pool.allocate(2 * PAGE);
        RegisteredBuffer second = pool.allocate(3 * PAGE + 10);
        java.nio.ByteBuffer inSecond = second.nioBuffer(PAGE + 5, 2 * PAGE);
        RegisteredBuffer owner = pool.retainOwner(inSecond);
        assertThat(owner).isSameAs(second);
        assertThat(second.refCnt()).as("retained for the caller").isEqualTo(2);
        assertThat(second.indexOf(inSecond)).isEqualTo(PAGE + 5);
        assertThat(first.indexOf(inSecond)).isEqualTo(-1);
        owner.release();

        // a range running past its buffer, heap memory, foreign direct memory: none
        java.nio.ByteBuffer across = first.arena().memory().duplicate().clear()
                .position(first.arenaOffset() + PAGE).limit(first.arenaOffset() + 3 * PAGE).slice();
        assertThat(pool.retainOwner(across)).isNull();
        assertThat(pool.retainOwner(java.nio.ByteBuffer.wrap(new byte[16]))).isNull();
        assertThat(pool.retainOwner(java.nio.ByteBuffer.allocateDirect(16))).isNull();
        assertThat(pool.retainOwner(second.nioBuffer(0, 0))).as("empty").isNull();
        assertThat(first.refCnt()).isEqualTo(1);
        assertThat(second.refCnt()).isEqualTo(1);

        // once released, its pages have no owner; when handed out again, the new buffer owns them
        java.nio.ByteBuffer stale = second.nioBuffer(0, 100);
        second.release();
        assertThat(pool.retainOwner(stale)).isNull();
        RegisteredBuffer again = pool.allocate(3 * PAGE);
        try {
            if (again.indexOf(stale) == 0) {
                RegisteredBuffer found = pool.retainOwner(stale);
                assertThat(found).isSameAs(again);
                found.release();
            }
        } finally {
            again.release();
            first.release();
        }
    }

    @Test
    void capacityIsFixed() throws Exception {
        RegisteredBuffer buffer = pool.allocate(100);
        try {
            assertThatThrownBy(() -> buffer.capacity(200)).isInstanceOf(UnsupportedOperationException.class);
            buffer.writerIndex(100);
            assertThatThrownBy(() -> buffer.writeByte(1)).isInstanceOf(IndexOutOfBoundsException.class);
        } finally {
            buffer.release();
        }
    }

    @Test
    void buffersDoNotOverlapAndTheArenasGrowToTheirBound() throws Exception {
        List<RegisteredBuffer> buffers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            RegisteredBuffer b = pool.allocate(4 * PAGE);
            b.setInt(0, i);
            buffers.add(b);
        }
        assertThat(pool.arenaCount()).isEqualTo(2);
        assertThat(pool.tryAllocate(1)).as("both arenas full").isNull();
        for (int i = 0; i < 8; i++) {
            assertThat(buffers.get(i).getInt(0)).isEqualTo(i);
        }
        buffers.forEach(RegisteredBuffer::release);
        assertThatThrownBy(() -> pool.allocate(16 * PAGE + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> pool.allocate(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anExhaustedPoolWaitsUntilPagesAreReleased() throws Exception {
        RegisteredBuffer a = pool.allocate(16 * PAGE);
        RegisteredBuffer b = pool.allocate(16 * PAGE);
        CountDownLatch allocated = new CountDownLatch(1);
        AtomicReference<RegisteredBuffer> got = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                got.set(pool.allocate(PAGE));
                allocated.countDown();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (pool.waits() == 0) {
            assertThat(System.nanoTime()).as("hang guard").isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(allocated.getCount()).isEqualTo(1);
        a.release();
        assertThat(allocated.await(30, TimeUnit.SECONDS)).isTrue();
        t.join();
        assertThat(failure.get()).isNull();
        got.get().release();
        b.release();
    }

    @Test
    void anExhaustedPoolGivesUpWithAClearExceptionAfterTheTimeout() throws Exception {
        RegisteredBuffer a = pool.allocate(16 * PAGE);
        RegisteredBuffer b = pool.allocate(16 * PAGE);
        try {
            assertThatThrownBy(() -> pool.allocate(PAGE, 1, TimeUnit.MILLISECONDS))
                    .isInstanceOf(BufferPoolExhaustedException.class).hasMessageContaining("no room for 4096 bytes");
            assertThat(pool.timeouts()).isEqualTo(1);
        } finally {
            a.release();
            b.release();
        }
    }

    @Test
    void freedPagesAreReusedFirstFit() throws Exception {
        RegisteredBuffer a = pool.allocate(PAGE);
        RegisteredBuffer b = pool.allocate(2 * PAGE);
        int firstOfA = a.firstPage();
        a.release();
        RegisteredBuffer c = pool.allocate(PAGE);
        assertThat(c.firstPage()).isEqualTo(firstOfA);
        RegisteredBuffer d = pool.allocate(2 * PAGE);
        assertThat(d.firstPage()).isEqualTo(b.firstPage() + 2);
        b.release();
        c.release();
        d.release();
    }

    @Test
    void bulkCopiesWithArraysAllocateNothing() throws Exception {
        RegisteredBuffer buf = pool.allocate(2 * PAGE);
        try {
            byte[] bytes = new byte[300];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) (i * 13);
            }
            byte[] back = new byte[bytes.length];
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            RegisteredBuffer raw = buf;
            for (int i = 0; i < 20_000; i++) {
                raw.setBytes(i % 4000, bytes, 0, bytes.length);
                raw.getBytes(i % 4000, back, 0, back.length);
            }
            long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            for (int i = 0; i < 100_000; i++) {
                raw.setBytes(i % 4000, bytes, 0, bytes.length);
                raw.getBytes(i % 4000, back, 0, back.length);
            }
            long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
            assertThat(back).isEqualTo(bytes);
            assertThat(allocated).as("bytes allocated by 200,000 bulk copies").isLessThan(4096);
            assertThatThrownBy(() -> raw.getBytes(2 * PAGE - 10, back, 0, back.length))
                    .isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> raw.setBytes(-1, bytes, 0, 4)).isInstanceOf(IndexOutOfBoundsException.class);
        } finally {
            buf.release();
        }
    }
    /** The lowest start of {@code pages} free pages in a row, one page at a time: what findRun must agree with. */
    private static int naiveRun(long[] bits, int pagesPerArena, int pages) {
        int run = 0;
        for (int p = 0; p < pagesPerArena; p++) {
            if ((bits[p >>> 6] & (1L << p)) != 0) {
                run = 0;
            } else if (++run == pages) {
                return p - pages + 1;
            }
        }
        return -1;
    }

    @Test
    void firstFitFindsTheSameRunAsAPageByPageSearch() {
        Random random = new Random(8166);
        for (int round = 0; round < 2000; round++) {
            int pagesPerArena = 64 * (1 + random.nextInt(16)) - (round % 3 == 0 ? random.nextInt(63) : 0);
            long[] bits = new long[(pagesPerArena + 63) / 64];
            for (int w = 0; w < bits.length; w++) {
                switch (random.nextInt(4)) {
                    case 0 -> bits[w] = 0L;
                    case 1 -> bits[w] = -1L;
                    case 2 -> bits[w] = random.nextLong();
                    default -> bits[w] = random.nextLong() & random.nextLong() & random.nextLong();
                }
            }
            int pages = 1 + random.nextInt(Math.min(pagesPerArena, 300));
            assertThat(RegisteredBufferPool.findRun(bits, pagesPerArena, pages))
                    .as("round %d: %d pages in an arena of %d", round, pages, pagesPerArena)
                    .isEqualTo(naiveRun(bits, pagesPerArena, pages));
        }
    }
}
