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
        assertThat(Secrets.isSecretHeader("Cookie")).isTrue();
        assertThat(Secrets.isSecretHeader("X-Session-Id")).isTrue();
        assertThat(Secrets.isSecretHeader("X-Amz-Signature")).isTrue();
        assertThat(Secrets.isSecretHeader("X-Goog-Authuser")).isTrue();
        assertThat(Secrets.isSecretHeader("User-Agent")).isFalse();
    }

    @Test
    void masksUrlUserInfoAndCredentialQueryParameters() {
        assertThat(Secrets.redact("http://alice:pw-secret@host:8000/v1/chat/completions"))
                .isEqualTo("http://***@host:8000/v1/chat/completions");
        assertThat(Secrets.redact("https://TOKEN123456@host/v1?api_key=abcdef123&model=m&sig=x"))
                .isEqualTo("https://***@host/v1?api_key=***123&model=m&sig=x");
        assertThat(Secrets.redact("connect to http://h/v1?X-Amz-Signature=0123456789ab failed"))
                .isEqualTo("connect to http://h/v1?X-Amz-Signature=***9ab failed");
        assertThat(Secrets.redact("http://h/v1?key=sk-abcdef123")).isEqualTo("http://h/v1?key=sk-***123");
        assertThat(Secrets.redact("mail bob@example.com, http://h/v1?page=2"))
                .isEqualTo("mail bob@example.com, http://h/v1?page=2");
    }

    @Test
    void headerValuesAreMaskedByName() {
        assertThat(Secrets.headerValue("Cookie", "session=abcdef123")).isEqualTo("***123");
        assertThat(Secrets.headerValue("Accept", "text/event-stream")).isEqualTo("text/event-stream");
    }
}
