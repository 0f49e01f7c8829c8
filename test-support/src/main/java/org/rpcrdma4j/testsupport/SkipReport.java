package org.rpcrdma4j.testsupport;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Prints one console line for every test class that skipped tests, with the reasons: surefire's summary counts skipped
 * tests but keeps the reasons in its XML reports, where nobody reads them. Disabled tests (an execution condition) and
 * aborted ones (an assumption) both count. Registered with the JUnit Platform through {@code META-INF/services}, so
 * every module whose tests have this module on the classpath reports its skips.
 * <p>
 * The line: {@code SKIPPED <class> (<n> tests): <reason>[; <other reason> ...]}.
 */
public final class SkipReport implements TestExecutionListener {
    /** Skip reasons per test class, with their counts, in the order they came. */
    private final Map<String, Map<String, Integer>> skips = new ConcurrentHashMap<>();
    private final PrintStream out;

    public SkipReport() {
        this(System.out);
    }

    SkipReport(PrintStream out) {
        this.out = out;
    }

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        record(test, reason);
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
            record(test, result.getThrowable().map(Throwable::getMessage).orElse("aborted"));
        } else if (isClass(test)) {
            className(test.getSource()).ifPresent(this::report);
        }
    }

    private void record(TestIdentifier test, String reason) {
        Optional<String> owner = className(test.getSource());
        if (owner.isEmpty()) {
            return; // an engine or other container without a class: its tests report themselves
        }
        String why = reason == null || reason.isBlank() ? "no reason given" : reason.strip().replace('\n', ' ');
        int tests = test.isTest() ? 1 : 0;
        skips.computeIfAbsent(owner.get(), k -> new LinkedHashMap<>()).merge(why, tests, Integer::sum);
        if (isClass(test)) {
            // a class skipped or aborted whole: no test of it reports on its own
            report(owner.get());
        }
    }

    private void report(String className) {
        Map<String, Integer> reasons = skips.remove(className);
        if (reasons == null) {
            return;
        }
        int tests = 0;
        for (int n : reasons.values()) {
            tests += n;
        }
        String simple = className.substring(className.lastIndexOf('.') + 1);
        String count = tests == 0 ? "the whole class" : tests == 1 ? "1 test" : tests + " tests";
        out.println("SKIPPED " + simple + " (" + count + "): " + String.join("; ", reasons.keySet()));
        out.flush();
    }

    private static boolean isClass(TestIdentifier test) {
        return test.isContainer() && test.getSource().filter(ClassSource.class::isInstance).isPresent();
    }

    private static Optional<String> className(Optional<TestSource> source) {
        if (source.isEmpty()) {
            return Optional.empty();
        }
        TestSource s = source.get();
        if (s instanceof ClassSource c) {
            return Optional.of(c.getClassName());
        }
        if (s instanceof MethodSource m) {
            return Optional.of(m.getClassName());
        }
        return Optional.empty();
    }
}
