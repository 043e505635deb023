package io.unibench.check;

import io.unibench.engine.ProbeSession;
import io.unibench.metrics.PercentileRow;

/**
 * Finds a server's concurrency limit when {@code --concurrency-limit} does not give it: closed-loop points of 1, 2,
 * 4, … concurrent short streams (each a {@code LoadPlan} point of the check's session, of as many workers as
 * requests) until a level is refused (429/503) or its median time to first token (the point's {@code metrics}
 * aggregate's TTFT p50, the exact percentile of every report) passes three times the lone request's plus 50 ms
 * (requests queue instead of running). The limit is the last level below that; {@link #CAP} when none was reached
 * (an estimate: the server may take more). A level whose verdict says the client limited it (client-bound, load not
 * delivered) ends the ramp too: what it measured is the client's, so the limit is the last level before it, and
 * the checks that use it say so.
 */
final class Ramp {
    static final int CAP = 256;
    private static final int MAX_TOKENS = 16;

    private Ramp() {}

    /**
     * The limit found.
     *
     * @param clientLimited why the ramp stopped at the client ({@code the ramp stopped at 8 concurrent: …}); null when
     *                      the server's behaviour (or the cap) ended it
     */
    record Found(int limit, String clientLimited) {}

    static Found find(Target target) throws InterruptedException {
        double base = Double.NaN;
        int last = 1;
        for (int level = 1; level <= CAP; level *= 2) {
            ProbeSession.Point point = target.burst("ramp/" + level + " concurrent",
                    Ask.of(target.model(), Prompts.SHORT, MAX_TOKENS), level);
            if (refused(point)) return new Found(last, null);
            String client = point.clientLimited();
            if (client != null) {
                return new Found(last, "the limit is the client's, not the server's: the ramp stopped at " + level
                        + " concurrent, where the client was the bottleneck (" + client + ")");
            }
            double ttft = medianTtftSeconds(point);
            if (level == 1) base = ttft;
            else if (ttft > 3 * base + 0.05) return new Found(last, null);
            last = level;
        }
        return new Found(CAP, null);
    }

    static boolean refused(ProbeSession.Point point) {
        return point.records().stream().anyMatch(Outcomes::refusal);
    }

    /** The point's TTFT p50 in seconds; NaN when no request had a first token. */
    static double medianTtftSeconds(ProbeSession.Point point) {
        Double ms = point.result().percentile("50%", PercentileRow.TTFT);
        return ms == null ? Double.NaN : ms / 1000;
    }
}
