package io.unibench.schedule;

import io.unibench.BadInputException;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people write them on a command line or in a form: {@code 90s}, {@code 15m}, {@code 6h}, {@code 1d}, {@code 1h30m}. */
public final class Durations {
    private static final Pattern PART = Pattern.compile("(\\d+)([smhd])");

    private Durations() {}

    /** {@code text} as a positive duration, or bad input naming {@code field}. */
    public static Duration parse(String text, String field) {
        String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        Matcher m = PART.matcher(t);
        Duration d = Duration.ZERO;
        int end = 0;
        while (m.find() && m.start() == end) {
            long n = Long.parseLong(m.group(1));
            d = d.plus(switch (m.group(2)) {
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            });
            end = m.end();
        }
        if (t.isEmpty() || end != t.length()) {
            throw new BadInputException(field + " '" + text + "': not a duration (e.g. 30s, 15m, 6h, 1d, 1h30m)");
        }
        return d;
    }

    /** The shortest form {@link #parse} reads back: {@code 1h30m}, {@code 0s}. */
    public static String format(Duration d) {
        long s = d.toSeconds();
        if (s == 0) return "0s";
        StringBuilder b = new StringBuilder();
        long[] units = {86_400, 3600, 60, 1};
        String[] names = {"d", "h", "m", "s"};
        for (int i = 0; i < units.length; i++) {
            if (s >= units[i]) {
                b.append(s / units[i]).append(names[i]);
                s %= units[i];
            }
        }
        return b.toString();
    }
}
