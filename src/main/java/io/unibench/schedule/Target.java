package io.unibench.schedule;

import io.unibench.metrics.LevelName;

/**
 * What one alert state watches: one provider's model in one scenario at one level, i.e. one point of a round's
 * stored run. The level is named as the point's label names it ({@link LevelName}: {@code parallel_8},
 * {@code rate_10}, {@code trace}, an SLA probe's {@code sla_parallel_4_run_0}). {@link #key()} is its stored form.
 */
public record Target(String provider, String model, String scenario, String level) {
    private static final String SEP = " | ";

    public Target {
        // a concurrency level as stored before levels had names (a key's, an outbox notice's "level": 8)
        if (level.matches("\\d+")) level = "parallel_" + level;
    }

    /**
     * {@code provider | model | scenario | LEVEL}: stable, readable, and split back by {@link #parse}. A concurrency
     * level is stored as its number ({@code … | 8}), as before levels had names, so existing states and incidents
     * keep their keys; another level by its name ({@code … | rate_10}).
     */
    public String key() {
        Integer c = LevelName.concurrency(level);
        return provider + SEP + model + SEP + scenario + SEP + (c != null ? c.toString() : level);
    }

    /**
     * The target of a stored key. A key stored before levels had names and whose scenario ends with a level's name
     * ({@code chat/rate_10 | -1}: the open loop's concurrency) is that level's target ({@code chat | rate_10}).
     */
    public static Target parse(String key) {
        String[] p = key.split(" \\| ", -1);
        if (p.length != 4) throw new IllegalArgumentException("not a target key: " + key);
        if (!p[3].matches("-?\\d+")) return new Target(p[0], p[1], p[2], p[3]);
        String last = LevelName.of(p[2]);
        if (p[2].contains("/") && LevelName.isOpenLoopOrProbe(last)) {
            String scenario = p[2].substring(0, p[2].length() - last.length() - 1).replaceFirst("/sla_tuning$", "");
            return new Target(p[0], p[1], scenario, last);
        }
        return new Target(p[0], p[1], p[2], p[3]);
    }

    /** A stored key as {@link #display} says it (the key itself if it is not one). */
    public static String display(String key) {
        try {
            return parse(key).display();
        } catch (IllegalArgumentException notAKey) {
            return key;
        }
    }

    /** As a message says it: {@code deepseek (deepseek-chat) · chat-short · concurrency 8} or {@code · rate 10 req/s}. */
    public String display() {
        return provider + " (" + model + ") · " + scenario + " · " + LevelName.display(level);
    }
}
