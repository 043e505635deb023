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
}
