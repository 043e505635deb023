package io.unibench.schedule;

import java.util.List;

/**
 * One alert rule: a metric of every matching target compared each round with a threshold (or with its own recent
 * rounds: {@link Regression}), and when the comparison holds {@code forRounds} rounds in a row the rule fires.
 *
 * @param scope              which targets it applies to (null fields: every)
 * @param threshold          the threshold form; null for the regression form
 * @param regression         the regression form; null for the threshold form
 * @param resolveAfterRounds rounds in a row back within the threshold before a firing alert resolves
 * @param remindEveryRounds  while firing, notify again every N rounds; 0 = never
 * @param noDataRounds       notify "no data" after this many rounds in a row without a value; 0 = never
 * @param minSuccesses       fewer successful requests than this in a point is no data, not a value
 * @param channels           the channel names of the document's {@code notify:} list
 */
public record AlertRule(String name, Metric metric, Scope scope, Op op, Double threshold, Regression regression,
                        int forRounds, int resolveAfterRounds, int remindEveryRounds, int noDataRounds,
                        int minSuccesses, List<String> channels) {
    public static final int DEFAULT_FOR_ROUNDS = 2;

    public AlertRule {
        channels = List.copyOf(channels);
        if ((threshold == null) == (regression == null)) {
            throw new IllegalArgumentException("a rule has a threshold or a regression, exactly one");
        }
    }

    /**
     * Which targets: a provider, a scenario and/or a level as its label names it ({@code parallel_8}, {@code rate_10},
     * {@code trace}; a document's {@code level: 8} is {@code parallel_8}); null = any.
     */
    public record Scope(String provider, String scenario, String level) {
        public static final Scope EVERY = new Scope(null, null, null);

        public boolean matches(Target t) {
            return (provider == null || provider.equals(t.provider()))
                    && (scenario == null || scenario.equals(t.scenario()))
                    && (level == null || level.equals(t.level()));
        }
    }

    /**
     * Worse than the median of the last {@code rounds} values by more than {@code percent} % and outside their
     * range (their run-to-run spread), in the direction of {@code op}: {@code >} means higher is worse.
     */
    public record Regression(int rounds, double percent) {}

    public enum Op {
        GT(">"), GE(">="), LT("<"), LE("<=");

        private final String symbol;

        Op(String symbol) {
            this.symbol = symbol;
        }

        public String symbol() {
            return symbol;
        }

        public boolean test(double value, double threshold) {
            return switch (this) {
                case GT -> value > threshold;
                case GE -> value >= threshold;
                case LT -> value < threshold;
                case LE -> value <= threshold;
            };
        }

        public boolean higherIsWorse() {
            return this == GT || this == GE;
        }

        public static Op of(String symbol) {
            for (Op o : values()) if (o.symbol.equals(symbol)) return o;
            return null;
        }
    }

    /** What a threshold rule makes of one round's value and its 95 % confidence interval. */
    public enum Decision {
        /** The condition holds: the value, and its whole interval when it has one, is beyond the threshold. */
        BREACH,
        /** The condition does not hold: the value, and its whole interval when it has one, is within bounds. */
        CLEAR,
        /** The interval straddles the threshold: the round cannot tell; neither a breach nor a recovery. */
        INCONCLUSIVE
    }

    /**
     * A threshold rule's decision on one round (issue 30 §2: alert rules decide on intervals). With the value's 95 %
     * interval ({@link Metric#interval}) the rule breaches only when the whole interval is beyond the threshold
     * ({@code >}: its low bound above it), is clear only when the whole interval is within bounds, and is
     * {@link Decision#INCONCLUSIVE} when the interval straddles the threshold. Without an interval (a rate or a
     * throughput, or a point too small for one: a p99 needs 368 requests) the value alone decides, as before.
     */
    public Decision decide(double value, io.unibench.metrics.Interval interval) {
        if (threshold == null) throw new IllegalStateException("a regression rule has no threshold: " + name);
        if (interval == null) return op.test(value, threshold) ? Decision.BREACH : Decision.CLEAR;
        // a breach when even the interval's best bound breaches; clear when even its worst bound does not
        double best = op.higherIsWorse() ? interval.low() : interval.high();
        double worst = op.higherIsWorse() ? interval.high() : interval.low();
        if (op.test(best, threshold)) return Decision.BREACH;
        if (!op.test(worst, threshold)) return Decision.CLEAR;
        return Decision.INCONCLUSIVE;
    }

    /** {@code ttft_p95_ms > 2000} or {@code ttft_p95_ms 20% worse than the median of 5 rounds}. */
    public String condition() {
        if (threshold != null) return metric.label() + " " + op.symbol() + " " + Numbers.format(threshold);
        return metric.label() + " " + Numbers.format(regression.percent()) + "% " + (op.higherIsWorse() ? "above" : "below")
                + " the median of its last " + regression.rounds() + " rounds";
    }
}
