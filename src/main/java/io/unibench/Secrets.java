package io.unibench;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps credentials out of logs, error messages, files and the run history: API keys, the values of headers that
 * can carry a credential ({@link #isSecretName}), the user info of a URL and query parameters with such names.
 * Values are shown as {@code sk-***abc}, enough to tell two keys apart without revealing either; URL user info
 * as {@code ***}. One rule for every place that shows a header, a URL or a message.
 */
public final class Secrets {

    private static final String STARS = "***";
    /** Below this length even the last three characters would reveal too much of the value. */
    private static final int MIN_LENGTH_TO_SHOW_SUFFIX = 6;
    private static final int SUFFIX = 3;
    private static final int MAX_PREFIX = 3;

    /** {@code Bearer <token>} and {@code sk-...} style keys as they appear in free text. */
    private static final Pattern BEARER = Pattern.compile("(?i)(bearer\\s+)([A-Za-z0-9._~+/=-]{4,})");
    private static final Pattern SK_KEY = Pattern.compile("\\bsk-[A-Za-z0-9_-]{4,}");
    /** {@code scheme://USERINFO@}: everything between {@code ://} and an {@code @} before the host's end. */
    private static final Pattern URL_USER_INFO = Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)[^/?#@\\s\"'<>]+@");
    /** {@code ?name=value} / {@code &name=value} in a URL; the name is checked by {@link #isSecretName}. */
    private static final Pattern QUERY_PARAM = Pattern.compile("([?&;])([^=&;#\\s\"'<>]+)=([^&;#\\s\"'<>]*)");
    /** Parts of a header or parameter name that mark it as a credential. */
    private static final String[] SECRET_NAME_PARTS =
            {"key", "token", "secret", "auth", "session", "signature", "cookie", "password", "passwd", "credential"};

    private Secrets() {}

    /**
     * The masked form of a secret: a recognisable prefix up to the first '-' (at most 3 characters, e.g.
     * {@code sk-}), {@code ***}, and the last 3 characters. Values shorter than 6 characters become {@code ***}.
     */
    public static String mask(String secret) {
        if (secret == null || secret.length() < MIN_LENGTH_TO_SHOW_SUFFIX) {
            return STARS;
        }
        int dash = secret.indexOf('-');
        String prefix = dash >= 0 && dash < MAX_PREFIX ? secret.substring(0, dash + 1) : "";
        String suffix = secret.substring(secret.length() - SUFFIX);
        if (prefix.length() + SUFFIX >= secret.length()) {
            // prefix and suffix together would show (nearly) the whole value
            return prefix + STARS;
        }
        return prefix + STARS + suffix;
    }

    /**
     * {@code text} with bearer tokens, {@code sk-} keys, URL user info and the values of credential-named query
     * parameters replaced by their masked forms.
     */
    public static String redact(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String out = BEARER.matcher(text)
                .replaceAll(m -> Matcher.quoteReplacement(m.group(1) + mask(m.group(2))));
        out = SK_KEY.matcher(out).replaceAll(m -> Matcher.quoteReplacement(mask(m.group())));
        out = maskUserInfo(out);
        return QUERY_PARAM.matcher(out).replaceAll(m -> Matcher.quoteReplacement(isSecretName(m.group(2))
                ? m.group(1) + m.group(2) + "=" + maskOnce(m.group(3)) : m.group()));
    }

    /**
     * {@code text} with the user info of its URLs masked ({@code http://***@host/v1}) and nothing else changed: a
     * target's URL as a run keeps it once the user info went into an Authorization header (a query parameter the
     * server reads must stay as it is; it is masked where the URL is shown, by {@link #redact}).
     */
    public static String maskUserInfo(String text) {
        if (text == null || text.isEmpty()) return text;
        return URL_USER_INFO.matcher(text).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + STARS + "@"));
    }

    /** Whether a header's value must never be shown in clear. */
    public static boolean isSecretHeader(String name) {
        return isSecretName(name);
    }

    /**
     * Whether a header or query parameter of this name can carry a credential: Authorization, Proxy-Authorization,
     * Cookie, and any name containing key, token, secret, auth, session, signature, password or credential.
     */
    public static boolean isSecretName(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        for (String part : SECRET_NAME_PARTS) {
            if (n.contains(part)) return true;
        }
        return false;
    }

    /**
     * Whether a header must never be shown in clear: its name marks a credential, or its value looks like one
     * whatever the name ({@code X-Custom: sk-proj-…}, a bearer token, URL user info: what {@link #redact} masks).
     */
    public static boolean isSecretHeader(String name, String value) {
        return isSecretName(name) || (value != null && !redact(value).equals(value));
    }

    /** A header value as it may be shown: masked when the name or the value marks a credential. */
    public static String headerValue(String name, String value) {
        return isSecretHeader(name, value) ? mask(value) : value;
    }

    /** A value already masked by an earlier pass (e.g. {@code sk-***abc}) stays as it is. */
    private static String maskOnce(String value) {
        return value.contains(STARS) ? value : mask(value);
    }

}
