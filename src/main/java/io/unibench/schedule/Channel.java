package io.unibench.schedule;

import java.util.Locale;

/**
 * One notification channel of a document's {@code notify:} list. Only the names of the environment variables that
 * hold its webhook URL and signing secret are kept (and stored in the outbox); the values are read when a message
 * is sent and never written anywhere.
 *
 * @param secretEnv       the signing secret's variable, or null (unsigned)
 * @param format          Feishu/Lark: {@code card} (interactive card) or {@code text}; null elsewhere
 * @param signatureHeader generic webhook: the header of the HMAC signature; null elsewhere
 */
public record Channel(String name, Type type, String urlEnv, String secretEnv, String format, String signatureHeader) {
    public static final String DEFAULT_SIGNATURE_HEADER = "X-Unibench-Signature";

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
