package org.rpcrdma4j.mount.command;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** serve DIR warns when the JVM's file name encoding is not UTF-8. */
class FileNameEncodingTest {
    @Test
    void aJvmStartedUnderTheCLocaleIsWarnedAbout() {
        assertThat(FileNameEncoding.warning("ANSI_X3.4-1968")).hasValueSatisfying(w -> assertThat(w)
                .contains("ANSI_X3.4-1968, not UTF-8").contains("LC_ALL=C.UTF-8"));
        assertThat(FileNameEncoding.warning("ISO-8859-1")).isPresent();
    }

    @Test
    void utf8IsNot() {
        assertThat(FileNameEncoding.warning("UTF-8")).isEmpty();
        assertThat(FileNameEncoding.warning("utf8")).isEmpty();
    }
}
