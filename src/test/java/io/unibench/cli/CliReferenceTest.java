package io.unibench.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The generated references in docs/reference/ are what the code generates today. */
class CliReferenceTest {
    @Test
    void cliReferenceIsCurrent() throws Exception {
        assertCurrent(DocsReference.CLI, DocsReference.cliReference());
    }

    @Test
    void scenarioSchemaReferenceIsCurrent() throws Exception {
        assertCurrent(DocsReference.SCHEMA, DocsReference.schemaReference());
    }

    @Test
    void theReferenceHasEveryCommand() {
        String cli = DocsReference.cliReference();
        for (String command : new String[] {"## unibench perf", "## unibench run", "## unibench runs compare",
                "## unibench schedule add", "## unibench sim", "## unibench check", "## unibench serve"}) {
            assertThat(cli).contains(command + "\n");
        }
        assertThat(cli).doesNotContain("## unibench help");
    }

    private static void assertCurrent(Path file, String generated) throws Exception {
        String committed = Files.exists(file) ? Files.readString(file) : "";
        assertThat(committed).as("%s is stale: regenerate it with %s and commit it", file, DocsReference.REGENERATE)
                .isEqualTo(generated);
    }
}
