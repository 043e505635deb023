package io.unibench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whole-output comparisons against files under {@code src/test/resources/golden/}: output formats (file lines, JSON
 * keys, CSV columns) must stay byte-identical across refactorings. On a mismatch the actual text is written to
 * {@code target/golden-actual/NAME} for a diff; a golden file changes only with a deliberate format change.
 */
public final class Golden {
    private static final Path DIR = Path.of("src/test/resources/golden");

    private Golden() {}

    public static void assertMatches(String name, String actual) {
        Path file = DIR.resolve(name);
        String expected;
        try {
            expected = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : null;
            if (!actual.equals(expected)) {
                Path out = Path.of("target/golden-actual").resolve(name);
                Files.createDirectories(out.getParent());
                Files.writeString(out, actual, StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(expected).as("golden file %s (actual text in target/golden-actual/%s)", file, name).isNotNull();
        assertThat(actual).as("output against %s (actual text in target/golden-actual/%s)", file, name)
                .isEqualTo(expected);
    }
}
