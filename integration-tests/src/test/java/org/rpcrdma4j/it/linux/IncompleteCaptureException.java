package org.rpcrdma4j.it.linux;

import java.io.IOException;

/**
 * The capture lacks traffic that crossed the wire: dumpcap lost packets (a stream breaks off inside an FPDU, an
 * answered call has no answer in the file). The run's own checks of the data still hold; the wire cannot be judged.
 */
final class IncompleteCaptureException extends IOException {
    IncompleteCaptureException(String message, Throwable cause) {
        super(message, cause);
    }
}
