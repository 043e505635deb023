package io.unibench.schedule;

import java.util.List;
import java.util.Locale;

/**
 * One notification channel of a document's {@code notify:} list. Only the names of the environment variables that
 * hold its webhook URL and signing secret are kept (and stored in the outbox); the values are read when a message
 * is sent and never written anywhere.
 *
 * @param secretEnv       the signing secret's variable, or null (unsigned)
 * @param format          Feishu/Lark: {@code card} (interactive card) or {@code text}; null elsewhere
 * @param signatureHeader generic webhook: the header of the HMAC signature; null elsewhere
 * @param language        the notices' language: {@code en} (default) or {@code zh}
 */
public record Channel(String name, Type type, String urlEnv, String secretEnv, String format, String signatureHeader,
                      String language) {
    public static final String DEFAULT_SIGNATURE_HEADER = "X-Unibench-Signature";
    public static final List<String> LANGUAGES = List.of("en", "zh");

    public Channel {
        language = language == null ? "en" : language;
    }

    /** In English. */
    public Channel(String name, Type type, String urlEnv, String secretEnv, String format, String signatureHeader) {
        this(name, type, urlEnv, secretEnv, format, signatureHeader, null);
    }

    public enum Type {
        FEISHU, LARK, DINGTALK, WECOM, SLACK, WEBHOOK;

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Type of(String id) {
            return valueOf(id.toUpperCase(Locale.ROOT));
        }
    }
}
