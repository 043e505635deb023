package io.unibench.metrics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Groups the records of a multi-turn run by conversation and turn position (evalscope §5.3 plus the by-turn-position
 * table). Not thread-safe: {@link RunMetrics} calls it under its lock. One small object per conversation and per turn
 * position; records themselves are not kept.
 */
final class TraceAggregator {
    private static final double NANOS_PER_SECOND = 1e9;

    /** Running state of one conversation: every record counts it, its successful turns (in order) fill the figures. */
    private static final class Trace {
        long firstStart;
        double firstTtft;
        long lastEnd;
        long lastStart;
        double lastTtft;
        double decodeTpsSum;
        int decodeTpsCount;
        long prompt;
        long cached;
        long eligibleCached;
        long eligible;
        long prevPrompt;
        long prevCompletion;
        int turns;
        long completion;
        long modelNanos;
    }

    private static final class Position {
        long requests;
        long succeeded;
        long promptSum;
        long cacheRecords;
        long cachePromptSum;
        long cachedSum;
        final Distribution ttftMs = new Distribution();
    }

    private final Map<String, Trace> traces = new LinkedHashMap<>();
    private final List<Position> positions = new ArrayList<>();
    private long completed;

    boolean any() {
        return !positions.isEmpty();
    }

    void accept(RequestRecord r) {
        if (r.position().conversationId() == null) return;
        while (positions.size() <= r.position().turnIndex()) positions.add(new Position());
        Position pos = positions.get(r.position().turnIndex());
        pos.requests++;
        // every conversation that sent a turn is a trace, so traces = completed + abandoned (a failed first turn too)
        Trace t = traces.computeIfAbsent(r.position().conversationId(), id -> new Trace());
        if (!r.success()) return;
        if (r.position().lastTurn()) completed++;
        int prompt = Math.max(r.tokens().prompt(), 0);
        int completion = Math.max(r.tokens().completion(), 0);
        double ttft = r.ttftSeconds();
        pos.succeeded++;
        pos.promptSum += prompt;
        if (!Double.isNaN(ttft)) pos.ttftMs.add(ttft * 1000);
        if (r.tokens().cached() >= 0) {
            pos.cacheRecords++;
            pos.cachePromptSum += prompt;
            pos.cachedSum += r.tokens().cached();
        }

        if (t.turns == 0) {
            t.firstStart = r.timing().startNanos();
            t.firstTtft = ttft;
        }
        t.lastEnd = r.timing().endNanos();
        t.lastStart = r.timing().startNanos();
        t.lastTtft = ttft;
        double decodeSeconds = r.latencySeconds() - ttft;
        if (completion > 1 && decodeSeconds > 0) {
            t.decodeTpsSum += (completion - 1) / decodeSeconds;
            t.decodeTpsCount++;
        }
        int cached = Math.max(r.tokens().cached(), 0);
        t.prompt += prompt;
        t.cached += cached;
        // eligible = the previous turn's context, what this conversation left in the cache; hits beyond it (a prefix
        // shared with other conversations, a conversation replayed earlier) are not its own, so the rate stays ≤ 100 %
        long eligible = t.prevPrompt + t.prevCompletion;
        if (eligible > 0) {
            t.eligible += eligible;
            t.eligibleCached += Math.min(cached, eligible);
        }
        t.prevPrompt = prompt;
        t.prevCompletion = completion;
        t.turns++;
        t.completion += completion;
        t.modelNanos += r.timing().endNanos() - r.timing().startNanos();
    }

    TraceSummary summary() {
        return summary(0);
    }

    /** @param wallSeconds the run's wall time, for traces/s (0 = unknown) */
    TraceSummary summary(double wallSeconds) {
        // the figures come from traces with a successful turn; the counts from all of them
        List<Trace> sent = traces.values().stream().filter(t -> t.turns > 0).toList();
        int n = sent.size();
        List<String> metrics = new ArrayList<>(TraceSummary.METRICS);
        metrics.addAll(TraceSummary.EXTRA_METRICS);
        double[][] values = new double[metrics.size()][];
        for (int m = 0; m < values.length; m++) values[m] = new double[n];
        int i = 0;
        for (Trace t : sent) {
            values[0][i] = (t.lastEnd - t.firstStart) / NANOS_PER_SECOND;
            values[1][i] = t.firstTtft;
            values[2][i] = (t.lastStart - t.firstStart) / NANOS_PER_SECOND + t.lastTtft;
            values[3][i] = t.decodeTpsCount > 0 ? t.decodeTpsSum / t.decodeTpsCount : Double.NaN;
            values[4][i] = t.prompt > 0 ? 100.0 * t.cached / t.prompt : Double.NaN;
            values[5][i] = t.eligible > 0 ? 100.0 * t.eligibleCached / t.eligible : Double.NaN;
            double latency = values[0][i];
            double model = t.modelNanos / NANOS_PER_SECOND;
            values[6][i] = t.turns;
            values[7][i] = t.completion;
            values[8][i] = t.turns > 0 ? (double) t.completion / t.turns : Double.NaN;
            values[9][i] = model;
            values[10][i] = Math.max(0, latency - model);
            values[11][i] = latency > 0 ? 100.0 * Math.max(0, latency - model) / latency : Double.NaN;
            i++;
        }
        List<TraceSummary.Row> rows = new ArrayList<>();
        for (int m = 0; m < values.length; m++) rows.add(row(metrics.get(m), values[m]));
        Double perSecond = wallSeconds > 0 ? Rounding.round(completed / wallSeconds, 4) : null;
        return new TraceSummary(traces.size(), completed, traces.size() - completed, rows, perSecond);
    }

    List<TurnPositionRow> positions() {
        List<TurnPositionRow> rows = new ArrayList<>(positions.size());
        for (int p = 0; p < positions.size(); p++) {
            Position pos = positions.get(p);
            Distribution ttft = pos.ttftMs;
            boolean any = ttft.count() > 0;
            rows.add(new TurnPositionRow(p + 1, pos.requests, pos.succeeded,
                    pos.succeeded == 0 ? null : Rounding.round((double) pos.promptSum / pos.succeeded, 4),
                    any ? Rounding.round(ttft.mean(), 2) : null,
                    any ? Rounding.round(ttft.nearestRankHigh(50), 2) : null,
                    any ? Rounding.round(ttft.nearestRankHigh(90), 2) : null,
                    any ? Rounding.round(ttft.nearestRankHigh(99), 2) : null,
                    pos.cachePromptSum > 0 ? Rounding.round(100.0 * pos.cachedSum / pos.cachePromptSum, 4) : null));
        }
        return rows;
    }

    private static TraceSummary.Row row(String metric, double[] raw) {
        double[] v = Arrays.stream(raw).filter(Double::isFinite).sorted().toArray();
        if (v.length == 0) return new TraceSummary.Row(metric, 0, null, null, null, null, null, null, null);
        return new TraceSummary.Row(metric, v.length, r4(Arrays.stream(v).sum() / v.length), r4(v[0]),
                r4(Percentiles.linear(v, 50)), r4(Percentiles.linear(v, 90)), r4(Percentiles.linear(v, 95)),
                r4(Percentiles.linear(v, 99)), r4(v[v.length - 1]));
    }

    private static Double r4(double v) {
        return Rounding.round(v, 4);
    }
}
