package io.unibench.schedule;

/**
 * What one alert state watches: one provider's model in one scenario at one concurrency level, i.e. one sweep
 * point of a round's stored run. {@link #key()} is its stored form.
 */
public record Target(String provider, String model, String scenario, int level) {
    private static final String SEP = " | ";

    /** {@code provider | model | scenario | level}: stable, readable, and split back by {@link #parse}. */
    public String key() {
        return provider + SEP + model + SEP + scenario + SEP + level;
    }

    public static Target parse(String key) {
        String[] p = key.split(" \\| ", -1);
        if (p.length != 4) throw new IllegalArgumentException("not a target key: " + key);
        return new Target(p[0], p[1], p[2], Integer.parseInt(p[3]));
    }

    /** As a message says it: {@code deepseek (deepseek-chat) · chat-short · concurrency 8}. */
    public String display() {
        return provider + " (" + model + ") · " + scenario + " · concurrency " + level;
    }
}
