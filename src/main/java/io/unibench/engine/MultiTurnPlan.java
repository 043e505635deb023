package io.unibench.engine;

/**
 * One point of a multi-turn sweep. In {@code load}, {@code number} counts conversations, {@code parallel} concurrent
 * conversations, {@code warmup} warmup conversations; {@code duration} is a soft exit at conversation level (no
 * conversation starts after it; running ones finish all their turns).
 *
 * @param load     the load point
 * @param rateMode what {@code load.rate()} means when it is set
 * @param maxTurns {@code --max-turns}: no conversation sends more turns; {@code null} = all of its turns
 * @param toolLatencyScale {@code --tool-latency-scale}: factor on every turn's tool-call pause (0 = none, 1 = as
 *                         recorded)
 */
public record MultiTurnPlan(LoadPlan load, RateMode rateMode, Integer maxTurns, double toolLatencyScale) {
    public MultiTurnPlan {
        if (load == null || rateMode == null) throw new IllegalArgumentException("load and rateMode are required");
        if (maxTurns != null && maxTurns < 1) throw new IllegalArgumentException("maxTurns must be >= 1: " + maxTurns);
        if (!(toolLatencyScale >= 0) || Double.isInfinite(toolLatencyScale)) {
            throw new IllegalArgumentException("toolLatencyScale must be a finite number >= 0: " + toolLatencyScale);
        }
    }

    /** Tool pauses as recorded. */
    public MultiTurnPlan(LoadPlan load, RateMode rateMode, Integer maxTurns) {
        this(load, rateMode, maxTurns, 1.0);
    }

    /** What {@code --rate} means in multi-turn mode. */
    public enum RateMode {
        /**
         * evalscope's meaning (the default): before every turn each worker pauses for an exponentially distributed
         * think time with mean 1/rate seconds. Relative pacing per worker, not a global rate.
         */
        THINK,
        /**
         * New conversations arrive as a Poisson process of {@code rate} conversations/s on an absolute schedule
         * (open loop over conversations), at most {@code parallel} running; a conversation that waits for a free slot
         * keeps its scheduled time, so its first turn's queueing delay is measured. Turns follow one another
         * without pauses.
         */
        ARRIVAL
    }

    boolean thinkTime() {
        return rateMode == RateMode.THINK && load.rate() > 0;
    }

    boolean arrivals() {
        return rateMode == RateMode.ARRIVAL && load.rate() > 0;
    }
}
