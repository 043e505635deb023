package io.unibench.store;

import io.unibench.BadInputException;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Filters of {@code runs list}; null means "any". Text filters match case-insensitive substrings; every tag
 * given must be on the run.
 *
 * @param since epoch ms, inclusive
 * @param until epoch ms, exclusive
 * @param limit newest first, at most this many
 * @param after  a page's cursor: only runs listed after this one (older), or null from the newest
 */
public record RunFilter(String model, String url, String name, List<String> tags, Long since, Long until,
                        String status, int limit, Cursor after) {
    /** The last run of a page, in the list's order (start time, then id, both descending). */
    public record Cursor(long startedAt, String runId) {}

    public RunFilter {
        tags = tags == null ? List.of() : List.copyOf(tags);
    }

    public RunFilter(String model, String url, String name, List<String> tags, Long since, Long until,
                     String status, int limit) {
        this(model, url, name, tags, since, until, status, limit, null);
    }

    public static RunFilter all(int limit) {
        return new RunFilter(null, null, null, List.of(), null, null, null, limit);
    }

    private static final Pattern AGE = Pattern.compile("(\\d+)([dhm])");

    /** Epoch ms of YYYY-MM-DD (UTC midnight), an ISO instant, or an age (7d, 12h, 30m) before now. */
    public static Long when(String flag, String value, long nowMillis) {
        if (value == null) return null;
        Matcher m = AGE.matcher(value.trim());
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            Duration d = switch (m.group(2)) {
                case "d" -> Duration.ofDays(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofMinutes(n);
            };
            return nowMillis - d.toMillis();
        }
        try {
            return LocalDate.parse(value.trim()).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        } catch (DateTimeParseException notADate) {
            try {
                return Instant.parse(value.trim()).toEpochMilli();
            } catch (DateTimeParseException e) {
                throw new BadInputException(flag + " '" + value + "': expected YYYY-MM-DD, an ISO instant "
                        + "(2025-01-31T10:00:00Z) or an age (7d, 12h, 30m)");
            }
        }
    }
}
