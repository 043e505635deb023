package io.unibench.store;

import java.util.List;

/**
 * Filters of {@code runs list}; null means "any". Text filters match case-insensitive substrings; every tag
 * given must be on the run.
 *
 * @param since epoch ms, inclusive
 * @param until epoch ms, exclusive
 * @param limit newest first, at most this many
 */
public record RunFilter(String model, String url, String name, List<String> tags, Long since, Long until,
                        String status, int limit) {
    public RunFilter {
        tags = tags == null ? List.of() : List.copyOf(tags);
    }

    public static RunFilter all(int limit) {
        return new RunFilter(null, null, null, List.of(), null, null, null, limit);
    }
}
