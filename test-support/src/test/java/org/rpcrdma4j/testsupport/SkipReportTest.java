package org.rpcrdma4j.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

class SkipReportTest {
    @Test
    void oneLinePerClassThatSkippedWithItsReasons() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        // without the listeners found on the class path (this module's own SkipReport among them: it would print the
        // fixtures' skips on the console as if they were real ones)
        LauncherConfig config = LauncherConfig.builder().enableTestExecutionListenerAutoRegistration(false).build();
        LauncherFactory.create(config).execute(LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(SkipFixtures.SomeSkipped.class), selectClass(SkipFixtures.AllDisabled.class),
                        selectClass(SkipFixtures.NoneSkipped.class))
                .build(), new SkipReport(out));
        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().sorted().toList();
        assertEquals(List.of(
                "SKIPPED SkipFixtures$AllDisabled (the whole class): the whole class is off",
                "SKIPPED SkipFixtures$SomeSkipped (3 tests): reason A; reason B"), lines);
    }
}
