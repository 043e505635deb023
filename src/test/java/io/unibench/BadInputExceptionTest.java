package io.unibench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BadInputExceptionTest {
    @Test
    void namesFileLineAndField() {
        assertThat(BadInputException.at("data.jsonl", 12, "question", "missing").getMessage())
                .isEqualTo("data.jsonl:12: field 'question': missing");
        assertThat(BadInputException.at("data.jsonl", 0, null, "not found").getMessage())
                .isEqualTo("data.jsonl: not found");
    }

    @Test
    void ioFailuresAreOneLineWithTheFlagThePathAndTheReason(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("afile"), "");
        java.io.IOException notADir = org.assertj.core.api.Assertions.catchThrowableOfType(java.io.IOException.class,
                () -> java.nio.file.Files.createDirectories(file.resolve("sub")));
        assertThat(BadInputException.io("--outputs-dir", "afile", notADir).getMessage())
                .startsWith("--outputs-dir 'afile': ").doesNotContain("Exception").doesNotContain("\n");
        assertThat(BadInputException.reason(new java.nio.file.NoSuchFileException("/x/y")))
                .isEqualTo("no such file or folder: /x/y");
        assertThat(BadInputException.reason(new java.nio.file.AccessDeniedException("/root/z")))
                .isEqualTo("permission denied: /root/z");
    }
}
