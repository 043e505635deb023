package io.unibench.engine.sla;

import io.unibench.metrics.RunResult;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * evalscope's SLA auto-tune over integer values of one variable (concurrency or rate), driving an {@link SlaProbe}.
 *
 * <p>A criterion group is tuned on its own, assuming it holds up to some value and not beyond (monotonic): from the
 * start value, double while it holds (to the upper bound), or halve while it does not (to the lower bound), then
 * binary-search the integers between the last value that held and the first that did not. A value holds when every
 * request of its {@code runs} runs succeeded and every criterion holds on the mean over the runs. A single
 * {@code max}/{@code min} criterion instead looks for the value with the best mean, assuming one peak: doubling (or
 * halving) while the metric does not get worse, then a search by neighbour comparison between the grid points around
 * the best.
 *
 * <p>Beyond evalscope: where runs of a value disagree on a criterion (some meet it, some miss), the decision at that
 * value is within run-to-run spread, and the selection's note says so instead of presenting a noisy boundary as exact.
 * Every value is run once (its runs cached) whatever the number of groups.
 */
public final class SlaTuner {
    private final String variable;
    private final SlaParams params;
    private final int lower;
    private final int upper;
    private final int runs;
    private final SlaProbe probe;
    private final TreeMap<Integer, ProbeResult> cache = new TreeMap<>();
    private java.util.function.Consumer<Progress> beforeProbe = p -> {};
    private int runsDone;
    private int groupIndex; // the constraint group being tuned, from 0
    private Integer held; // the group's largest value known to hold, null none yet (or while optimizing)
    private Integer failed; // its smallest value known not to hold, null none yet

    /**
     * Where the search is when a probe starts: the number of probes is not known in advance (it depends on the
     * results), so this says what is done and what is left open instead of a share of a total.
     *
     * @param valuesDone values whose every run has finished
     * @param runsDone   probe runs finished
     * @param value      the value being probed, and {@code run} its run (from 0) of {@code runs}
     * @param group      the criteria group being tuned (from 0) of {@code groups}; null for a max/min search
     * @param held       the group's largest value known to meet its criteria, null none yet
     * @param failed     its smallest value known not to, null none yet
     * @param lower      the search's bounds, {@code upper} the other
     */
    public record Progress(String variable, int valuesDone, int runsDone, int value, int run, int runs, Integer group,
                           int groups, Integer held, Integer failed, int lower, int upper) {
        /** {@code probe 5: parallel 8, run 1 of 2; 3 value(s) done; holds at 4, fails at 16: the limit is in [4, 15]}. */
        public String describe() {
            String head = "probe " + (runsDone + 1) + ": " + variable + " " + value + ", run " + (run + 1) + " of " + runs
                    + "; " + valuesDone + " value(s) done; ";
            if (group == null) return head + "looking for the best value in [" + lower + ", " + upper + "]";
            int low = held != null ? held : lower;
            int high = failed != null ? failed - 1 : upper;
            return head + (groups > 1 ? "group " + (group + 1) + " of " + groups + ": " : "")
                    + (held != null ? "holds at " + held : "none held yet") + ", "
                    + (failed != null ? "fails at " + failed : "none failed yet") + ": the limit is "
                    + (low > high ? "none" : "in [" + low + ", " + high + "]" + (held == null ? " or none" : ""));
        }
    }

    /** Thrown through the search when the probe reports a stop. */
    private static final class Stopped extends RuntimeException {
        Stopped() {
            super(null, null, false, false);
        }
    }

    public SlaTuner(String variable, SlaParams params, int lower, int upper, int runs, SlaProbe probe) {
        if (lower < 1 || upper < lower) throw new IllegalArgumentException("need 1 <= lower <= upper: " + lower + ", " + upper);
        if (runs < 1) throw new IllegalArgumentException("runs must be >= 1: " + runs);
        this.variable = variable;
        this.params = params;
        this.lower = lower;
        this.upper = upper;
        this.runs = runs;
        this.probe = probe;
    }

    /** Tunes every group from {@code start} (clamped to the bounds). */
    public SlaTuning tune(int start) throws Exception {
        return tune(start, p -> {});
    }

    /** {@link #tune(int)}, telling {@code beforeProbe} where the search is as each probe run starts. */
    public SlaTuning tune(int start, java.util.function.Consumer<Progress> beforeProbe) throws Exception {
        this.beforeProbe = beforeProbe;
        int s = Math.max(lower, Math.min(start, upper));
        List<SlaTuning.Selection> selections = new ArrayList<>();
        boolean stopped = false;
        try {
            SlaCriterion optimization = params.optimization();
            if (optimization != null) {
                selections.add(optimize(s, optimization));
            } else {
                for (List<SlaCriterion> group : params.groups()) {
                    selections.add(constrain(s, group));
                    groupIndex++;
                }
            }
        } catch (Stopped e) {
            stopped = true;
        } catch (WrappedException e) {
            throw e.cause;
        }
        return new SlaTuning(variable, List.copyOf(cache.values()), selections, stopped);
    }

    /** The probe of a value: its runs, run once and cached. */
    private ProbeResult at(int value) {
        ProbeResult cached = cache.get(value);
        if (cached != null) return cached;
        List<RunResult> results = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            RunResult r;
            beforeProbe.accept(new Progress(variable, cache.size(), runsDone, value, i, runs,
                    params.optimization() != null ? null : groupIndex, params.groups().size(), held, failed, lower, upper));
            try {
                r = probe.run(value, i);
            } catch (Exception e) {
                throw new WrappedException(e);
            }
            if (r == null) throw new Stopped();
            runsDone++;
            results.add(r);
        }
        ProbeResult p = new ProbeResult(value, results);
        cache.put(value, p);
        return p;
    }

    private SlaTuning.Selection constrain(int start, List<SlaCriterion> group) {
        String criteria = SlaParams.describe(group);
        int pass; // holds
        int fail; // the smallest value known not to hold; upper + 1 when none
        bracket(0, upper + 1);
        if (at(start).passes(group)) {
            pass = start;
            fail = upper + 1;
            bracket(pass, fail);
            while (pass < upper) {
                int next = (int) Math.min((long) pass * 2, upper);
                if (!at(next).passes(group)) {
                    fail = next;
                    break;
                }
                pass = next;
                bracket(pass, fail);
            }
        } else {
            fail = start;
            pass = 0;
            bracket(pass, fail);
            while (fail > lower) {
                int next = Math.max(fail / 2, lower);
                if (at(next).passes(group)) {
                    pass = next;
                    break;
                }
                fail = next;
                bracket(pass, fail);
            }
            if (pass == 0) {
                return new SlaTuning.Selection(criteria, null, "Failed at the lower bound (" + lower + ")"
                        + noise(group, at(lower), null));
            }
        }
        while (fail - pass > 1) {
            bracket(pass, fail);
            int mid = pass + (fail - pass) / 2;
            if (at(mid).passes(group)) pass = mid;
            else fail = mid;
        }
        String note = fail > upper ? "Holds at the upper bound (" + upper + "); the limit may be higher"
                : variable + " " + fail + " does not hold";
        return new SlaTuning.Selection(criteria, pass, note + noise(group, at(pass), fail > upper ? null : at(fail)));
    }

    /** What the group's probes have decided so far: {@code pass} 0 and {@code fail} {@code upper + 1} are none yet. */
    private void bracket(int pass, int fail) {
        held = pass == 0 ? null : pass;
        failed = fail > upper ? null : fail;
    }

    /** The note's second half: which boundary values the runs disagree on, or that no spread was measured. */
    private String noise(List<SlaCriterion> group, ProbeResult held, ProbeResult missed) {
        if (runs == 1) return " (1 run per value: run-to-run spread not measured)";
        List<String> undecided = new ArrayList<>();
        for (ProbeResult p : new ProbeResult[] {held, missed}) {
            if (p == null) continue;
            List<SlaCriterion> u = p.undecided(group);
            if (!u.isEmpty()) undecided.add(variable + " " + p.value() + ": " + p.spread(u));
        }
        if (undecided.isEmpty()) return "";
        return "; within run-to-run spread, indistinguishable by " + runs + " runs (" + String.join("; ", undecided)
                + "): raise --sla-num-runs";
    }

    private SlaTuning.Selection optimize(int start, SlaCriterion c) {
        boolean max = c.op() == SlaCriterion.Op.MAX;
        int cur = start;
        while (cur < upper) {
            int next = (int) Math.min((long) cur * 2, upper);
            if (!notWorse(score(next, c), score(cur, c), max)) break;
            cur = next;
        }
        if (cur == start) {
            while (cur > lower) {
                int next = Math.max(cur / 2, lower);
                if (!notWorse(score(next, c), score(cur, c), max)) break;
                cur = next;
            }
        }
        int lo = Math.max(lower, cur / 2);
        int hi = (int) Math.min((long) cur * 2, upper);
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (notWorse(score(mid, c), score(mid + 1, c), max)) hi = mid;
            else lo = mid + 1;
        }
        ProbeResult best = null;
        for (ProbeResult p : cache.values()) {
            Double v = p.allSucceeded() ? p.mean(c.metric()) : null;
            if (v == null) continue;
            if (best == null || (max ? v > best.mean(c.metric()) : v < best.mean(c.metric()))) best = p;
        }
        if (best == null) {
            return new SlaTuning.Selection(c.describe(), null, "No value had every request succeed with the metric");
        }
        String note = "Best " + c.metric().key() + ": " + c.metric().format(best.mean(c.metric()));
        if (runs == 1) return new SlaTuning.Selection(c.describe(), best.value(), note + " (1 run per value: "
                + "run-to-run spread not measured)");
        List<String> close = new ArrayList<>();
        for (ProbeResult p : cache.values()) {
            if (p == best || !p.allSucceeded() || p.min(c.metric()) == null) continue;
            boolean overlaps = p.min(c.metric()) <= best.max(c.metric()) && p.max(c.metric()) >= best.min(c.metric());
            if (overlaps) close.add(Integer.toString(p.value()));
        }
        if (!close.isEmpty()) {
            note += "; within run-to-run spread of " + variable + " " + String.join(", ", close)
                    + " (their runs' ranges overlap the best's)";
        }
        return new SlaTuning.Selection(c.describe(), best.value(), note);
    }

    private Double score(int value, SlaCriterion c) {
        ProbeResult p = at(value);
        return p.allSucceeded() ? p.mean(c.metric()) : null;
    }

    private static boolean notWorse(Double candidate, Double baseline, boolean max) {
        if (candidate == null) return false;
        if (baseline == null) return true;
        return max ? candidate >= baseline : candidate <= baseline;
    }

    /** A probe's own exception, carried through the search unchanged. */
    private static final class WrappedException extends RuntimeException {
        final Exception cause;

        WrappedException(Exception cause) {
            super(null, null, false, false);
            this.cause = cause;
        }
    }
}
