package org.rpcrdma4j.registration.fake;

import java.nio.ByteBuffer;

import org.rpcrdma4j.verbs.MrState;
import org.rpcrdma4j.verbs.ProtectionDomain;
import org.rpcrdma4j.verbs.RegisteredMemory;
import org.rpcrdma4j.verbs.Stag;

final class FakeRegisteredMemory extends FakeDevice.FakeRegion implements RegisteredMemory {
    private final ByteBuffer memory;
    private final int index;

    FakeRegisteredMemory(FakeDevice device, FakePd pd, ByteBuffer buffer, int access) {
        super(device, pd);
        this.memory = buffer.slice();
        this.access = access;
        this.length = memory.capacity();
        this.iova = device.newAddress(length);
        this.index = device.newIndex(this);
        this.stag = Stag.of(index, 0);
        this.state = MrState.VALID;
    }

    @Override
    ByteBuffer byteAt(long offset) {
        return memory.duplicate().position((int) offset);
    }

    @Override
    public ByteBuffer buffer() {
        return memory.duplicate().clear();
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public int lkey() {
        return stag;
    }

    @Override
    public int rkey() {
        return stag;
    }

    @Override
    public long iova() {
        return iova;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public MrState state() {
        return state;
    }

    @Override
    public void close() {
        synchronized (device.lock) {
            if (state == MrState.FREE) {
                return;
            }
            state = MrState.FREE;
            pd.regions--;
        }
        device.forget(index);
    }
}
