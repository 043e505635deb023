package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.metrics.GoodputMeter;
import io.unibench.metrics.GoodputSlo;
import io.unibench.metrics.RunResult;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.Locale;

/**
 * The flags of {@code perf} for arrival shapes and capacity questions (vLLM's {@code --goodput}, {@code
 * --burstiness}, {@code --ramp-up-*}; the trace replay's {@code --trace-speedup}), a mixin of {@link PerfOptions}.
 * Kept apart from the orchestration: {@code PerfCommand} asks it for the point's plan and sinks at single points.
 */
final class LoadShapeOptions {
    @Option(names = "--goodput", arity = "1..*", paramLabel = "SLO:MS", description = "vLLM's goodput (DistServe's "
            + "definition): also report the requests per second that succeeded and met every objective given, "
            + "among ttft:MS (time to first token), tpot:MS (time per output token after the first) and e2el:MS "
            + "(end-to-end latency), in milliseconds (or with a unit: ttft:0.5s). Shown beside RPS, in "
            + "benchmark_summary.json as 'Request Goodput (req/s)' and in the run history. Default: none.")
    List<String> goodput;

    private GoodputSlo slo; // parsed once

    /** Checks every flag of this group (bad input: one line naming the flag). */
    void validate(PerfOptions o) {
        goodputSlo();
    }

    /** The objectives of --goodput; null when not given. */
    GoodputSlo goodputSlo() {
        if (goodput == null || goodput.isEmpty()) return null;
        if (slo == null) slo = parseGoodput(goodput);
        return slo;
    }

    /** A counter of good requests for one point, or null without --goodput. */
    GoodputMeter goodputMeter() {
        GoodputSlo s = goodputSlo();
        return s == null ? null : new GoodputMeter(s);
    }

    /** The point's result with its goodput, when counted. */
    static RunResult withGoodput(GoodputMeter meter, RunResult result) {
        return meter == null ? result : meter.attach(result);
    }

    static GoodputSlo parseGoodput(List<String> items) {
        Double ttft = null, tpot = null, e2el = null;
        java.util.Map<String, String> seen = new java.util.HashMap<>();
        for (String item : items) {
            int colon = item.indexOf(':');
            if (colon <= 0) throw new BadInputException("--goodput '" + item + "': expected NAME:MS, NAME one of ttft, tpot, e2el");
            String name = item.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            double ms = TimeBound.millis("--goodput " + name, item.substring(colon + 1), false);
            if (seen.put(name, item) != null && List.of("ttft", "tpot", "e2el").contains(name)) {
                throw new BadInputException("--goodput '" + item + "': " + name + " is given twice");
            }
            switch (name) {
                case "ttft" -> ttft = ms;
                case "tpot" -> tpot = ms;
                case "e2el" -> e2el = ms;
                default -> throw new BadInputException("--goodput '" + item + "': unknown objective '" + name
                        + "'; use ttft, tpot or e2el");
            }
        }
        return new GoodputSlo(ttft, tpot, e2el);
    }
}
