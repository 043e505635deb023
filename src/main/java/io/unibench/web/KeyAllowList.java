package io.unibench.web;

import io.unibench.BadInputException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The environment variables a run of the service may send as its provider key ({@code api_key_env}): names or
 * {@code *} patterns ({@code serve --allow-key-env}, {@code UNIBENCH_ALLOWED_KEY_ENVS}; default {@value #DEFAULT}).
 * Whatever the list says, the service's own settings are never sent: no {@code UNIBENCH_*} variable, nor the
 * variable holding its token. A document naming another variable is refused (400 with the JSON pointer), and the
 * runs' environment holds only the allowed variables, so a run created any other way (a schedule's round, a run
 * queued before a restart) cannot read one either.
 *
 * @param patterns the names and {@code *} patterns, as given
 * @param excluded further names never sent (the token's variable)
 */
public record KeyAllowList(List<String> patterns, Set<String> excluded) {
    public static final String DEFAULT = "*_API_KEY";
    public static final String ENV = "UNIBENCH_ALLOWED_KEY_ENVS";
    /**
     * The variables a schedule's notify channel may read as its webhook URL ({@code url_env}) or signing secret
     * ({@code secret_env}) in the service: {@code serve --allow-channel-env}, {@value #CHANNEL_ENV}, default
     * {@value #CHANNEL_DEFAULT} (never a provider key's name, never the service's own settings).
     */
    public static final String CHANNEL_DEFAULT = "*HOOK_URL,*HOOK_SECRET,*SIGNING_SECRET";
    public static final String CHANNEL_ENV = "UNIBENCH_ALLOWED_CHANNEL_ENVS";
    private static final Pattern NAME = Pattern.compile("[A-Za-z_*][A-Za-z0-9_*]*");

    public KeyAllowList {
        patterns = List.copyOf(patterns);
        excluded = Set.copyOf(excluded);
    }

    /** The default channel list ({@value #CHANNEL_DEFAULT}). */
    public static KeyAllowList channelDefaults() {
        return parse(CHANNEL_DEFAULT, "default", Set.of());
    }

    /** The default list: provider-key-looking names. */
    public static KeyAllowList defaults() {
        return parse(DEFAULT, "default", Set.of());
    }

    /**
     * {@code NAME,PATTERN_*,…} from {@code source} (the flag or variable, for messages); a name of the service's own
     * settings is refused in one line.
     */
    public static KeyAllowList parse(String spec, String source, Set<String> excluded) {
        List<String> out = new ArrayList<>();
        for (String part : spec.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) continue;
            if (!NAME.matcher(p).matches()) {
                throw new BadInputException(source + " '" + p + "': a variable name or a pattern of letters, digits, "
                        + "'_' and '*'");
            }
            if (p.toUpperCase(Locale.ROOT).startsWith("UNIBENCH_") || excluded.contains(p)) {
                throw new BadInputException(source + " '" + p + "': the service's own settings are never on this list");
            }
            out.add(p);
        }
        if (out.isEmpty()) throw new BadInputException(source + " '" + spec + "': name at least one variable or pattern");
        return new KeyAllowList(out, excluded);
    }

    public boolean allows(String name) {
        if (name == null || name.toUpperCase(Locale.ROOT).startsWith("UNIBENCH_") || excluded.contains(name)) return false;
        for (String p : patterns) {
            if (Pattern.compile(Pattern.quote(p).replace("*", "\\E.*\\Q")).matcher(name).matches()) return true;
        }
        return false;
    }

    /** The variables of {@code env} a run may send (what the runs' environment holds). */
    public Map<String, String> filter(Map<String, String> env) {
        Map<String, String> out = new LinkedHashMap<>();
        env.forEach((k, v) -> {
            if (allows(k)) out.put(k, v);
        });
        return out;
    }

    @Override
    public String toString() {
        return String.join(",", patterns);
    }
}
