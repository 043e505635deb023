package io.unibench.client;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SecretsTest {

    @Test
    void masksKeepingPrefixAndLastThreeCharacters() {
        assertThat(Secrets.mask("sk-abcdef123")).isEqualTo("sk-***123");
        assertThat(Secrets.mask("abcdef")).isEqualTo("***def");
        assertThat(Secrets.mask("abcdefghijkl")).isEqualTo("***jkl");
        // a dash further in is not a prefix marker
        assertThat(Secrets.mask("abcd-efghij")).isEqualTo("***hij");
    }

    @Test
    void shortOrMissingValuesRevealNothing() {
        assertThat(Secrets.mask("abcde")).isEqualTo("***");
        assertThat(Secrets.mask("")).isEqualTo("***");
        assertThat(Secrets.mask(null)).isEqualTo("***");
        // prefix plus suffix would be the whole value
        assertThat(Secrets.mask("sk-abc")).isEqualTo("sk-***");
    }

    @Test
    void redactsBearerTokensAndKeysInFreeText() {
        String text = "401 for Authorization: Bearer abcdefghijklmnop with key sk-proj-XYZ12345678 rejected";
        String redacted = Secrets.redact(text);
        assertThat(redacted)
                .isEqualTo("401 for Authorization: Bearer ***nop with key sk-***678 rejected")
                .doesNotContain("abcdefghijklmnop", "XYZ12345678");
        assertThat(Secrets.redact("bearer sk-abcdef123")).isEqualTo("bearer sk-***123");
        assertThat(Secrets.redact("nothing secret here")).isEqualTo("nothing secret here");
        assertThat(Secrets.redact(null)).isNull();
    }

    @Test
    void recognisesSecretHeaders() {
        assertThat(Secrets.isSecretHeader("Authorization")).isTrue();
        assertThat(Secrets.isSecretHeader("proxy-authorization")).isTrue();
        assertThat(Secrets.isSecretHeader("X-Api-Key")).isTrue();
        assertThat(Secrets.isSecretHeader("Cookie")).isTrue();
        assertThat(Secrets.isSecretHeader("api-key")).isTrue();
        assertThat(Secrets.isSecretHeader("X-Auth-Token")).isTrue();
        assertThat(Secrets.isSecretHeader("X-Client-Secret")).isTrue();
        assertThat(Secrets.isSecretHeader("Content-Type")).isFalse();
        assertThat(Secrets.isSecretHeader("X-Request-Id")).isFalse();
    }
}
