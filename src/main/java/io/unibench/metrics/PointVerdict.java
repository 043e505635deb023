package io.unibench.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Whether a point's numbers can be trusted (docs/metrics.md, "Verdict"): {@value #VALID}, or the reasons among
 * {@value #CLIENT_BOUND}, {@value #LOAD_NOT_DELIVERED}, {@value #TOO_FEW_SAMPLES}, {@value #NOT_STEADY} and
 * {@value #ERRORS}, "; "-joined in that order. Judged once, by the session runner, from the point's result, its
 * records' {@link LoadDelivery} and the self-check's client-bound judgement; every front end, the store, the pages,
 * compare and the alert rules read it from there.
 *
 * @param verdict          {@value #VALID} or the reasons' names
 * @param reasons          each reason with the numbers that decided it ("load-not-delivered: dispatch lag p99 812
 *                         ms > 100 ms"); empty when valid
 * @param offeredRate      the schedule's rate in req/s (open loop); null in a closed loop
 * @param deliveredRate    the rate requests were sent at, req/s; null below 2 requests
 * @param dispatchLagP99Ms p99 of how late requests were sent after their scheduled time; null in a closed loop
 * @param meanInFlight     requests in flight on average over the steady window; null without one
 */
public record PointVerdict(String verdict, List<String> reasons, Double offeredRate, Double deliveredRate,
                           Double dispatchLagP99Ms, Double meanInFlight) {
    public static final String VALID = "valid";
    public static final String CLIENT_BOUND = "client-bound";
    public static final String LOAD_NOT_DELIVERED = "load-not-delivered";
    public static final String TOO_FEW_SAMPLES = "too-few-samples";
    public static final String NOT_STEADY = "not-steady";
    public static final String ERRORS = "errors";
    /** The reasons in the order a verdict names them. */
    public static final List<String> REASONS = List.of(CLIENT_BOUND, LOAD_NOT_DELIVERED, TOO_FEW_SAMPLES, NOT_STEADY,
            ERRORS);

    public static final String KEY = "Verdict";
    public static final String REASONS_KEY = "Verdict Reasons";
    public static final String OFFERED_RATE = "Offered Rate (req/s)";
    public static final String DELIVERED_RATE = "Delivered Rate (req/s)";
    public static final String DISPATCH_LAG_P99 = "Dispatch Lag p99 (ms)";
    public static final String MEAN_IN_FLIGHT = "Mean In-Flight";

    /**
     * A closed loop's mean in-flight is judged only once the steady window holds this many sends per worker: with
     * fewer, the gaps at the window's edges and one worker's turnaround on a busy machine weigh more than the load.
     */
    public static final int MIN_SENDS_PER_WORKER = 5;
    /**
     * An open loop's delivered rate is held against the offered one only from this many scheduled requests: with
     * fewer, one late send moves the measured rate by more than the margin. The dispatch lag rule needs no minimum.
     */
    public static final int MIN_SCHEDULED_FOR_RATE = 20;

    public PointVerdict {
        reasons = List.copyOf(reasons);
    }

    /**
     * The limits of the rules.
     *
     * @param maxErrorShare    the failed share of requests (0..1) above which the point has {@value #ERRORS}
     * @param rateMargin       open loop: delivered below offered × (1 − this) is {@value #LOAD_NOT_DELIVERED}
     * @param dispatchLagP99Ms open loop: a dispatch lag p99 above this (ms) is {@value #LOAD_NOT_DELIVERED}
     * @param inFlightMargin   closed loop: mean in-flight below concurrency × (1 − this) is {@value #LOAD_NOT_DELIVERED}
     */
    public record Limits(double maxErrorShare, double rateMargin, double dispatchLagP99Ms, double inFlightMargin) {
        /** 5 % errors, 5 % of the offered rate, 100 ms of dispatch lag, 10 % of the concurrency. */
        public static final Limits DEFAULT = new Limits(0.05, 0.05, 100, 0.10);

        /** These limits with {@code --max-error-rate PCT} (a percentage); null keeps the default 5 %. */
        public Limits withMaxErrorRatePercent(Double percent) {
            return percent == null ? this : new Limits(percent / 100, rateMargin, dispatchLagP99Ms, inFlightMargin);
        }
    }

    /**
     * Judges a point.
     *
     * @param result      the point's result (its requests' counts and whether it was multi-turn)
     * @param load        its records' delivered load
     * @param concurrency the configured concurrency (closed loop: the workers)
     * @param clientBound the self-check's figures when it found the client the bottleneck; null when it did not
     */
    public static PointVerdict judge(RunResult result, LoadDelivery.Reading load, int concurrency, String clientBound,
                                     Limits limits) {
        List<String> reasons = new ArrayList<>();
        if (clientBound != null) reasons.add(CLIENT_BOUND + ": " + clientBound);

        List<String> notDelivered = new ArrayList<>();
        if (load.open()) {
            if (load.offeredRate() != null && load.deliveredRate() != null && load.sent() >= MIN_SCHEDULED_FOR_RATE
                    && load.deliveredRate() < load.offeredRate() * (1 - limits.rateMargin())) {
                notDelivered.add(String.format(Locale.ROOT, "delivered %.2f req/s < offered %.2f req/s − %s%%",
                        load.deliveredRate(), load.offeredRate(), pct(limits.rateMargin())));
            }
            if (load.dispatchLagP99Ms() != null && load.dispatchLagP99Ms() > limits.dispatchLagP99Ms()) {
                notDelivered.add(String.format(Locale.ROOT, "dispatch lag p99 %.1f ms > %s ms",
                        load.dispatchLagP99Ms(), num(limits.dispatchLagP99Ms())));
            }
        } else if (!result.multiTurn() && load.meanInFlight() != null
                && load.sent() - Math.max(concurrency, 1) + 1 >= (long) MIN_SENDS_PER_WORKER * Math.max(concurrency, 1)
                && load.meanInFlight() < concurrency * (1 - limits.inFlightMargin())) {
            notDelivered.add(String.format(Locale.ROOT, "mean in-flight %.2f < %s%% of the concurrency %d over the "
                    + "steady %.1f s", load.meanInFlight(), pct(1 - limits.inFlightMargin()), concurrency,
                    load.windowSeconds()));
        }
        if (!notDelivered.isEmpty()) reasons.add(LOAD_NOT_DELIVERED + ": " + String.join(", ", notDelivered));

        long ok = result.summary().requests().successRequests();
        List<String> lacking = new ArrayList<>();
        long need = 0;
        for (double p : PercentileRow.POINTS) {
            if (p <= 0 || p >= 100) continue; // the minimum and maximum have no interval
            if (ConfidenceIntervals.quantileRanks(ok, p / 100) == null) {
                lacking.add("p" + num(p));
                need = Math.max(need, ConfidenceIntervals.minimumSamples(p / 100));
            }
        }
        if (!lacking.isEmpty()) {
            reasons.add(String.format(Locale.ROOT, "%s: %s need%s up to %d successful requests for a 95%% CI, the point "
                    + "has %d", TOO_FEW_SAMPLES, String.join(", ", lacking), lacking.size() == 1 ? "s" : "", need, ok));
        }

        Interval a = load.firstHalfMedian();
        Interval b = load.secondHalfMedian();
        if (a != null && b != null && (a.high() < b.low() || b.high() < a.low())) {
            reasons.add(String.format(Locale.ROOT, "%s: median latency 95%% CI first half [%.4f, %.4f] s, second half "
                    + "[%.4f, %.4f] s do not overlap", NOT_STEADY, a.low(), a.high(), b.low(), b.high()));
        }

        long total = result.summary().requests().totalRequests();
        long failed = result.summary().requests().failedRequests();
        if (total > 0 && (double) failed / total > limits.maxErrorShare()) {
            reasons.add(String.format(Locale.ROOT, "%s: %d of %d requests failed (%.1f%%) > %s%%", ERRORS, failed,
                    total, 100.0 * failed / total, pct(limits.maxErrorShare())));
        }

        String verdict = reasons.isEmpty() ? VALID
                : String.join("; ", reasons.stream().map(r -> r.substring(0, r.indexOf(':'))).toList());
        return new PointVerdict(verdict, reasons, load.offeredRate(), load.deliveredRate(), load.dispatchLagP99Ms(),
                load.meanInFlight());
    }

    public boolean valid() {
        return VALID.equals(verdict);
    }

    /** The keys of {@code benchmark_summary.json} (docs/outputs.md). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(KEY, verdict);
        m.put(REASONS_KEY, reasons.isEmpty() ? null : String.join("; ", reasons));
        m.put(OFFERED_RATE, round(offeredRate));
        m.put(DELIVERED_RATE, round(deliveredRate));
        m.put(DISPATCH_LAG_P99, round(dispatchLagP99Ms));
        m.put(MEAN_IN_FLIGHT, round(meanInFlight));
        return m;
    }

    /** "Verdict: valid" or "Verdict: errors (errors: 12 of 100 requests failed (12.0%) > 5%)". */
    public String line() {
        return "Verdict: " + verdict + (reasons.isEmpty() ? "" : " (" + String.join("; ", reasons) + ")");
    }

    /**
     * The verdict of several points (a run): {@value #VALID} when each is, else the union of their reasons in
     * {@link #REASONS}' order; a null verdict (a point judged before verdicts existed) counts as nothing known.
     * Null when every one is null.
     */
    public static String combine(List<String> verdicts) {
        Set<String> seen = new LinkedHashSet<>();
        boolean any = false;
        for (String v : verdicts) {
            if (v == null) continue;
            any = true;
            seen.addAll(reasonsOf(v));
        }
        if (!any) return null;
        if (seen.isEmpty()) return VALID;
        return String.join("; ", REASONS.stream().filter(seen::contains).toList());
    }

    /** The reasons' names of a verdict string ({@code "errors; not-steady"}); empty for {@value #VALID} or null. */
    public static List<String> reasonsOf(String verdict) {
        if (verdict == null || verdict.isBlank() || VALID.equals(verdict.trim())) return List.of();
        List<String> out = new ArrayList<>();
        for (String part : verdict.split(";")) {
            if (!part.isBlank()) out.add(part.trim());
        }
        return out;
    }

    /** True for {@value #VALID}; false for anything else, null (unknown) included. */
    public static boolean isValid(String verdict) {
        return verdict != null && VALID.equals(verdict.trim());
    }

    private static String pct(double share) {
        return num(share * 100);
    }

    private static String num(double v) {
        return new java.math.BigDecimal(String.format(Locale.ROOT, "%.2f", v)).stripTrailingZeros().toPlainString();
    }

    private static Double round(Double v) {
        return v == null || !Double.isFinite(v) ? null : Math.round(v * 100) / 100.0;
    }
}
