package org.rpcrdma4j.it.capture;

/**
 * One frame of a capture file, as the capture recorded it.
 *
 * @param number        1-based position of the frame in the file (Wireshark's {@code frame.number})
 * @param timestampNanos capture time in nanoseconds since the epoch (microsecond files are scaled)
 * @param linkType      the pcap LINKTYPE_* value of the interface the frame was captured on
 * @param data          the captured bytes (possibly fewer than went over the wire when the snap length cut them);
 *                      owned by this record, never modified
 * @param originalLength how many bytes the frame had on the wire
 */
public record CapturedFrame(int number, long timestampNanos, int linkType, byte[] data, int originalLength) {

    /** @return whether the capture kept the whole frame */
    public boolean isComplete() {
        return data.length >= originalLength;
    }
}
