package org.rpcrdma4j.testsupport;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs test classes in this JVM (in a guest, where the build's test runner is not) and prints one line per test:
 * {@code PASS}, {@code FAIL} with why and where, or {@code SKIP} with why; then {@code LABEL: N passed, N failed, N
 * skipped}, which the host's test reads.
 */
public final class GuestSuite {
    private GuestSuite() {
    }

    /**
     * Runs {@code suite}, or of it only the classes named in {@code only} (simple names) and single tests
     * ({@code Class#method}), and returns how many tests failed.
     */
    public static int run(String label, List<Class<?>> suite, List<String> only) {
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        for (Class<?> c : suite) {
            if (only.isEmpty() || only.contains(c.getSimpleName())) {
                request.selectors(selectClass(c));
            }
            for (String o : only) {
                if (o.startsWith(c.getSimpleName() + "#")) {
                    request.selectors(selectMethod(c.getName() + o.substring(o.indexOf('#'))));
                }
            }
        }
        AtomicInteger passed = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicInteger skipped = new AtomicInteger();
        java.util.Map<String, Long> started = new java.util.concurrent.ConcurrentHashMap<>();
        LauncherFactory.create().execute(request.build(), new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier test) {
                started.put(test.getUniqueId(), System.nanoTime());
            }

            /** How long {@code test} ran, as " (1.2 s)". */
            private String took(TestIdentifier test) {
                Long t0 = started.remove(test.getUniqueId());
                return t0 == null ? "" : String.format(" (%.1f s)", (System.nanoTime() - t0) / 1e9);
            }

            @Override
            public void executionSkipped(TestIdentifier test, String reason) {
                if (test.isTest()) {
                    skipped.incrementAndGet();
                    System.out.println("SKIP " + name(test) + ": " + reason);
                } else if (test.isContainer() && test.getSource().isPresent()) {
                    System.out.println("SKIP " + name(test) + " (all its tests): " + reason);
                }
            }

            @Override
            public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                if (!test.isTest() && result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                    started.remove(test.getUniqueId());
                    return;
                }
                switch (result.getStatus()) {
                    case SUCCESSFUL:
                        passed.incrementAndGet();
                        System.out.println("PASS " + name(test) + took(test));
                        break;
                    case ABORTED:
                        skipped.incrementAndGet();
                        System.out.println("SKIP " + name(test) + ": " + result.getThrowable().map(Throwable::getMessage)
                                .orElse("aborted"));
                        break;
                    default:
                        failed.incrementAndGet();
                        Throwable t = result.getThrowable().orElse(null);
                        System.out.println("FAIL " + name(test) + took(test) + ": " + (t == null ? "" : t.toString()
                                .replace('\n', ' ')));
                        if (t != null) {
                            for (StackTraceElement e : t.getStackTrace()) {
                                if (e.getClassName().startsWith("org.rpcrdma4j")) {
                                    System.out.println("    at " + e);
                                }
                            }
                        }
                        break;
                }
            }
        });
        System.out.println(new Summary(passed.get(), failed.get(), skipped.get()).line(label));
        return failed.get();
    }

    /** What a run counted, as its last line says it to the host. */
    public record Summary(int passed, int failed, int skipped) {
        /** The summary {@code label}'s run printed in {@code output}, or null when there is none. */
        public static Summary read(String label, String output) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(label)
                    + ": (\\d+) passed, (\\d+) failed, (\\d+) skipped").matcher(output);
            return m.find() ? new Summary(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                    Integer.parseInt(m.group(3))) : null;
        }

        String line(String label) {
            return label + ": " + passed + " passed, " + failed + " failed, " + skipped + " skipped";
        }
    }

    private static String name(TestIdentifier test) {
        return test.getUniqueId().replaceAll(".*\\[class:[^\\]]*\\.([^.\\]]+)\\].*\\[method:([^#\\]]*#)?([^(\\]]+).*",
                "$1.$3").replaceAll(".*\\[class:[^\\]]*\\.([^.\\]]+)\\]$", "$1");
    }
}
