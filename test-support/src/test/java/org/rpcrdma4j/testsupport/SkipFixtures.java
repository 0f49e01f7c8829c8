package org.rpcrdma4j.testsupport;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/** Test classes that skip, run by {@link SkipReportTest} through its own launcher (surefire does not pick them up). */
final class SkipFixtures {
    private SkipFixtures() {
    }

    static class SomeSkipped {
        @Test
        void runs() {
            Assertions.assertEquals(2, 1 + 1);
        }

        @Test
        void abortsForA() {
            Assumptions.abort("reason A");
        }

        @Test
        void abortsForAToo() {
            Assumptions.abort("reason A");
        }

        @Test
        @Disabled("reason B")
        void disabled() {
        }
    }

    @Disabled("the whole class is off")
    static class AllDisabled {
        @Test
        void never() {
        }
    }

    static class NoneSkipped {
        @Test
        void runs() {
            Assertions.assertTrue(true);
        }
    }
}
