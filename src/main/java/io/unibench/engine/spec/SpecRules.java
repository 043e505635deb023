package io.unibench.engine.spec;

import io.unibench.BadInputException;
import io.unibench.engine.spec.SpecPaths.Field;

import java.util.ArrayList;
import java.util.List;

/**
 * The one set of rules every front end's description of a run passes before a {@link RunSpec} is made from it:
 * load points, arrival shapes, the SLA auto-tune's figures, sampling parameters, timeouts. Each check adds a {@link SpecError} located by the front end's
 * {@link SpecPaths}; {@link #throwFirst} turns them into the one line of bad input. The texts are those {@code perf}
 * has always printed ({@code --number 0: must be ≥ 1}); a scenario file shows them after its {@code FILE:LINE: key}.
 */
public final class SpecRules {
    private final SpecPaths paths;
    private final List<SpecError> errors = new ArrayList<>();

    public SpecRules(SpecPaths paths) {
        this.paths = paths;
    }

    public List<SpecError> errors() {
        return List.copyOf(errors);
    }

    /** Throws the first error as {@link BadInputException} (one line, exit 2); nothing when there is none. */
    public void throwFirst() {
        if (!errors.isEmpty()) throw new BadInputException(errors.getFirst().line());
    }

    private void add(Field field, int index, String message) {
        errors.add(new SpecError(paths.path(field, index), message));
    }

    /**
     * One load point's figures: {@code rate} -1 = unpaced; {@code durationSeconds} null = none; {@code warmup} a
     * count, or a share of {@code number} below 1 (evalscope's rule).
     */
    public SpecRules point(int index, int parallel, int number, double rate, Double durationSeconds, double warmup) {
        if (number < 1) add(Field.NUMBER, index, number + ": must be ≥ 1");
        if (parallel < 1) add(Field.PARALLEL, index, parallel + ": must be ≥ 1");
        if (rate != -1 && !finitePositive(rate)) add(Field.RATE, index, rate + ": must be a finite rate > 0, or -1 for none");
        if (durationSeconds != null && !(durationSeconds > 0)) add(Field.DURATION, index, "must be > 0 seconds");
        if (!(warmup >= 0)) add(Field.WARMUP, index, "must be ≥ 0");
        else if (warmup > Integer.MAX_VALUE) add(Field.WARMUP, index, (long) warmup + ": must be at most " + Integer.MAX_VALUE + " requests");
        return this;
    }

    /**
     * The run's limits ({@link RunSpec.Limits}): the statuses retried are HTTP statuses of a refusal (400–599) and
     * need a count ≥ 1 (and a count needs statuses); the budget's figures are > 0, a cost needs every target priced;
     * the target precision is a percentage in (0, 100).
     */
    public SpecRules limits(List<Integer> retryOn, Integer maxRetries, Long maxTotalTokens, Double maxCost,
                            boolean everyTargetPriced, Double targetPrecision) {
        boolean on = retryOn != null && !retryOn.isEmpty();
        if (on) {
            for (int status : retryOn) {
                if (status < 400 || status > 599) add(Field.RETRY_ON, 0, status + ": must be an HTTP status 400..599");
            }
            if (maxRetries == null) {
                add(Field.RETRY_ON, 0, String.join(",", retryOn.stream().map(String::valueOf).toList())
                        + ": needs a count of retries (--max-retries N, max_retries)");
            }
        }
        if (maxRetries != null) {
            if (maxRetries < 1 || maxRetries > 100) add(Field.MAX_RETRIES, 0, maxRetries + ": must be 1..100");
            else if (!on) add(Field.MAX_RETRIES, 0, maxRetries + ": needs the statuses to retry (--retry-on 429,503, on)");
        }
        if (maxTotalTokens != null && maxTotalTokens < 1) add(Field.MAX_TOTAL_TOKENS, 0, maxTotalTokens + ": must be ≥ 1");
        if (maxCost != null) {
            if (!finitePositive(maxCost)) add(Field.MAX_COST, 0, maxCost + ": must be a finite amount > 0");
            else if (!everyTargetPriced) {
                add(Field.MAX_COST, 0, maxCost + ": needs token prices (--price-input and --price-output per 1M "
                        + "tokens; a scenario provider's price)");
            }
        }
        if (targetPrecision != null && !(targetPrecision > 0 && targetPrecision < 100)) {
            add(Field.TARGET_PRECISION, 0, targetPrecision + ": must be a percentage > 0 and < 100");
        }
        return this;
    }

    /** The pause after a point (between sweep points or levels), in seconds. */
    public SpecRules pause(int index, double seconds) {
        if (!(seconds >= 0)) add(Field.PAUSE, index, "must be ≥ 0");
        return this;
    }

    /** Sampling: max tokens (one value, or MIN and MAX of a range), min tokens, temperature, top-p, top-k. */
    public SpecRules generation(List<Integer> maxTokens, Integer minTokens, double temperature, Double topP,
                                Integer topK) {
        return generation(0, maxTokens, minTokens, temperature, topP, topK);
    }

    /** {@link #generation(List, Integer, double, Double, Integer)} of workload {@code w}. */
    private SpecRules generation(int w, List<Integer> maxTokens, Integer minTokens, double temperature, Double topP,
                                 Integer topK) {
        int min = maxTokens.getFirst();
        int max = maxTokens.size() > 1 ? maxTokens.get(1) : min;
        if (min < 1 || max < min) add(Field.MAX_TOKENS, w, maxTokens + ": need 1 ≤ MIN ≤ MAX");
        if (minTokens != null && minTokens < 0) add(Field.MIN_TOKENS, w, minTokens + ": must be ≥ 0");
        else if (minTokens != null && min >= 1 && minTokens > min) {
            add(Field.MIN_TOKENS, w, minTokens + ": must be ≤ " + paths.path(Field.MAX_TOKENS, w) + " " + min
                    + " (no reply could meet both)");
        }
        if (!(temperature >= 0) || Double.isInfinite(temperature)) add(Field.TEMPERATURE, w, temperature + ": must be ≥ 0");
        if (topP != null && !(topP > 0 && topP <= 1)) add(Field.TOP_P, w, topP + ": must be in (0, 1]");
        if (topK != null && topK < -1) add(Field.TOP_K, w, topK + ": must be ≥ 1, or -1 (or 0) for none");
        return this;
    }

    /**
     * How paced arrivals are shaped, each null when not given: vLLM's burstiness (the gamma shape, > 0), a rate ramp's
     * start and end (finite rates > 0), a trace's speed-up (a finite factor > 0).
     */
    public SpecRules arrivals(int index, Double burstiness, Double rampStart, Double rampEnd, Double traceSpeedup) {
        if (burstiness != null && !(burstiness > 0)) add(Field.BURSTINESS, index, burstiness + ": must be > 0 (1 = Poisson)");
        if (rampStart != null && !finitePositive(rampStart)) add(Field.RAMP_START, index, rampStart + ": must be a finite rate > 0");
        if (rampEnd != null && !finitePositive(rampEnd)) add(Field.RAMP_END, index, rampEnd + ": must be a finite rate > 0");
        if (traceSpeedup != null && !finitePositive(traceSpeedup)) {
            add(Field.TRACE_SPEEDUP, index, traceSpeedup + ": must be a finite factor > 0");
        }
        return this;
    }

    /** The SLA auto-tune's runs per value, bounds, a rate probe's concurrency bound (null = none given), multiplier. */
    public SpecRules sla(int runs, int lower, int upper, Integer fixedParallel, double numberMultiplier) {
        return sla(0, runs, lower, upper, fixedParallel, numberMultiplier);
    }

    /** The figures of search {@code index} (a spec's {@code /sla/INDEX}). */
    public SpecRules sla(int index, int runs, int lower, int upper, Integer fixedParallel, double numberMultiplier) {
        if (runs < 1) add(Field.SLA_RUNS, index, runs + ": must be ≥ 1");
        if (lower < 1) add(Field.SLA_LOWER, index, lower + ": must be ≥ 1");
        else if (upper < lower) add(Field.SLA_UPPER, index, upper + ": must be ≥ " + paths.path(Field.SLA_LOWER, index) + " " + lower);
        if (fixedParallel != null && fixedParallel < 1) add(Field.SLA_FIXED_PARALLEL, index, fixedParallel + ": must be ≥ 1");
        if (!finitePositive(numberMultiplier)) add(Field.SLA_MULTIPLIER, index, numberMultiplier + ": must be > 0");
        return this;
    }

    /**
     * A workload's prompts sent as token ids ({@code tokenize_prompt}) are its tokenizer's ids, which must be the
     * served model's: a tokenizer must be named, unless every target is the embedded simulator (whose own tokenizer
     * makes them then).
     */
    public SpecRules tokenizePrompt(int workload, boolean tokenizePrompt, String tokenizerPath, boolean simulatorOnly) {
        if (tokenizePrompt && tokenizerPath == null && !simulatorOnly) {
            add(Field.TOKENIZE_PROMPT, workload, "needs " + paths.path(Field.TOKENIZER_PATH, workload)
                    + ": the ids must be the served model's (only the embedded simulator's own tokenizer needs none)");
        }
        return this;
    }

    private static boolean finitePositive(double v) {
        return v > 0 && !Double.isInfinite(v);
    }

    /** A target's timeouts in seconds; null = the default. The total timeout, when given, must be > 0. */
    public SpecRules timeouts(int target, Double connect, Double read, Double total) {
        if (connect != null && !(connect > 0 && connect < 1e9)) add(Field.CONNECT_TIMEOUT, target, connect + ": must be > 0 seconds");
        if (read != null && !(read > 0 && read < 1e9)) add(Field.READ_TIMEOUT, target, read + ": must be > 0 seconds");
        if (total != null && !(total > 0)) add(Field.TOTAL_TIMEOUT, target, "must be > 0");
        return this;
    }

    private void arrivals(int index, io.unibench.engine.ArrivalShape shape) {
        switch (shape) {
            case io.unibench.engine.ArrivalShape.Gamma g -> arrivals(index, g.burstiness(), null, null, null);
            case io.unibench.engine.ArrivalShape.RampUp r -> arrivals(index, r.burstiness(), r.ramp().startRps(),
                    r.ramp().endRps(), null);
            case io.unibench.engine.ArrivalShape.Recorded r -> arrivals(index, null, null, null, r.speedup());
            default -> { }
        }
    }

    private static Double seconds(java.time.Duration d) {
        return d == null ? null : d.toNanos() / 1e9;
    }

    /**
     * A whole spec read from a document (a spec file, the web API's body), by the same rules as the flags and
     * scenario files that make one: every point's figures and pause, each workload's sampling, each target's
     * timeouts, the SLA search's figures, token-id prompts' tokenizer. A rate of 0 or -1 is "none" (as
     * {@link io.unibench.engine.LoadPlan} reads it).
     */
    public SpecRules spec(RunSpec spec) {
        for (int i = 0; i < spec.points().size(); i++) {
            RunSpec.Point p = spec.points().get(i);
            var plan = p.plan();
            double rate = plan.rate() == 0 ? -1 : plan.rate();
            point(i, plan.parallel(), plan.number(), rate, plan.duration() == null ? null
                    : plan.duration().toNanos() / 1e9, plan.warmup());
            pause(i, p.pauseAfter().toNanos() / 1e9);
            arrivals(i, plan.arrivals());
        }
        boolean simulatorOnly = spec.targets().stream().allMatch(RunSpec.Target::embeddedSimulator);
        for (int w = 0; w < spec.workloads().size(); w++) {
            RunSpec.DatasetOptions o = spec.workloads().get(w).options();
            tokenizePrompt(w, o.tokenizePrompt(), o.tokenizerPath(), simulatorOnly);
            var g = spec.workloads().get(w).generation();
            if (g == null) continue;
            generation(w, List.of(g.maxTokensMin(), g.maxTokensMax()), g.minTokens(), g.temperature(), g.topP(),
                    g.topK());
        }
        for (int t = 0; t < spec.targets().size(); t++) {
            RunSpec.Timeouts to = spec.targets().get(t).timeouts();
            if (to != null) timeouts(t, seconds(to.connect()), seconds(to.read()), seconds(to.total()));
        }
        for (int i = 0; i < spec.sla().size(); i++) {
            Sla sla = spec.sla().get(i);
            sla(i, sla.runs(), sla.lower(), sla.upper(), sla.variable() == Sla.Variable.rate ? sla.fixedParallel() : null,
                    sla.multiplier());
        }
        return series(spec.points());
    }

    /**
     * Each point's files are its own: a point whose target × workload ran before another's points (its series'
     * folder, report and history run would be made again over the first's), or whose label its target × workload
     * already has (the same folder), is refused at its JSON pointer.
     */
    private SpecRules series(List<RunSpec.Point> points) {
        java.util.Map<String, Integer> labels = new java.util.HashMap<>();
        java.util.Map<Long, Integer> ended = new java.util.HashMap<>(); // target × workload → its last point so far
        for (int i = 0; i < points.size(); i++) {
            RunSpec.Point p = points.get(i);
            long series = ((long) p.target() << 32) | p.workload();
            Integer last = ended.get(series);
            if (last != null && last != i - 1) {
                errors.add(new SpecError("/points/" + i, "target " + p.target() + " × workload " + p.workload()
                        + " again after other points (its series ended at /points/" + last + "): its folder and "
                        + "report would be written over; give a target × workload's points in a row"));
            }
            ended.put(series, i);
            Integer same = labels.putIfAbsent(series + "/" + p.label(), i);
            if (same != null) {
                errors.add(new SpecError("/points/" + i + "/label", p.label() + ": the label of /points/" + same
                        + " (the same target × workload): its files would be written over; give each point its own"));
            }
        }
        return this;
    }
}
