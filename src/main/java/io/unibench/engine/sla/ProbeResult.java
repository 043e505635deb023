package io.unibench.engine.sla;

import io.unibench.metrics.RunResult;

import java.util.List;

/**
 * Every run at one value of the tuned variable. Decisions use the mean over the runs (evalscope's averaging); the
 * runs' range tells whether a decision is firmer than run-to-run noise.
 *
 * @param value the concurrency or rate
 * @param runs  its runs' results, in order
 */
public record ProbeResult(int value, List<RunResult> runs) {
    public ProbeResult {
        runs = List.copyOf(runs);
    }

    /** Every request of every run succeeded (evalscope's gate: a probe with a failure never passes). */
    public boolean allSucceeded() {
        return runs.stream().allMatch(r -> r.summary().requests().totalRequests() > 0
                && r.summary().requests().successRequests() == r.summary().requests().totalRequests());
    }

    public long totalRequests() {
        return runs.stream().mapToLong(r -> r.summary().requests().totalRequests()).sum();
    }

    public long succeededRequests() {
        return runs.stream().mapToLong(r -> r.summary().requests().successRequests()).sum();
    }

    /** The mean of the metric over the runs; null when a run lacks it. */
    public Double mean(SlaMetric m) {
        double sum = 0;
        for (RunResult r : runs) {
            Double v = m.of(r);
            if (v == null) return null;
            sum += v;
        }
        return sum / runs.size();
    }

    public Double min(SlaMetric m) {
        return runs.stream().map(m::of).map(v -> v == null ? Double.NaN : v).reduce(Math::min).filter(Double::isFinite)
                .orElse(null);
    }

    public Double max(SlaMetric m) {
        return runs.stream().map(m::of).map(v -> v == null ? Double.NaN : v).reduce(Math::max).filter(Double::isFinite)
                .orElse(null);
    }

    /** The group holds: every request succeeded and every criterion holds on the mean. */
    public boolean passes(List<SlaCriterion> group) {
        if (!allSucceeded()) return false;
        for (SlaCriterion c : group) {
            Double v = mean(c.metric());
            if (v == null || !c.holds(v)) return false;
        }
        return true;
    }

    /**
     * The criteria of the group that some runs meet and others miss: the verdict on the mean is within run-to-run
     * spread. Empty with one run (no spread measured) or when every run agrees.
     */
    public List<SlaCriterion> undecided(List<SlaCriterion> group) {
        if (runs.size() < 2 || !allSucceeded()) return List.of();
        return group.stream().filter(c -> !c.op().optimizes()).filter(c -> {
            long held = runs.stream().map(r -> c.metric().of(r)).filter(v -> v != null && c.holds(v)).count();
            return held > 0 && held < runs.size();
        }).toList();
    }

    /** {@code p99_latency 0.102–0.211 s} for the criteria given. */
    public String spread(List<SlaCriterion> criteria) {
        return String.join(", ", criteria.stream().map(c -> c.metric().key() + " " + c.metric().format(min(c.metric()))
                + "–" + c.metric().format(max(c.metric()))).toList());
    }
}
