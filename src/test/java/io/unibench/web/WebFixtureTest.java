package io.unibench.web;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * What a test class of the service extends: one {@link WebFixture} (two stored runs, the simulator, the service
 * without a token) per class, in a temporary folder {@code dir} the class may use too. The methods' names are their
 * own so that a subclass's {@code @BeforeAll}/{@code @AfterAll} never hides them (JUnit skips hidden ones).
 */
abstract class WebFixtureTest {
    @TempDir
    static Path dir;

    static WebFixture f;

    @BeforeAll
    static void startWebFixture() throws Exception {
        f = new WebFixture(dir, null);
    }

    @AfterAll
    static void closeWebFixture() throws Exception {
        if (f != null) f.close();
        f = null;
    }
}
