package io.unibench.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.LevelName;
import io.unibench.metrics.MetricDelta;
import io.unibench.metrics.RequestSamples;
import io.unibench.metrics.SampleComparison;
import io.unibench.metrics.WorkloadFingerprint;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code runs compare BASELINE RUN…}, {@code GET /api/compare} and the compare page: each run's points matched to
 * the baseline's by scenario and level (concurrency or request rate), never by provider name or label, so runs of
 * different providers and of different level lists compare on the levels they share. Each matched level gives, per
 * per-request metric (TTFT, TTFCT when either run's replies reasoned, latency, TPOT), the mean and p50/p95/p99 of B against the baseline with the 95 %
 * interval of the delta and a verdict from the two runs' stored requests ({@link SampleComparison}); then the
 * point's other numeric figures (throughputs, counts), which have one value per run and so no verdict.
 */
public final class RunComparison {
    private static final double[] PERCENTILES = {50, 95, 99};
    private static final Set<String> FROM_SAMPLES = Set.of("Avg TTFT (ms)", "Avg TTFCT (ms)", "Avg Latency (s)",
            "Avg TPOT (ms)");
    private static final Pattern NUMBERED = Pattern.compile("(parallel_\\d+|rate_[^_]+)_number_\\d+");
    private static final Pattern RATE = Pattern.compile("rate_([0-9.eE+-]+)");

    /**
     * One candidate against the baseline.
     *
     * @param rows          per matched level (in the baseline's order), the metrics of the candidate against the
     *                      baseline; {@link MetricDelta#point()} is the level's key ({@link #levelKey})
     * @param onlyBaseline  the baseline's level keys this run does not have
     * @param onlyCandidate this run's level keys the baseline does not have
     */
    public record Pair(StoredRun candidate, List<MetricDelta> rows, List<String> onlyBaseline,
                       List<String> onlyCandidate, WorkloadFingerprint fingerprint,
                       List<WorkloadFingerprint.Refusal> refusals, boolean forced) {
        /** The matched level keys, in order. */
        public List<String> levels() {
            return rows.stream().map(MetricDelta::point).distinct().toList();
        }
    }

    /** The comparison: the baseline and one {@link Pair} per other run, in the order given. */
    public record Result(StoredRun baseline, List<Pair> pairs) {
        /** The baseline (A). */
        public StoredRun a() {
            return baseline;
        }

        /** The first other run (B). */
        public StoredRun b() {
            return pairs.getFirst().candidate();
        }

        /** The first other run's rows. */
        public List<MetricDelta> rows() {
            return pairs.getFirst().rows();
        }

        /**
         * The document of {@code runs compare --json} and {@code GET /api/compare}: {@code baseline}, {@code method},
         * and per other run its {@code rows} and the levels found on one side only; {@code a}, {@code b},
         * {@code rows} and {@code unmatched} repeat the first pair's for readers of two-run comparisons.
         */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("a", baseline.runId());
            m.put("b", b().runId());
            m.put("rows", rows());
            m.put("unmatched", unmatched(pairs.getFirst()));
            m.put("baseline", baseline.runId());
            m.put("method", METHOD);
            List<Map<String, Object>> ps = new ArrayList<>();
            for (Pair p : pairs) {
                Map<String, Object> pm = new LinkedHashMap<>();
                pm.put("run", p.candidate().runId());
                pm.put("levels", p.levels());
                pm.put("only_in_baseline", p.onlyBaseline());
                pm.put("only_in_run", p.onlyCandidate());
                pm.put("rows", p.rows());
                pm.put("fingerprint", p.fingerprint().toMap());
                pm.put("not_comparable", p.refusals().stream().map(WorkloadFingerprint.Refusal::why).toList());
                pm.put("forced", p.forced());
                ps.add(pm);
            }
            m.put("comparisons", ps);
            m.put("baseline_fingerprint", RunFingerprints.of(baseline).toMap());
            return m;
        }
    }

    /** How the verdicts are decided, in one line (docs/outputs.md, "Run history", in full). */
    public static final String METHOD = "95% interval of B − A: percentiles by bootstrap over requests ("
            + SampleComparison.REPLICATES + " replicates, fixed seed), means by Welch's t; better/worse when it "
            + "excludes 0 and |Δ| ≥ " + (int) SampleComparison.MIN_EFFECT_PERCENT + "% of A, same when it lies within ±"
            + (int) SampleComparison.MIN_EFFECT_PERCENT + "% of A, else unclear";

    private RunComparison() {}

    /** The levels found on one side only, as {@code level (only in A)} / {@code (only in B)}. */
    public static List<String> unmatched(Pair p) {
        List<String> out = new ArrayList<>();
        for (String k : p.onlyBaseline()) out.add(k + " (only in A)");
        for (String k : p.onlyCandidate()) out.add(k + " (only in B)");
        return out;
    }

    /** Run B against run A. */
    public static Result compare(RunStore store, StoredRun a, StoredRun b) throws SQLException {
        return compare(store, a, List.of(b));
    }

    /** Each of {@code others} against {@code baseline}. */
    public static Result compare(RunStore store, StoredRun baseline, List<StoredRun> others) throws SQLException {
        return compare(store, baseline, others, false);
    }

    /**
     * Each of {@code others} against {@code baseline}; a metric moved by a difference of the two runs' workload
     * fingerprints ({@link WorkloadFingerprint#refusals}) gets no verdict, or with {@code force} its verdict marked.
     */
    public static Result compare(RunStore store, StoredRun baseline, List<StoredRun> others, boolean force)
            throws SQLException {
        if (others.isEmpty()) throw new IllegalArgumentException("nothing to compare the baseline with");
        Map<String, StoredPoint> base = points(baseline);
        Map<String, RequestSamples> baseSamples = new HashMap<>();
        List<Pair> pairs = new ArrayList<>();
        for (StoredRun other : others) {
            Map<String, StoredPoint> mine = points(other);
            List<MetricDelta> rows = new ArrayList<>();
            List<String> onlyBase = new ArrayList<>();
            for (Map.Entry<String, StoredPoint> e : base.entrySet()) {
                StoredPoint pb = mine.get(e.getKey());
                if (pb == null) {
                    onlyBase.add(e.getKey());
                    continue;
                }
                RequestSamples sa = baseSamples.get(e.getKey());
                if (sa == null) {
                    sa = samples(store, baseline, e.getValue());
                    baseSamples.put(e.getKey(), sa);
                }
                rows.addAll(level(e.getKey(), e.getValue(), sa, pb, samples(store, other, pb)));
            }
            List<String> onlyOther = mine.keySet().stream().filter(k -> !base.containsKey(k)).toList();
            WorkloadFingerprint fp = RunFingerprints.of(other);
            List<WorkloadFingerprint.Refusal> refusals = WorkloadFingerprint.refusals(RunFingerprints.of(baseline), fp);
            pairs.add(new Pair(other, guarded(rows, refusals, force), onlyBase, onlyOther, fp, refusals, force));
        }
        return new Result(baseline, pairs);
    }

    /** The rows whose metric a refusal names, refused (or, forced, marked); the others as they are. */
    private static List<MetricDelta> guarded(List<MetricDelta> rows, List<WorkloadFingerprint.Refusal> refusals,
                                             boolean force) {
        if (refusals.isEmpty()) return rows;
        List<MetricDelta> out = new ArrayList<>();
        for (MetricDelta d : rows) {
            List<String> why = new ArrayList<>();
            for (WorkloadFingerprint.Refusal r : refusals) {
                for (String column : r.columns()) {
                    if (moves(column, d.metric()) && !why.contains(r.why())) why.add(r.why());
                }
            }
            out.add(why.isEmpty() ? d : SampleComparison.refused(d, String.join("; ", why), force));
        }
        return out;
    }

    /**
     * Whether a refusal's column names the row's metric: a summary figure by its name ({@code Avg Input Tokens}), a
     * per-request column ({@code TPOT (ms)}) by the word before its unit, wherever it stands ({@code p95 TPOT (ms)},
     * {@code Avg Answer TPOT (ms)}, {@code Avg TTFT incl. Queue (ms)}).
     */
    static boolean moves(String column, String metric) {
        if (metric.equals(column)) return true;
        int unit = column.indexOf(" (");
        String name = unit < 0 ? column : column.substring(0, unit);
        return metric.contains(" " + name + " ") || metric.startsWith(name + " ");
    }

    private static List<MetricDelta> level(String key, StoredPoint pa, RequestSamples sa, StoredPoint pb,
                                           RequestSamples sb) {
        List<MetricDelta> rows = new ArrayList<>();
        for (String column : RequestSamples.COLUMNS) {
            double[] a = sa.sorted(column);
            double[] b = sb.sorted(column);
            if (a.length == 0 && b.length == 0) continue;
            rows.add(SampleComparison.mean(key, "Avg " + column, a, b));
            for (double p : PERCENTILES) {
                rows.add(SampleComparison.percentile(key, "p" + (int) p + " " + column, a, b, p));
            }
        }
        Map<String, Double> fa = figures(pa.summary());
        Map<String, Double> fb = figures(pb.summary());
        Set<String> names = new java.util.LinkedHashSet<>(fa.keySet());
        names.addAll(fb.keySet());
        for (String name : names) {
            if (FROM_SAMPLES.contains(name)) continue;
            rows.add(SampleComparison.single(key, name, fa.get(name), fb.get(name)));
        }
        return rows;
    }

    /** The numeric keys of a stored summary (the intervals' arrays are not figures). */
    private static Map<String, Double> figures(JsonNode summary) {
        Map<String, Double> m = new LinkedHashMap<>();
        if (summary == null) return m;
        summary.properties().forEach(e -> {
            if (e.getValue().isNumber()) m.put(e.getKey(), e.getValue().asDouble());
        });
        return m;
    }

    private static RequestSamples samples(RunStore store, StoredRun run, StoredPoint p) throws SQLException {
        RequestSamples s = new RequestSamples();
        store.forEachRequest(run.runId(), p.index(), s::accept);
        return s;
    }

    /** The run's points by level key; a repeated key (a rerun level) keeps its last point. */
    private static Map<String, StoredPoint> points(StoredRun run) {
        Map<String, StoredPoint> m = new LinkedHashMap<>();
        String provider = run.environment() == null ? null : run.environment().path("provider").asText(null);
        for (StoredPoint p : run.points()) m.put(levelKey(p.label(), provider), p);
        return m;
    }

    /**
     * What a point is matched by: its scenario and level, without the provider and without {@code perf}'s
     * {@code _number_N}, a rate written plainly: {@code DeepSeek/chat/parallel_4} (provider DeepSeek) →
     * {@code chat/parallel_4}; {@code parallel_8_number_100} → {@code parallel_8}; {@code rate_5.0_number_400} →
     * {@code rate_5}.
     */
    public static String levelKey(String label, String provider) {
        String rest = provider != null && label.startsWith(provider + "/") ? label.substring(provider.length() + 1)
                : label;
        String level = LevelName.of(rest);
        String scenario = rest.substring(0, rest.length() - level.length());
        Matcher m = NUMBERED.matcher(level);
        if (m.matches()) level = m.group(1);
        Matcher r = RATE.matcher(level);
        if (r.matches()) {
            try {
                level = "rate_" + new BigDecimal(r.group(1)).stripTrailingZeros().toPlainString();
            } catch (NumberFormatException e) {
                // not a number: keep the name
            }
        }
        return scenario + level;
    }
}
