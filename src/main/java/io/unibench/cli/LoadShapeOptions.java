package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.engine.ArrivalShape;
import io.unibench.engine.LoadPlan;
import io.unibench.engine.spec.SpecPaths;
import io.unibench.engine.spec.SpecRules;
import io.unibench.metrics.GoodputSlo;
import io.unibench.workload.MooncakeTrace;
import io.unibench.workload.MooncakeTraceDataset;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

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

    @Option(names = "--burstiness", paramLabel = "B", description = "vLLM's burstiness of the --rate arrivals: "
            + "gaps are gamma-distributed with shape B and mean 1/rate (1 = Poisson, the same schedule as without "
            + "the flag; below 1 burstier, above 1 more even, Infinity evenly spaced), on the same absolute "
            + "schedule. Also shapes the gaps of a --ramp-up-strategy. Default: 1.0.")
    Double burstiness;

    @Option(names = "--ramp-up-strategy", paramLabel = "linear|exponential", description = "vLLM's request-rate "
            + "ramp: the rate of request i of a run's N goes from --ramp-up-start-rps to --ramp-up-end-rps, "
            + "linearly or geometrically in i/(N-1); each gap is drawn at that rate (--burstiness shape). Replaces "
            + "--rate (the points show the end rate as Rate); bounded by --parallel unless --open-loop. Not with "
            + "--multi-turn. Default: none.")
    ArrivalShape.Ramp.Strategy rampUpStrategy;

    @Option(names = "--ramp-up-start-rps", paramLabel = "RPS", description = "vLLM's: the rate of a run's first "
            + "request, > 0 (needs --ramp-up-strategy). Default: none.")
    Double rampUpStartRps;

    @Option(names = "--ramp-up-end-rps", paramLabel = "RPS", description = "vLLM's: the rate of a run's last "
            + "request, > 0 (needs --ramp-up-strategy). Default: none.")
    Double rampUpEndRps;

    @Option(names = "--trace-speedup", paramLabel = "X", description = "Ours: --dataset mooncake_trace replays its "
            + "requests at timestamp / X from the first replayed one (2 = twice as fast). Default: 1.0.")
    Double traceSpeedup;

    @Mixin
    SlaOptions sla = new SlaOptions();

    private GoodputSlo slo; // parsed once
    private MooncakeTrace trace; // --dataset mooncake_trace, read once
    private boolean parallelGiven;

    /** Checks every flag of this group (bad input: one line naming the flag). */
    void validate(PerfOptions o) {
        goodputSlo();
        sla.validate(o);
        parallelGiven = o.parallel != null;
        new SpecRules(SpecPaths.FLAGS).arrivals(0, burstiness, rampUpStartRps, rampUpEndRps, traceSpeedup).throwFirst();
        if (replaysTrace(o)) {
            if (o.multiTurn) throw new BadInputException("--dataset mooncake_trace is single-turn: drop --multi-turn");
            if (o.rate != null && o.rate.stream().anyMatch(r -> r != -1)) {
                throw new BadInputException("--rate does not apply to --dataset mooncake_trace: its timestamps are the "
                        + "schedule (--trace-speedup X compresses it)");
            }
            if (rampUpStrategy != null || burstiness != null) {
                throw new BadInputException("--ramp-up-strategy/--burstiness do not apply to --dataset mooncake_trace: "
                        + "its timestamps are the schedule");
            }
            trace(o);
        } else if (traceSpeedup != null) {
            throw new BadInputException("--trace-speedup applies to --dataset mooncake_trace only");
        }
        if (burstiness != null) {
            boolean paced = o.rate != null && o.rate.stream().anyMatch(r -> r > 0);
            if (!paced && rampUpStrategy == null && !replaysTrace(o)) {
                throw new BadInputException("--burstiness shapes scheduled arrivals: give --rate R > 0 or a --ramp-up-strategy");
            }
            if (o.multiTurn) {
                throw new BadInputException("--burstiness does not apply to --multi-turn (its arrivals are Poisson)");
            }
        }
        if (rampUpStrategy == null) {
            if (rampUpStartRps != null || rampUpEndRps != null) {
                throw new BadInputException("--ramp-up-start-rps/--ramp-up-end-rps need --ramp-up-strategy linear|exponential");
            }
        } else {
            if (rampUpStartRps == null || rampUpEndRps == null) {
                throw new BadInputException("--ramp-up-strategy needs both --ramp-up-start-rps and --ramp-up-end-rps");
            }
            if (o.rate != null && o.rate.stream().anyMatch(r -> r != -1)) {
                throw new BadInputException("--ramp-up-strategy sets the rate: do not give --rate with it (as vLLM)");
            }
            if (o.multiTurn) throw new BadInputException("--ramp-up-strategy does not apply to --multi-turn");
        }
    }

    /**
     * The rate of every run: --rate's as resolved, or the ramp's end rate (the Rate its points are shown with, so
     * the plan is paced and --open-loop needs no --rate).
     */
    List<Double> rates(PerfOptions o, List<Double> resolved, List<Integer> number) {
        validate(o); // before the rates are used, so a bad ramp is the one line
        if (trace != null) return traceRates(o, number);
        if (rampUpStrategy == null) return resolved;
        return java.util.Collections.nCopies(resolved.size(), rampUpEndRps);
    }

    /** True when a trace or the SLA auto-tune decides the load (so the simulator's default sweep does not apply). */
    boolean setsLoad(PerfOptions o) {
        return replaysTrace(o) || sla.on();
    }

    /** True with --dataset mooncake_trace: the trace's timestamps are the schedule. */
    static boolean replaysTrace(PerfOptions o) {
        return MooncakeTraceDataset.NAME.equals(o.dataset) && o.prompt == null;
    }

    /** --number when not given: the whole trace from --dataset-offset; else evalscope's 1000. */
    List<Integer> defaultNumber(PerfOptions o) {
        if (!replaysTrace(o)) return List.of(1000);
        return List.of((int) Math.max(1, trace(o).requests().size() - o.datasetOffset));
    }

    private MooncakeTrace trace(PerfOptions o) {
        if (trace == null) {
            if (o.datasetPath == null) {
                throw new BadInputException("--dataset mooncake_trace needs --dataset-path: a Mooncake JSONL trace");
            }
            trace = MooncakeTrace.read(o.datasetPath);
        }
        return trace;
    }

    /**
     * Each point's rate as it is shown: its measured requests over their recorded span (after --trace-speedup).
     * A point needs its warm-up and measured requests in the trace, from its offset on.
     */
    private List<Double> traceRates(PerfOptions o, List<Integer> number) {
        List<Double> rates = new java.util.ArrayList<>();
        long from = o.datasetOffset;
        int size = trace.requests().size();
        for (int n : number) {
            int warmup = PerfSettings.warmupCount(o.warmupNum, n);
            if (from + warmup + n > size) {
                throw new BadInputException("--number " + n + (warmup > 0 ? " (+ " + warmup + " warm-up)" : "")
                        + ": " + o.datasetPath + " has " + size + " requests"
                        + (from > 0 ? ", " + (size - Math.min(from, size)) + " from --dataset-offset " + from : ""));
            }
            long[] t = trace.offsetsNanos((int) (from + warmup), speedup());
            double span = t[n - 1] / 1e9;
            rates.add(n / Math.max(span, 1e-3));
            from += n;
        }
        return rates;
    }

    private double speedup() {
        return traceSpeedup == null ? 1 : traceSpeedup;
    }

    /**
     * The point's plan with its arrival shape: the trace's times from the point's dataset offset (an open loop
     * unless --parallel bounds it), the ramp's, or gamma gaps of --burstiness; else as it is.
     */
    LoadPlan shape(LoadPlan plan, long datasetOffset) {
        if (!plan.paced()) return plan;
        if (trace != null) {
            LoadPlan replay = parallelGiven || plan.openLoop() ? plan
                    : LoadPlan.openLoop(plan.number(), plan.rate(), plan.duration(), plan.warmup());
            return replay.withArrivals(ArrivalShape.recorded(trace.offsetsNanos((int) datasetOffset, speedup()),
                    speedup()));
        }
        double b = burstiness == null ? 1 : burstiness;
        if (rampUpStrategy != null) {
            return plan.withArrivals(ArrivalShape.ramp(new ArrivalShape.Ramp(rampUpStrategy, rampUpStartRps,
                    rampUpEndRps), b));
        }
        return burstiness == null ? plan : plan.withArrivals(ArrivalShape.gamma(b));
    }

    /** The objectives of --goodput; null when not given. */
    GoodputSlo goodputSlo() {
        if (goodput == null || goodput.isEmpty()) return null;
        if (slo == null) slo = parseGoodput(goodput);
        return slo;
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
