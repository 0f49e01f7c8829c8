package org.rpcrdma4j.verbs.ffm.conformance;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs the conformance suite over the ffm provider in this JVM (in the guest) and prints one line per test:
 * {@code PASS}, {@code FAIL} with why, or {@code SKIP} with why, then {@code conformance: N passed, N failed, N
 * skipped}. Exit status 0 when nothing failed. Arguments: the IPv4 address of the RDMA interface, then optionally the
 * simple names of the classes to run, or {@code Class#method} for one test.
 */
public final class GuestConformance {
    private static final List<Class<?>> SUITE = List.of(FfmDeviceConformanceTest.class,
            FfmMemoryRegistrationConformanceTest.class, FfmDataTransferConformanceTest.class,
            FfmConnectionConformanceTest.class, FfmProtectionErrorConformanceTest.class,
            FfmLargeTransferConformanceTest.class);

    private GuestConformance() {
    }

    public static void main(String[] args) {
        System.setProperty(FfmRun.ADDRESS, args[0]);
        List<String> only = List.of(args).subList(1, args.length);
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        for (Class<?> c : SUITE) {
            if (only.isEmpty() || only.contains(c.getSimpleName())) {
                request.selectors(selectClass(c));
            }
            for (String o : only) {
                if (o.startsWith(c.getSimpleName() + "#")) {
                    request.selectors(selectMethod(c.getName() + o.substring(o.indexOf('#'))));
                }
            }
        }
        LauncherDiscoveryRequest built = request.build();
        AtomicInteger passed = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicInteger skipped = new AtomicInteger();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(built, new TestExecutionListener() {
            @Override
            public void executionSkipped(TestIdentifier test, String reason) {
                if (test.isTest()) {
                    skipped.incrementAndGet();
                    System.out.println("SKIP " + name(test) + ": " + reason);
                }
            }

            @Override
            public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                if (!test.isTest() && result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                    return;
                }
                switch (result.getStatus()) {
                    case SUCCESSFUL:
                        passed.incrementAndGet();
                        System.out.println("PASS " + name(test));
                        break;
                    case ABORTED:
                        skipped.incrementAndGet();
                        System.out.println("SKIP " + name(test) + ": " + result.getThrowable().map(Throwable::getMessage)
                                .orElse("aborted"));
                        break;
                    default:
                        failed.incrementAndGet();
                        Throwable t = result.getThrowable().orElse(null);
                        System.out.println("FAIL " + name(test) + ": " + (t == null ? "" : t.toString().replace('\n',
                                ' ')));
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
        System.out.println("conformance: " + passed + " passed, " + failed + " failed, " + skipped + " skipped");
        System.exit(failed.get() == 0 ? 0 : 1);
    }

    private static String name(TestIdentifier test) {
        return test.getUniqueId().replaceAll(".*\\[class:[^\\]]*\\.([^.\\]]+)\\].*\\[method:([^#\\]]*#)?([^(\\]]+).*",
                "$1.$3");
    }
}
