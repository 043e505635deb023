package io.unibench.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.util.Map;

class StoreLocationTest {

    @Test
    void displayAndToStringMaskUserInfoAndCredentialParameters() {
        StoreLocation pg = StoreLocation.resolve("jdbc:postgresql://alice:PW1secret@db.example:5432/runs"
                + "?user=alice&password=PW2secret&sslpassword=PW3secret&sslmode=require", Map.of(), null, "/home/x");
        for (String shown : new String[] {pg.display(), pg.toString()}) {
            assertThat(shown).doesNotContain("PW1secret", "PW2secret", "PW3secret")
                    .isEqualTo("jdbc:postgresql://***@db.example:5432/runs"
                            + "?user=alice&password=***&sslpassword=***&sslmode=require");
        }
        // the driver still gets the URL as given
        assertThat(pg.jdbcUrl()).contains("PW1secret", "PW2secret", "PW3secret");
    }

    @Test
    void maskCoversDriverMessagesAndLeavesPlainTextAlone() {
        assertThat(StoreLocation.mask("No suitable driver found for jdbc:postgresql://bob:hunter2xyz@h:x/db"))
                .isEqualTo("No suitable driver found for jdbc:postgresql://***@h:x/db");
        assertThat(StoreLocation.mask("FATAL: password=hunter2xyz")).isEqualTo("FATAL: password=***");
        assertThat(StoreLocation.mask("jdbc:sqlite:/tmp/unibench.db")).isEqualTo("jdbc:sqlite:/tmp/unibench.db");
    }
}
