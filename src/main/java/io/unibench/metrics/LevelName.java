package io.unibench.metrics;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The level of a point as its label names it, and as people read it. A point's label ends with its level:
 * {@code parallel_8} (closed loop), {@code rate_10} ({@code request_rate}: open loop), {@code ramp_linear_2_40}
 * (a rate ramp), {@code trace} (a trace replay) or {@code sla_parallel_4_run_0} (an SLA auto-tune probe, in the
 * folder {@code sla_tuning/}); {@code perf}'s labels add {@code _number_N}. Only a {@code parallel_} level is a
 * concurrency level: an open loop's concurrency is −1 (or its {@code max_concurrency} bound), which names nothing.
 */
public final class LevelName {
    private static final Pattern PARALLEL = Pattern.compile("parallel_(\\d+)(?:_number_\\d+)?");
    private static final Pattern RATE = Pattern.compile("rate_([0-9.eE+-]+|inf|infinity)(?:_number_\\d+)?");
    private static final Pattern RAMP = Pattern.compile("ramp_([a-z]+)_([0-9.eE+-]+)_([0-9.eE+-]+)");
    private static final Pattern SLA = Pattern.compile("sla_(parallel|rate)_(\\d+)_run_(\\d+)");

    private LevelName() {}

    /** The level part of a point label: {@code openai/chat/rate_10} → {@code rate_10} (scenario names may hold '/'). */
    public static String of(String label) {
        return label.substring(label.lastIndexOf('/') + 1);
    }

    /** Whether {@code level} is one that a label names as such (so {@code chat/trace} ends with a level). */
    public static boolean isOpenLoopOrProbe(String level) {
        return RATE.matcher(level).matches() || RAMP.matcher(level).matches() || level.equals("trace")
                || SLA.matcher(level).matches();
    }

    /** The concurrency of a {@code parallel_N} level, else null (a rate level has none, whatever bounds it). */
    public static Integer concurrency(String level) {
        Matcher m = PARALLEL.matcher(level);
        return m.matches() ? Integer.valueOf(m.group(1)) : null;
    }

    /**
     * As a message or a legend says it: {@code concurrency 8}, {@code rate 10 req/s}, {@code ramp linear 2 → 40
     * req/s}, {@code trace replay}, {@code SLA probe concurrency 4, run 0}; another level as it is named.
     */
    public static String display(String level) {
        Matcher m = PARALLEL.matcher(level);
        if (m.matches()) return "concurrency " + m.group(1);
        if ((m = RATE.matcher(level)).matches()) return "rate " + m.group(1) + " req/s";
        if ((m = RAMP.matcher(level)).matches()) return "ramp " + m.group(1) + " " + m.group(2) + " → " + m.group(3) + " req/s";
        if (level.equals("trace")) return "trace replay";
        if ((m = SLA.matcher(level)).matches()) {
            return "SLA probe " + (m.group(1).equals("parallel") ? "concurrency " + m.group(2) : "rate " + m.group(2)
                    + " req/s") + ", run " + m.group(3);
        }
        return level;
    }
}
