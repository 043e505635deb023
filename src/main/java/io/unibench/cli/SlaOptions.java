package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.engine.sla.SlaParams;
import io.unibench.engine.spec.SpecPaths;
import io.unibench.engine.spec.SpecRules;
import picocli.CommandLine.Option;

/** evalscope's SLA auto-tune flags (§1.3), a mixin of {@link LoadShapeOptions}; run by {@link SlaAutoTune}. */
final class SlaOptions {
    enum Variable { parallel, rate }

    @Option(names = "--sla-auto-tune", description = "evalscope's SLA auto-tune: instead of the --number/--parallel "
            + "sweep, search the largest --sla-variable value meeting every criterion of --sla-params (doubling, then "
            + "bisection), each value run --sla-num-runs times into sla_tuning/sla_VAR_VAL_run_I/; writes "
            + "sla_summary.json and the 'SLA Auto-tune Summary' table. Default: off.")
    boolean slaAutoTune;

    @Option(names = "--sla-variable", paramLabel = "parallel|rate", description = "evalscope's: what is tuned: the "
            + "concurrency (closed loop) or the --rate in req/s (integers, at most --sla-fixed-parallel in flight). "
            + "Default: parallel.")
    Variable slaVariable;

    @Option(names = "--sla-params", paramLabel = "JSON", description = "evalscope's criteria: a JSON object such as "
            + "'{\"p99_latency\": \"<=2\", \"avg_ttft\": \"<=500ms\"}' (all must hold), or a list of objects (each "
            + "tuned on its own); <=, >=, <, > or max/min (one metric alone). Metrics: avg_latency, avg_ttft, "
            + "avg_tpot, p50/p90/p99_ttft, p50/p90/p99_tpot, p99_latency (times: bare numbers are SECONDS, or "
            + "write 500ms / 0.5s; evalscope reads bare TTFT/TPOT as ms), rps (req/s), tps (output tok/s), goodput "
            + "(ours: req/s meeting --goodput). A value "
            + "passes when every request succeeded and the criteria hold on the mean of its runs. Default: none.")
    String slaParams;

    @Option(names = "--sla-num-runs", paramLabel = "N", description = "evalscope's: runs per value, averaged; with 2 "
            + "or more, a boundary the runs disagree on is reported as within run-to-run spread. Default: 3.")
    Integer slaNumRuns;

    @Option(names = "--sla-upper-bound", paramLabel = "N", description = "evalscope's: the largest value tried. "
            + "Default: 65536.")
    Integer slaUpperBound;

    @Option(names = "--sla-lower-bound", paramLabel = "N", description = "evalscope's: the smallest value tried. "
            + "Default: 1.")
    Integer slaLowerBound;

    @Option(names = "--sla-fixed-parallel", paramLabel = "N", description = "evalscope's: the concurrency bound while "
            + "the rate is tuned. Default: --sla-upper-bound (as evalscope).")
    Integer slaFixedParallel;

    @Option(names = "--sla-number-multiplier", paramLabel = "X", description = "evalscope's: requests per run = "
            + "max(1, round(value × X)). Default: 2.")
    Double slaNumberMultiplier;

    private SlaParams parsed;

    void validate(PerfOptions o) {
        if (!slaAutoTune) {
            if (slaVariable != null || slaParams != null || slaNumRuns != null || slaUpperBound != null
                    || slaLowerBound != null || slaFixedParallel != null || slaNumberMultiplier != null) {
                throw new BadInputException("--sla-variable/--sla-params/--sla-*: need --sla-auto-tune");
            }
            return;
        }
        if (slaParams == null) throw new BadInputException("--sla-auto-tune needs --sla-params (the criteria to meet)");
        params();
        new SpecRules(SpecPaths.FLAGS).sla(runs(), lower(), upper(), slaFixedParallel, multiplier()).throwFirst();
        if (o.multiTurn) throw new BadInputException("--sla-auto-tune does not apply to --multi-turn");
        boolean usesGoodput = params().groups().stream().flatMap(java.util.List::stream)
                .anyMatch(c -> c.metric() == io.unibench.engine.sla.SlaMetric.GOODPUT);
        if (usesGoodput && (o.loads.goodput == null || o.loads.goodput.isEmpty())) {
            throw new BadInputException("--sla-params goodput: needs --goodput (the objectives it counts)");
        }
        if (LoadShapeOptions.replaysTrace(o)) {
            throw new BadInputException("--sla-auto-tune does not apply to --dataset mooncake_trace (its times are fixed)");
        }
        if (variable() == Variable.parallel && o.openLoop) {
            throw new BadInputException("--sla-auto-tune --sla-variable parallel: not with --open-loop (it has no "
                    + "concurrency to tune); use --sla-variable rate");
        }
        if (o.loads.rampUpStrategy != null) {
            throw new BadInputException("--sla-auto-tune: not with --ramp-up-strategy (the tune sets the load)");
        }
    }

    boolean on() {
        return slaAutoTune;
    }

    SlaParams params() {
        if (parsed == null) parsed = SlaParams.parse(slaParams);
        return parsed;
    }

    Variable variable() {
        return slaVariable == null ? Variable.parallel : slaVariable;
    }

    int runs() {
        return slaNumRuns == null ? 3 : slaNumRuns;
    }

    int upper() {
        return slaUpperBound == null ? 65536 : slaUpperBound;
    }

    int lower() {
        return slaLowerBound == null ? 1 : slaLowerBound;
    }

    /** The concurrency bound of a rate probe (evalscope falls back to the upper bound). */
    int fixedParallel() {
        return slaFixedParallel != null ? slaFixedParallel : upper();
    }

    double multiplier() {
        return slaNumberMultiplier == null ? 2 : slaNumberMultiplier;
    }

    /** Requests of a run at {@code value}. */
    int number(int value) {
        return (int) Math.max(1, Math.round(value * multiplier()));
    }

    /** The most requests in flight any probe may have, for the connection pool's size; 0 when off. */
    int peakConcurrency() {
        if (!slaAutoTune) return 0;
        return variable() == Variable.parallel ? upper() : fixedParallel();
    }
}
