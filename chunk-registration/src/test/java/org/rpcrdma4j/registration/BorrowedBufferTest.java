package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.buffer.ByteBuf;
import io.netty.util.IllegalReferenceCountException;
import org.junit.jupiter.api.Test;
import org.rpcrdma4j.registration.fake.FakeDevice;
import org.rpcrdma4j.verbs.ProtectionDomain;

/**
 * A borrowed buffer counts its own references and holds one of its owner's: pieces of one registered buffer live and
 * die apart, and the owner's memory goes back (and its freed action runs) with the last of them.
 */
class BorrowedBufferTest {
    @Test
    void piecesOfOneBufferHaveCountsOfTheirOwnAndTheLastGivesTheMemoryBack() throws Exception {
        FakeDevice device = FakeDevice.regMrOnly();
        ProtectionDomain pd = device.allocProtectionDomain();
        RegisteredBufferPool pool = RegisteredBufferPool.create(pd,
                new BufferPoolConfig(16 * 4096, 1, 1, Duration.ofSeconds(5)));
        try {
            RegisteredBuffer owner = pool.allocate(8192);
            AtomicInteger freed = new AtomicInteger();
            owner.whenFreed(freed::incrementAndGet);
            assertThatThrownBy(() -> owner.whenFreed(() -> { })).isInstanceOf(IllegalStateException.class);
            for (int i = 0; i < 8192; i++) {
                owner.setByte(i, i * 7);
            }
            ByteBuf first = BorrowedBuffer.of(owner.nioBuffer(0, 4096), owner);
            ByteBuf second = BorrowedBuffer.of(owner.nioBuffer(4096, 4096), owner);
            assertThat(owner.refCnt()).isEqualTo(3);
            assertThat(first.readableBytes()).isEqualTo(4096);
            assertThat(first.capacity()).isEqualTo(4096);
            assertThat(second.getByte(1)).isEqualTo((byte) ((4097 * 7)));
            assertThatThrownBy(() -> first.capacity(8192)).isInstanceOf(UnsupportedOperationException.class);

            first.retain();
            assertThat(first.refCnt()).as("its own count").isEqualTo(2);
            assertThat(second.refCnt()).isEqualTo(1);
            assertThat(owner.release()).as("the owner's own reference").isFalse();
            assertThat(first.release()).isFalse();
            assertThat(first.release()).isTrue();
            assertThat(owner.refCnt()).as("held by the second piece only").isEqualTo(1);
            assertThat(pool.pagesInUse()).isEqualTo(2);
            assertThat(freed.get()).isZero();
            assertThatThrownBy(first::release).isInstanceOf(IllegalReferenceCountException.class);

            assertThat(second.release()).isTrue();
            assertThat(pool.pagesInUse()).isZero();
            assertThat(freed.get()).as("the freed action, once").isEqualTo(1);

            assertThatThrownBy(() -> BorrowedBuffer.of(ByteBuffer.allocate(8), owner))
                    .isInstanceOf(IllegalArgumentException.class);
        } finally {
            pool.close();
            pd.close();
        }
    }
}
