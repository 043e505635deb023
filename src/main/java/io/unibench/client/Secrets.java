package io.unibench.client;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps API keys out of logs, error messages and reports: values are shown as {@code sk-***abc}, enough to tell
 * two keys apart without revealing either.
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

    /** {@code text} with bearer tokens and {@code sk-} keys replaced by their masked forms. */
    public static String redact(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String out = BEARER.matcher(text)
                .replaceAll(m -> Matcher.quoteReplacement(m.group(1) + mask(m.group(2))));
        return SK_KEY.matcher(out).replaceAll(m -> Matcher.quoteReplacement(mask(m.group())));
    }

    /** Whether a header's value must never be shown in clear. */
    public static boolean isSecretHeader(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.equals("authorization") || n.equals("proxy-authorization") || n.equals("x-api-key")
                || n.equals("api-key") || n.contains("key") || n.contains("token") || n.contains("secret")
                || n.contains("cookie"); // a session cookie is a credential too
    }

}
