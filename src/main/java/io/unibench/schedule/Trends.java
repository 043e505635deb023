package io.unibench.schedule;

import io.unibench.BadInputException;
import io.unibench.store.RunStore;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One metric of a schedule over time: a series per target (provider × model × scenario × level, one point per round
 * that has it), the threshold of every rule on that metric, and the rules' fired/resolved moments. Read from the
 * stored runs of the rounds (newest {@code limit} rounds), so the chart shows what the rules saw.
 */
public final class Trends {
    private Trends() {}

    public record Point(String roundId, long at, double value, String runId) {}

    /** @param label the target as messages name it ({@link Target#display()}: its level as labelled) */
    public record Series(Target target, String label, List<Point> points) {}

    public record Threshold(String rule, double value) {}

    /** A rule firing or resolving for a target ({@code target} its key, {@code label} as messages name it). */
    public record Mark(String rule, String target, String label, String kind, long at, Double value) {}

    public record Trend(String schedule, String metric, String unit, List<Series> series, List<Threshold> thresholds,
                        List<Mark> marks) {}

    public static Trend of(ScheduleStore store, RunStore runs, String schedule, String metricName, String errorClass,
                           int limit) throws SQLException {
        Schedule s = store.get(schedule);
        if (!Metric.known(metricName)) {
            throw new BadInputException("metric '" + metricName + "': not a metric short name ({ttft,latency,tpot,itl}_"
                    + "{p50,p90,p95,p99,mean}_{ms,s}, " + String.join(", ", Metric.SIMPLE) + ")");
        }
        Metric metric = new Metric(metricName, metricName.equals("error_rate") ? errorClass : null);
        Map<Target, List<Point>> byTarget = new LinkedHashMap<>();
        for (Round r : store.rounds(schedule, limit).reversed()) {
            if (r.runIds().isEmpty()) continue;
            RoundTargets found;
            try {
                found = RoundTargets.read(runs, r.runIds());
            } catch (BadInputException deleted) { // a run deleted from the history since: its round has no points
                continue;
            }
            long at = r.startedAt() != null ? r.startedAt() : r.dueAt();
            found.points().forEach((t, f) -> {
                Double v = metric.of(f.point(), f.price());
                if (v != null) byTarget.computeIfAbsent(t, k -> new ArrayList<>()).add(new Point(r.roundId(), at, v, f.runId()));
            });
        }
        List<Series> series = new ArrayList<>();
        byTarget.forEach((t, p) -> series.add(new Series(t, t.display(), p)));
        List<Threshold> thresholds = new ArrayList<>();
        List<String> rules = new ArrayList<>();
        try {
            for (AlertRule rule : ScheduleDocument.alerts(s, store.rules(schedule)).rules()) {
                if (!rule.metric().equals(metric)) continue;
                rules.add(rule.name());
                if (rule.threshold() != null) thresholds.add(new Threshold(rule.name(), rule.threshold()));
            }
        } catch (BadInputException unreadable) {
            // the chart still shows the values; schedule show says why the rules cannot be read
        }
        List<Mark> marks = new ArrayList<>();
        for (AlertStore.HistoryEvent e : store.alerts().events(schedule)) {
            if (rules.contains(e.rule()) && (e.kind().equals("fired") || e.kind().equals("resolved"))) {
                marks.add(new Mark(e.rule(), e.target(), Target.display(e.target()), e.kind(), e.at(), e.value()));
            }
        }
        return new Trend(schedule, metric.label(), metric.unit(), series, thresholds, marks);
    }
}
