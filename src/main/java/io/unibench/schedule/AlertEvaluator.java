package io.unibench.schedule;

import io.unibench.metrics.Interval;
import io.unibench.metrics.PointVerdict;
import io.unibench.store.RunStore;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Evaluates a finished (or failed) round's alert rules from its stored runs: one value per rule × target, one step
 * of {@link AlertMachine} each, incidents and history in {@link AlertStore}, and a {@link Notice} per fired,
 * reminder, resolved and no-data change enqueued in the outbox for each of the rule's channels. The targets of a
 * rule are those the round has plus those the rule has seen before (a target missing from a round is no data).
 * A threshold rule on a timing figure decides on the value's stored 95 % confidence interval
 * ({@link AlertRule#decide}): a breach only when the whole interval is beyond the threshold, and an
 * {@link AlertRule.Decision#INCONCLUSIVE} round ({@link AlertMachine#inconclusive}) when it straddles it; the interval
 * and the decision are the round's observation note and are in the notices.
 */
public final class AlertEvaluator {
    /** How many earlier values a notice lists. */
    static final int LAST_VALUES = 5;

    private final ScheduleStore store;
    private final RunStore runs;
    private final String publicUrl;

    /** @param publicUrl the service's address for links in messages ({@code https://bench.example.com}), or null */
    public AlertEvaluator(ScheduleStore store, RunStore runs, String publicUrl) {
        this.store = store;
        this.runs = runs;
        this.publicUrl = publicUrl == null || publicUrl.isBlank() ? null : publicUrl.replaceAll("/+$", "");
    }

    /**
     * One rule × target's result of the round.
     *
     * @param interval the value's 95 % confidence interval in the metric's unit, or null (none: too few requests, a
     *                 figure without one, no value)
     * @param decision a threshold rule's decision on the value, or null (no value, a regression rule, or a round
     *                 evaluated before)
     */
    public record Outcome(AlertRule rule, Target target, Observation observation, AlertState state,
                          List<AlertStore.Change> changes, Interval interval, AlertRule.Decision decision) {}

    public List<Outcome> evaluate(Schedule schedule, Round round, AlertsDocument alerts, long nowMillis)
            throws SQLException {
        RoundTargets found = RoundTargets.read(runs, round.runIds()); // a failed round may have stored some runs
        List<Outcome> out = new ArrayList<>();
        for (AlertRule rule : alerts.rules()) {
            Set<Target> targets = new LinkedHashSet<>();
            for (Target t : found.points().keySet()) if (rule.scope().matches(t)) targets.add(t);
            for (String key : store.alerts().states(schedule.name(), rule.name()).keySet()) {
                Target t = Target.parse(key);
                if (!t.key().equals(key)) store.alerts().rekey(schedule.name(), rule.name(), key, t.key());
                targets.add(t);
            }
            for (Target t : targets) {
                RoundTargets.Found f = found.points().get(t);
                Observation o = observe(rule, t, f, round, nowMillis);
                Interval ci = o.value() == null ? null : rule.metric().interval(f.point());
                out.add(step(schedule, rule, t, o, ci, alerts, round));
            }
        }
        return out;
    }

    private Observation observe(AlertRule rule, Target t, RoundTargets.Found f, Round round, long now) {
        if (f == null) {
            String why = round.status().equals(Round.FINISHED) ? "the round has no point for this target"
                    : "the round " + round.status() + (round.reason() != null ? ": " + round.reason() : "");
            return new Observation(round.roundId(), now, null, null, why);
        }
        if (f.point().summary() == null) return new Observation(round.roundId(), now, null, f.runId(), "the point did not finish");
        long ok = f.point().summary().path("Success Requests").asLong(0);
        if (ok < rule.minSuccesses()) {
            return new Observation(round.roundId(), now, null, f.runId(), "only " + ok + " successful request(s), "
                    + "fewer than min_successes " + rule.minSuccesses());
        }
        String untrusted = untrusted(rule.metric().name(), f.point().summary());
        if (untrusted != null) return new Observation(round.roundId(), now, null, f.runId(), "verdict: " + untrusted);
        Double v = rule.metric().of(f.point(), f.price());
        if (v == null) {
            return new Observation(round.roundId(), now, null, f.runId(), "the run has no " + rule.metric().label()
                    + (rule.metric().name().equals("cost_per_1k") ? " (the provider has no price)" : ""));
        }
        return new Observation(round.roundId(), now, v, f.runId(), null);
    }

    /**
     * The reasons of a point's verdict ({@link PointVerdict}) that make its value of {@code metric} untrustworthy,
     * "; "-joined, or null when none does (valid, or judged before verdicts existed): a rule never pages on such a
     * round, its value is no data. Two reasons do not silence a rule: {@code errors} for {@code success_rate} and
     * {@code error_rate} (the errors are what they measure), and {@code too-few-samples} for any rule (a round's
     * sample size is the rule's {@code min_successes}: a small inspection round's p99 has no interval, yet its
     * rules were written for it).
     */
    static String untrusted(String metric, com.fasterxml.jackson.databind.JsonNode summary) {
        List<String> reasons = new ArrayList<>(PointVerdict.reasonsOf(summary.path(PointVerdict.KEY).asText(null)));
        if (metric.equals("success_rate") || metric.startsWith("error_rate")) reasons.remove(PointVerdict.ERRORS);
        reasons.remove(PointVerdict.TOO_FEW_SAMPLES);
        return reasons.isEmpty() ? null : String.join("; ", reasons);
    }

    private Outcome step(Schedule schedule, AlertRule rule, Target t, Observation o, Interval ci, AlertsDocument alerts,
                         Round round) throws SQLException {
        AlertStore a = store.alerts();
        List<Observation> all = a.observations(schedule.name(), rule.name(), t.key(), 500);
        for (Observation seen : all) {
            if (seen.roundId().equals(o.roundId())) { // evaluated before: the state already holds this round
                return new Outcome(rule, t, seen, a.state(schedule.name(), rule.name(), t.key()), List.of(), ci, null);
            }
        }
        List<Observation> earlier = all;
        boolean breach = false;
        AlertRule.Decision decision = null;
        Observation stored = o;
        if (o.value() != null) {
            if (rule.threshold() != null) {
                decision = rule.decide(o.value(), ci);
                breach = decision == AlertRule.Decision.BREACH;
                String note = intervalNote(rule, ci, decision);
                if (note != null) stored = new Observation(o.roundId(), o.at(), o.value(), o.runId(), note);
            } else {
                Baseline b = Baseline.of(earlier, rule.regression().rounds());
                breach = b != null && b.regressed(o.value(), rule.op().higherIsWorse(), rule.regression().percent());
                stored = new Observation(o.roundId(), o.at(), o.value(), o.runId(), b == null
                        ? "no baseline yet (needs " + rule.regression().rounds() + " earlier rounds)" : b.describe());
            }
        }
        AlertState before = a.state(schedule.name(), rule.name(), t.key());
        AlertMachine.Step step = decision == AlertRule.Decision.INCONCLUSIVE ? AlertMachine.inconclusive(before)
                : AlertMachine.step(rule, before, o.value() == null, breach);
        List<AlertStore.Change> changes = a.applyRound(schedule.name(), rule, t.key(), stored, step);
        for (AlertStore.Change c : changes) {
            Notice n = notice(schedule, rule, t, stored, ci, c, earlier, round);
            for (String ch : rule.channels()) store.outbox().enqueue(schedule.name(), alerts.channels().get(ch), n, o.at());
        }
        return new Outcome(rule, t, stored, a.state(schedule.name(), rule.name(), t.key()), changes, ci, decision);
    }

    /**
     * What the interval made of a threshold rule's round, for its observation's note: "95% CI [388, 440] ms straddles
     * the threshold 400: inconclusive (neither a breach nor a recovery)"; for a timing figure without an interval,
     * that the value alone decided; null for the figures that never have one.
     */
    static String intervalNote(AlertRule rule, Interval ci, AlertRule.Decision decision) {
        String threshold = "the threshold " + Numbers.format(rule.threshold());
        if (ci == null) {
            return rule.metric().hasInterval() ? "no 95% CI (too few requests for one): the value alone decided" : null;
        }
        String interval = "95% CI " + intervalText(ci) + " " + rule.metric().unit();
        return switch (decision) {
            case BREACH -> interval + " wholly beyond " + threshold + ": a breach";
            case CLEAR -> interval + " wholly within " + threshold;
            case INCONCLUSIVE -> interval + " straddles " + threshold + ": inconclusive (neither a breach nor a recovery)";
        };
    }

    /** {@code [388, 440]}. */
    public static String intervalText(Interval ci) {
        return "[" + Numbers.format(ci.low()) + ", " + Numbers.format(ci.high()) + "]";
    }

    private Notice notice(Schedule s, AlertRule rule, Target t, Observation o, Interval ci, AlertStore.Change c,
                          List<Observation> earlier, Round round) {
        List<Double> last = new ArrayList<>();
        for (int i = Math.min(LAST_VALUES - 1, earlier.size()) - 1; i >= 0; i--) last.add(earlier.get(i).value());
        last.add(o.value());
        Incident inc = c.incident();
        int rounds = 1 + (int) earlier.stream().filter(x -> x.at() >= inc.openedAt()).count();
        if (c.event() == AlertMachine.Event.NO_DATA) rounds = Math.max(rounds, rule.noDataRounds());
        String runUrl = publicUrl != null && o.runId() != null ? publicUrl + "/runs/" + o.runId() : null;
        String kind = c.event().name().toLowerCase(java.util.Locale.ROOT);
        return new Notice(kind, s.name(), rule.name(), rule.condition(), rule.metric().unit(), t, o.value(),
                rule.threshold(), inc.worstValue(), Collections.unmodifiableList(last), inc.openedAt(), o.at(), rounds,
                round.roundId(), o.runId(), runUrl, rule.metric().label(), null, // language: the channel's, at enqueue
                o.value() == null || ci == null ? null : ci.toList());
    }

    /** The last K values of a target: their median and range (the run-to-run spread). */
    record Baseline(int rounds, double median, double min, double max) {
        static Baseline of(List<Observation> newestFirst, int k) {
            List<Double> v = new ArrayList<>();
            for (Observation o : newestFirst) {
                if (o.value() != null) v.add(o.value());
                if (v.size() == k) break;
            }
            if (v.size() < k) return null;
            Collections.sort(v);
            double median = k % 2 == 1 ? v.get(k / 2) : (v.get(k / 2 - 1) + v.get(k / 2)) / 2;
            return new Baseline(k, median, v.getFirst(), v.getLast());
        }

        boolean regressed(double value, boolean higherIsWorse, double percent) {
            if (higherIsWorse) return value > median * (1 + percent / 100) && value > max;
            return value < median * (1 - percent / 100) && value < min;
        }

        String describe() {
            return "baseline of " + rounds + " rounds: median " + Numbers.format(median) + ", range "
                    + Numbers.format(min) + " … " + Numbers.format(max);
        }
    }
}
