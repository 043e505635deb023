package io.unibench.workload;

import io.unibench.BadInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** Every file dataset refuses an unusable file with a message naming the path. */
class FileErrorsTest {
    @TempDir Path dir;

    private static void assertBadFile(String dataset, String path, String problem) {
        assertThatThrownBy(() -> Datasets.byName(dataset).load(Fixtures.file(path, null, true), 5))
                .isInstanceOf(BadInputException.class)
                .hasMessage(path + ": " + problem);
    }

    @ParameterizedTest @ValueSource(strings = {"custom", "line_by_line", "openqa"})
    void missingFile(String dataset) {
        assertBadFile(dataset, dir.resolve("nope.txt").toString(), "no such file");
    }

    @ParameterizedTest @ValueSource(strings = {"custom", "line_by_line", "openqa"})
    void directoryInsteadOfFile(String dataset) {
        assertBadFile(dataset, dir.toString(), "is a directory, not a file");
    }

    @ParameterizedTest @ValueSource(strings = {"custom", "line_by_line", "openqa"})
    void emptyFile(String dataset) {
        assertBadFile(dataset, Fixtures.path("empty.txt"), "empty file");
    }

    @ParameterizedTest @ValueSource(strings = {"custom", "line_by_line", "openqa"})
    void onlyBlankLines(String dataset) {
        assertBadFile(dataset, Fixtures.path("blank.txt"), "has only blank lines");
    }

    @Test void notUtf8() throws IOException {
        Path file = dir.resolve("latin1.txt");
        Files.write(file, new byte[] {'o', 'k', '\n', (byte) 0xE9, 't', (byte) 0xE9, '\n'});
        assertThatThrownBy(() -> Datasets.byName("custom").load(Fixtures.file(file.toString(), null, true), 5))
                .isInstanceOf(BadInputException.class)
                .hasMessage(file + ":2: not UTF-8 text (byte 0xE9 at column 1; save the file as UTF-8)");
    }

    @Test void unreadableFile() throws IOException {
        // root reads any file, so the check cannot be exercised when the tests run as root.
        assumeFalse("root".equals(System.getProperty("user.name")), "running as root: every file is readable");
        Path file = dir.resolve("secret.txt");
        Files.writeString(file, "hello\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("-w-------"));
        assertBadFile("custom", file.toString(), "not readable (check permissions)");
    }
}
