package io.unibench.check;

import io.unibench.engine.ProbeRunner;
import io.unibench.metrics.PercentileRow;

/**
 * Finds a server's concurrency limit when {@code --concurrency-limit} does not give it: closed-loop points of 1, 2,
 * 4, … concurrent short streams (each the engine's {@code LoadPlan} of as many workers as requests) until a level is
 * refused (429/503) or its median time to first token (the {@code metrics} aggregate's TTFT p50, the exact
 * percentile of every report) passes three times the lone request's plus 50 ms (requests queue instead of running).
 * The limit is the last level below that; {@link #CAP} when none was reached (an estimate: the server may take
 * more).
 */
final class Ramp {
    static final int CAP = 256;
    private static final int MAX_TOKENS = 16;

    private Ramp() {}

    static int find(Target target) throws InterruptedException {
        double base = Double.NaN;
        int last = 1;
        for (int level = 1; level <= CAP; level *= 2) {
            ProbeRunner.Burst burst = target.burst(Ask.of(target.model(), Prompts.SHORT, MAX_TOKENS), level);
            if (refused(burst)) return last;
            double ttft = medianTtftSeconds(burst);
            if (level == 1) base = ttft;
            else if (ttft > 3 * base + 0.05) return last;
            last = level;
        }
        return CAP;
    }

    static boolean refused(ProbeRunner.Burst burst) {
        return burst.records().stream().anyMatch(Outcomes::refusal);
    }

    /** The burst's TTFT p50 in seconds; NaN when no request had a first token. */
    static double medianTtftSeconds(ProbeRunner.Burst burst) {
        Double ms = burst.summary().percentile("50%", PercentileRow.TTFT);
        return ms == null ? Double.NaN : ms / 1000;
    }
}
