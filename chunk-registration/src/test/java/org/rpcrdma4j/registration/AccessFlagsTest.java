package org.rpcrdma4j.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rpcrdma4j.verbs.Access.LOCAL_WRITE;
import static org.rpcrdma4j.verbs.Access.REMOTE_READ;
import static org.rpcrdma4j.verbs.Access.REMOTE_WRITE;

import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rpcrdma4j.verbs.TransportType;

class AccessFlagsTest {

    static Stream<Arguments> table() {
        return Stream.of(
                Arguments.of(TransportType.IB, ChunkRole.READ_CHUNK_SOURCE, REMOTE_READ, true),
                Arguments.of(TransportType.IB, ChunkRole.WRITE_CHUNK_SINK, REMOTE_WRITE | LOCAL_WRITE, true),
                Arguments.of(TransportType.IB, ChunkRole.REPLY_CHUNK_SINK, REMOTE_WRITE | LOCAL_WRITE, true),
                Arguments.of(TransportType.IB, ChunkRole.RDMA_READ_SINK, LOCAL_WRITE, false),
                Arguments.of(TransportType.ROCE, ChunkRole.READ_CHUNK_SOURCE, REMOTE_READ, true),
                Arguments.of(TransportType.ROCE, ChunkRole.WRITE_CHUNK_SINK, REMOTE_WRITE | LOCAL_WRITE, true),
                Arguments.of(TransportType.ROCE, ChunkRole.REPLY_CHUNK_SINK, REMOTE_WRITE | LOCAL_WRITE, true),
                Arguments.of(TransportType.ROCE, ChunkRole.RDMA_READ_SINK, LOCAL_WRITE, false),
                Arguments.of(TransportType.IWARP, ChunkRole.READ_CHUNK_SOURCE, REMOTE_READ, true),
                Arguments.of(TransportType.IWARP, ChunkRole.WRITE_CHUNK_SINK, REMOTE_WRITE | LOCAL_WRITE, true),
                Arguments.of(TransportType.IWARP, ChunkRole.REPLY_CHUNK_SINK, REMOTE_WRITE | LOCAL_WRITE, true),
                Arguments.of(TransportType.IWARP, ChunkRole.RDMA_READ_SINK, REMOTE_WRITE | LOCAL_WRITE, true));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("table")
    void accessAndHandleNeedFollowTheTable(TransportType transport, ChunkRole role, int access, boolean handle) {
        assertThat(AccessFlags.of(transport, role)).isEqualTo(access);
        assertThat(AccessFlags.needsHandle(transport, role)).isEqualTo(handle);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("table")
    void aRemoteWriteRightAlwaysComesWithLocalWrite(TransportType transport, ChunkRole role, int ignored,
                                                    boolean ignoredToo) {
        int access = AccessFlags.of(transport, role);
        if ((access & REMOTE_WRITE) != 0) {
            assertThat(access & LOCAL_WRITE).isEqualTo(LOCAL_WRITE);
        }
    }
}
