package io.unibench.metrics;

import static io.unibench.Moments.ABSENT;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Aggregates the records of one run incrementally. {@link #accept} is O(chunks of the record): it adds to running
 * sums and to one {@link Distribution} per metric (no object kept per request), so nothing is recomputed per
 * request (evalscope recomputes its whole snapshot per request, O(n²)). Percentiles are computed only when
 * {@link #result} is called: exact up to {@link Distribution#EXACT_LIMIT} samples of a metric, from a histogram of
 * documented precision past that, so memory stops growing however long the run (the summary's
 * {@code Percentile Method} says which columns were exact). Thread-safe: one lock, held briefly.
 *
 * <p>What counts where (S = successes, SS = streamed successes):
 * <ul>
 *   <li>wall = max(end) − min(start) over all records, failures included;</li>
 *   <li>latency, tokens, throughputs: S; TTFT and first chunk: SS (all S when nothing streamed, where they equal
 *       latency); TPOT: SS with ≥ 2 completion tokens and a first token ({@link RequestRecord#tpotSeconds()});</li>
 *   <li>ITL: every interval between text-carrying chunks of S, pooled; per-token ITL divides each interval by
 *       its request's {@link RequestRecord#tokensPerChunk()} (requests where that is undefined are left out);</li>
 *   <li>cache hit rate: S with {@code cachedTokens ≥ 0} only, 100·Σcached/Σprompt;</li>
 *   <li>queue delay, latency and TTFT incl. queue: S with a scheduled time (open loop / --rate).</li>
 * </ul>
 */
public final class RunMetrics implements RecordSink {

    private static final double NANOS_PER_SECOND = 1e9;
    private static final String UNKNOWN_ERROR = "unknown";

    private final Object lock = new Object();

    // Counts over all records.
    private long total;
    private long succeeded;
    /** Cancelled by the benchmark's stop (Ctrl-C): no outcome, so neither a success nor a failure. */
    private long cancelled;
    private long streamTotal;
    private long nonStreamTotal;
    private long streamSucceeded;
    private boolean scheduled;
    private long minStartNanos = Long.MAX_VALUE;
    private long maxEndNanos = Long.MIN_VALUE;

    // Sums over successes (also serve the cheap live view).
    private double latencySum;
    private long promptSum;
    private long completionSum;
    private double ttftStreamSumMs;
    private long ttftStreamCount;
    private final EnumMap<RequestRecord.TokenSource, Long> tokenSources = new EnumMap<>(RequestRecord.TokenSource.class);

    // Samples of successes, for the percentiles at the end.
    private final Distribution latencySeconds = new Distribution();
    private final Distribution promptTokens = new Distribution();
    /** Input tokens per second of each request (evalscope's embedding/rerank "Input (tok/s)"). */
    private final Distribution inputTokensPerSecond = new Distribution();
    private final Distribution completionTokens = new Distribution();
    private final Distribution ttftMs = new Distribution(); // streamed successes with a first token
    private final Distribution firstChunkMs = new Distribution(); // streamed successes with a first chunk
    private final Distribution tpotMs = new Distribution();
    private final Distribution itlMs = new Distribution();
    /**
     * Per-token ITL. While every request with intervals streamed exactly one token per chunk it equals
     * {@link #itlMs} and is not kept twice ({@code null}); the first request with another ratio starts it from a
     * copy of {@link #itlMs}.
     */
    private Distribution itlPerTokenMs;
    private final Distribution outputTokensPerSecond = new Distribution(); // completion / latency, latency > 0
    private final Distribution totalTokensPerSecond = new Distribution(); // (prompt + completion) / latency
    private final Distribution decodeTokensPerSecond = new Distribution(); // 1000 / TPOT ms, TPOT > 0
    private final Distribution queueDelayMs = new Distribution();
    private final Distribution latencyInclQueueSeconds = new Distribution();
    private final Distribution ttftInclQueueMs = new Distribution();
    // Reasoning models: time to the first content token and the answer's TPOT (streamed successes).
    private boolean reasoning;
    private final Distribution ttfctMs = new Distribution();
    private final Distribution answerTpotMs = new Distribution();
    private long reasoningTokenSum;
    private long reasoningTokenRecords;

    // Prefix cache: only successes whose server reported cached tokens.
    private long cacheRecords;
    private long cachePromptSum;
    private long cachedSum;

    // Which cached-token figures were the server's and which the client's multi-turn estimate.
    private final EnumMap<RequestRecord.CacheSource, Long> cacheSources = new EnumMap<>(RequestRecord.CacheSource.class);
    // ... and by the reply's member (Tokens.cachedSourceLabel: a handful of constant strings)
    private final Map<String, Long> cachedFields = new HashMap<>();

    // Multi-turn (records with a conversation id): per conversation and per turn position.
    private final TraceAggregator traces = new TraceAggregator();
    private long turnSum;
    private long multiTurnSuccesses;
    private double firstTurnTtftSumMs;
    private long firstTurnCount;
    private double subsequentTurnTtftSumMs;
    private long subsequentTurnCount;

    // Speculative decoding estimate: mean tokens per chunk over requests where it exceeds 1.
    private double decodedPerIterSum;
    private long decodedPerIterCount;

    // Workload timeline: cumulative tokens after each success in arrival order (bounded, see TimelineSampler).
    private final TimelineSampler timeline = new TimelineSampler();

    // Connection and transfer phases of successes.
    private final PhaseStats phases = new PhaseStats();

    // The server's own timing (llama.cpp timings) beside the client's.
    private final ServerTimingStats serverTimings = new ServerTimingStats();

    // Failures.
    private final Map<String, Long> errorCounts = new HashMap<>();
    private final Map<String, String> errorSamples = new HashMap<>();
    /** Error class → the server's error type → count. */
    private final Map<String, Map<String, Long>> errorTypeCounts = new HashMap<>();

    @Override
    public void accept(RequestRecord r) {
        synchronized (lock) {
            total++;
            if (r.timing().stream()) streamTotal++;
            else nonStreamTotal++;
            if (r.timing().scheduledNanos() != ABSENT) scheduled = true;
            if (r.timing().startNanos() != ABSENT) {
                minStartNanos = Math.min(minStartNanos, r.timing().startNanos());
                if (r.timing().endNanos() != ABSENT) maxEndNanos = Math.max(maxEndNanos, r.timing().endNanos());
            }
            if (r.success()) acceptSuccess(r);
            else acceptFailure(r);
            traces.accept(r);
            phases.accept(r);
        }
    }

    private void acceptFailure(RequestRecord r) {
        if (r.outcome().cancelled()) {
            cancelled++;
            return;
        }
        String cls = r.outcome().errorClass() == null ? UNKNOWN_ERROR : r.outcome().errorClass();
        errorCounts.merge(cls, 1L, Long::sum);
        if (r.outcome().errorMessage() != null) errorSamples.putIfAbsent(cls, r.outcome().errorMessage());
        if (r.outcome().errorType() != null) {
            errorTypeCounts.computeIfAbsent(cls, k -> new HashMap<>()).merge(r.outcome().errorType(), 1L, Long::sum);
        }
    }

    private void acceptSuccess(RequestRecord r) {
        succeeded++;
        serverTimings.accept(r);
        int prompt = Math.max(r.tokens().prompt(), 0);
        int completion = Math.max(r.tokens().completion(), 0);
        double latency = r.latencySeconds();
        latencySum += latency;
        promptSum += prompt;
        completionSum += completion;
        latencySeconds.add(latency);
        promptTokens.add(prompt);
        completionTokens.add(completion);
        if (latency > 0) {
            outputTokensPerSecond.add(completion / latency);
            totalTokensPerSecond.add((prompt + (double) completion) / latency);
            inputTokensPerSecond.add(prompt / latency);
        }
        if (r.tokens().source() != null) tokenSources.merge(r.tokens().source(), 1L, Long::sum);
        if (r.tokens().reasoning() > 0) {
            reasoningTokenSum += r.tokens().reasoning();
            reasoningTokenRecords++;
        }

        double ttft = r.ttftSeconds();
        if (r.timing().stream()) {
            streamSucceeded++;
            if (!Double.isNaN(ttft)) {
                ttftMs.add(ttft * 1000);
                ttftStreamSumMs += ttft * 1000;
                ttftStreamCount++;
            }
            double firstChunk = r.firstChunkSeconds();
            if (!Double.isNaN(firstChunk)) firstChunkMs.add(firstChunk * 1000);
            if (r.timing().reasonedFirst() || r.tokens().reasoned()) reasoning = true;
            addIfDefined(ttfctMs, r.ttfctSeconds() * 1000);
            addIfDefined(answerTpotMs, r.answerTpotSeconds() * 1000);
            double tpot = r.tpotSeconds();
            if (!Double.isNaN(tpot)) {
                double ms = tpot * 1000;
                tpotMs.add(ms);
                if (ms > 0) decodeTokensPerSecond.add(1000 / ms);
            }
        }

        double tokensPerChunk = r.tokensPerChunk();
        int intervals = r.interChunkCount();
        if (intervals > 0) {
            if (itlPerTokenMs == null && tokensPerChunk != 1.0) itlPerTokenMs = itlMs.copy(); // all so far were 1
            boolean perToken = itlPerTokenMs != null && tokensPerChunk > 0; // undefined ratios are left out
            itlMs.addIntervalsMs(r.timing().tokenChunkNanos(), intervals);
            if (perToken) {
                for (int i = 0; i < intervals; i++) itlPerTokenMs.add(r.interChunkSeconds(i) * 1000 / tokensPerChunk);
            }
        }
        if (tokensPerChunk > 1) {
            decodedPerIterSum += tokensPerChunk;
            decodedPerIterCount++;
        }

        if (r.timing().scheduledNanos() != ABSENT) {
            addIfDefined(queueDelayMs, r.queueDelaySeconds() * 1000);
            addIfDefined(latencyInclQueueSeconds, r.scheduledLatencySeconds());
            addIfDefined(ttftInclQueueMs, r.scheduledTtftSeconds() * 1000);
        }

        int cached = Math.max(r.tokens().cached(), 0);
        if (r.tokens().cached() >= 0) {
            cacheRecords++;
            cachePromptSum += prompt;
            cachedSum += r.tokens().cached();
            if (r.tokens().cachedSource() != null) cacheSources.merge(r.tokens().cachedSource(), 1L, Long::sum);
            String field = r.tokens().cachedSourceLabel();
            if (field != null) cachedFields.merge(field, 1L, Long::sum);
        }

        if (r.position().conversationId() != null) {
            multiTurnSuccesses++;
            turnSum += r.position().turnIndex() + 1L;
            if (!Double.isNaN(ttft)) {
                if (r.position().turnIndex() == 0) {
                    firstTurnTtftSumMs += ttft * 1000;
                    firstTurnCount++;
                } else {
                    subsequentTurnTtftSumMs += ttft * 1000;
                    subsequentTurnCount++;
                }
            }
        }

        if (r.timing().startNanos() != ABSENT && r.timing().endNanos() != ABSENT) {
            timeline.add(r.timing().startNanos(), r.timing().endNanos(), completion, prompt, cached);
        }
    }

    private static void addIfDefined(Distribution values, double v) {
        if (!Double.isNaN(v)) values.add(v);
    }

    /** Requests recorded so far, failures included. */
    public long total() {
        synchronized (lock) {
            return total;
        }
    }

    public long succeeded() {
        synchronized (lock) {
            return succeeded;
        }
    }

    /** Running figures for a progress line: constant time, no sorting. */
    public LiveStats live() {
        synchronized (lock) {
            double wall = wallSeconds();
            double rps = succeeded > 0 && wall > 0 ? succeeded / wall : Double.NaN;
            double avgLatency = succeeded > 0 ? latencySum / succeeded : Double.NaN;
            double avgTtft = streamSucceeded > 0
                    ? (ttftStreamCount > 0 ? ttftStreamSumMs / ttftStreamCount : Double.NaN)
                    : avgLatency * 1000;
            double gen = succeeded > 0 && wall > 0 ? completionSum / wall : Double.NaN;
            return new LiveStats(total, succeeded, wall, rps, avgLatency, avgTtft, gen, cancelled);
        }
    }

    private double wallSeconds() {
        if (minStartNanos == Long.MAX_VALUE || maxEndNanos == Long.MIN_VALUE) return 0;
        return Math.max(maxEndNanos - minStartNanos, 0) / NANOS_PER_SECOND;
    }

    /** The full snapshot: summary, exact percentiles, workload windows, errors. */
    public RunResult result(RunInfo info) {
        Snapshot s;
        TraceSummary traceSummary;
        List<TurnPositionRow> turnPositions;
        PhaseSummary phaseSummary;
        ServerVsClient serverVsClient;
        synchronized (lock) {
            serverVsClient = serverTimings.summary();
            phaseSummary = phases.summary(); // sorts the phase samples: once, at the end
            s = new Snapshot();
            // O(conversations + turns) and called once at the end, so it runs under the lock
            traceSummary = traces.any() ? traces.summary(wallSeconds()) : null;
            turnPositions = traces.positions();
        }
        Summary summary = s.summary(info, traceSummary);
        List<PercentileRow> rows = s.percentileRows();
        WorkloadTimeline timeline = s.timeline;
        return new RunResult(info, summary, rows, WorkloadThroughput.of(timeline), timeline, s.errors, s.samples,
                traceSummary, turnPositions, phaseSummary, serverVsClient, s.errorTypes);
    }

    /** Copies of the state taken under the lock, so the heavy work (sorting, histogram walks) runs without it. */
    private final class Snapshot {
        final long total = RunMetrics.this.total;
        final long succeeded = RunMetrics.this.succeeded;
        final long cancelled = RunMetrics.this.cancelled;
        final long streamTotal = RunMetrics.this.streamTotal;
        final long nonStreamTotal = RunMetrics.this.nonStreamTotal;
        final long streamSucceeded = RunMetrics.this.streamSucceeded;
        final boolean scheduled = RunMetrics.this.scheduled;
        final double wall = wallSeconds();
        final double latencySum = RunMetrics.this.latencySum;
        final long promptSum = RunMetrics.this.promptSum;
        final long completionSum = RunMetrics.this.completionSum;
        final EnumMap<RequestRecord.TokenSource, Long> sources = new EnumMap<>(tokenSources);
        final Distribution latency = latencySeconds.copy();
        final Distribution prompt = promptTokens.copy();
        final Distribution inputPerSecond = inputTokensPerSecond.copy();
        final Distribution completion = completionTokens.copy();
        final Distribution ttft = ttftMs.copy();
        final Distribution firstChunk = firstChunkMs.copy();
        final Distribution tpot = tpotMs.copy();
        final Distribution itl = itlMs.copy();
        final Distribution itlPerToken = itlPerTokenMs == null ? itl : itlPerTokenMs.copy();
        final Distribution outputPerSecond = outputTokensPerSecond.copy();
        final Distribution totalPerSecond = totalTokensPerSecond.copy();
        final Distribution decodePerSecond = decodeTokensPerSecond.copy();
        final Distribution queueDelay = queueDelayMs.copy();
        final Distribution latencyInclQueue = latencyInclQueueSeconds.copy();
        final Distribution ttftInclQueue = ttftInclQueueMs.copy();
        final boolean reasoning = RunMetrics.this.reasoning;
        final Distribution ttfct = ttfctMs.copy();
        final Distribution answerTpot = answerTpotMs.copy();
        final long reasoningTokenSum = RunMetrics.this.reasoningTokenSum;
        final long reasoningTokenRecords = RunMetrics.this.reasoningTokenRecords;
        final long cacheRecords = RunMetrics.this.cacheRecords;
        final long cachePromptSum = RunMetrics.this.cachePromptSum;
        final long cachedSum = RunMetrics.this.cachedSum;
        final EnumMap<RequestRecord.CacheSource, Long> cacheSourceCounts = new EnumMap<>(cacheSources);
        final Map<String, Long> cachedFieldCounts = new HashMap<>(cachedFields);
        final long turnSum = RunMetrics.this.turnSum;
        final long multiTurnSuccesses = RunMetrics.this.multiTurnSuccesses;
        final double firstTurnTtftSumMs = RunMetrics.this.firstTurnTtftSumMs;
        final long firstTurnCount = RunMetrics.this.firstTurnCount;
        final double subsequentTurnTtftSumMs = RunMetrics.this.subsequentTurnTtftSumMs;
        final long subsequentTurnCount = RunMetrics.this.subsequentTurnCount;
        final double decodedPerIterSum = RunMetrics.this.decodedPerIterSum;
        final long decodedPerIterCount = RunMetrics.this.decodedPerIterCount;
        final WorkloadTimeline timeline = RunMetrics.this.timeline.snapshot();
        final Map<String, Long> errors = sortedErrors(errorCounts);
        final Map<String, String> samples = orderedSamples(errors, errorSamples);
        final Map<String, String> errorTypes = errorTypes(errors, errorTypeCounts);

        /** Successes that produced no output at all: an embeddings or rerank run. */
        boolean inputOnly() {
            return succeeded > 0 && completionSum == 0;
        }

        /** TTFT and first chunk of non-streamed replies equal their latency; used when nothing streamed. */
        Column ttftColumn(Distribution streamed) {
            return streamSucceeded > 0 ? new Column(streamed, 1) : new Column(latency, 1000);
        }

        /** The columns of {@code benchmark_percentile.json}, in order. */
        Map<String, Column> columns() {
            Map<String, Column> columns = new LinkedHashMap<>();
            columns.put(PercentileRow.LATENCY, new Column(latency, 1));
            columns.put(PercentileRow.TTFT, ttftColumn(ttft));
            columns.put(PercentileRow.ITL, new Column(itl, 1));
            columns.put(PercentileRow.TPOT, new Column(tpot, 1));
            columns.put(PercentileRow.INPUT_TOKENS, new Column(prompt, 1));
            columns.put(PercentileRow.OUTPUT_TOKENS, new Column(completion, 1));
            columns.put(PercentileRow.OUTPUT_THROUGHPUT, new Column(outputPerSecond, 1));
            columns.put(PercentileRow.TOTAL_THROUGHPUT, new Column(totalPerSecond, 1));
            columns.put(PercentileRow.DECODE_THROUGHPUT, new Column(decodePerSecond, 1));
            columns.put(PercentileRow.FIRST_CHUNK, ttftColumn(firstChunk));
            columns.put(PercentileRow.ITL_PER_TOKEN, new Column(itlPerToken, 1));
            if (inputOnly()) columns.put(PercentileRow.INPUT_THROUGHPUT, new Column(inputPerSecond, 1));
            if (reasoning) {
                columns.put(PercentileRow.TTFCT, new Column(ttfct, 1));
                columns.put(PercentileRow.ANSWER_TPOT, new Column(answerTpot, 1));
            }
            if (scheduled) {
                columns.put(PercentileRow.QUEUE_DELAY, new Column(queueDelay, 1));
                columns.put(PercentileRow.LATENCY_INCL_QUEUE, new Column(latencyInclQueue, 1));
                columns.put(PercentileRow.TTFT_INCL_QUEUE, new Column(ttftInclQueue, 1));
            }
            return columns;
        }

        /** {@code exact (nearest rank)}, or which columns came from the histogram and how precise they are. */
        String percentileMethod() {
            List<String> approximate = new ArrayList<>();
            columns().forEach((name, column) -> {
                if (!column.values().exact()) approximate.add(name);
            });
            if (approximate.isEmpty()) return Summary.PERCENTILES_EXACT;
            return Summary.PERCENTILES_EXACT + "; past " + Distribution.EXACT_LIMIT + " samples from an HdrHistogram ("
                    + Distribution.SIGNIFICANT_DIGITS + " significant digits, within "
                    + Distribution.MAX_RELATIVE_ERROR_TEXT + "): " + String.join(", ", approximate);
        }

        Summary summary(RunInfo info, TraceSummary traceSummary) {
            boolean any = succeeded > 0;
            double n = succeeded;
            double reqThroughput = any && wall > 0 ? succeeded / wall : -1;
            double outputThroughput = any && wall > 0 ? completionSum / wall : -1;
            double totalThroughput = any && wall > 0 ? (promptSum + completionSum) / wall : -1;
            Double avgItlPerToken = itlPerToken.mean();
            Double avgDecoded = decodedPerIterCount > 0 ? decodedPerIterSum / decodedPerIterCount : null;
            Double acceptRate = avgDecoded == null ? null : Math.max(0, Math.min(1, 1 - 1 / avgDecoded));
            // of the requests that reached an outcome: a request the stop cancelled did not fail
            Double successRate = total > cancelled ? Rounding.round(100.0 * succeeded / (total - cancelled), 1) : null;
            return new Summary(
                    new Summary.Load(r4(wall), info.concurrency(), info.rate()),
                    new Summary.Requests(total, succeeded, total - succeeded - cancelled, cancelled, streamTotal,
                            nonStreamTotal, successRate),
                    new Summary.Throughput(r4(reqThroughput), r4(outputThroughput), r4(totalThroughput),
                            // evalscope: embedding/rerank only (per-request average, not wall-clock); for generation
                            // evalscope writes its default 0.0, a figure it did not measure: absent here, not zero
                            inputOnly() && latencySum > 0 ? Double.valueOf(r4(promptSum / latencySum)) : null),
                    new Summary.Latency(any ? r4(latencySum / n) : -1, r2(ttftColumn(ttft).mean()), r2(tpot.mean()),
                            r2(itl.mean()), r2(ttftColumn(firstChunk).mean()), r2(avgItlPerToken)),
                    new Summary.TokenCounts(any ? r4(promptSum / n) : -1, any ? r4(completionSum / n) : -1, promptSum,
                            completionSum, tokenCountSource(sources)),
                    new Summary.MultiTurn(
                            multiTurnSuccesses > 0 ? Rounding.round((double) turnSum / multiTurnSuccesses, 4) : null,
                            firstTurnCount > 0 ? Rounding.round(firstTurnTtftSumMs / firstTurnCount, 2) : null,
                            subsequentTurnCount > 0
                                    ? Rounding.round(subsequentTurnTtftSumMs / subsequentTurnCount, 2) : null,
                            traceSummary == null ? null : traceSummary.completedTraces()),
                    new Summary.Cache(
                            cacheRecords > 0 && cachePromptSum > 0
                                    ? Rounding.round(100.0 * cachedSum / cachePromptSum, 4) : null,
                            cacheRecords > 0 ? cachedSum : null,
                            cacheRecords > 0 ? cacheSource(cacheSourceCounts) : null,
                            cachedTokensSource(cachedFieldCounts)),
                    new Summary.Speculative(avgDecoded == null ? null : Rounding.round(avgDecoded, 4),
                            acceptRate == null ? null : Rounding.round(acceptRate, 4)),
                    new Summary.Reasoning(reasoning, r2(ttfct.mean()), r2(answerTpot.mean()),
                            reasoningTokenRecords > 0 ? reasoningTokenSum : null),
                    new Summary.Queueing(scheduled, scheduled ? r2(queueDelay.mean()) : null,
                            scheduled ? r4d(latencyInclQueue.mean()) : null,
                            scheduled ? r2(ttftInclQueue.mean()) : null),
                    new Summary.Statistics(percentileMethod(), meanIntervals()));
        }

        /** The averages' 95 % t-intervals, rounded like the averages (null: fewer than 2 samples). */
        Map<String, Interval> meanIntervals() {
            Map<String, Interval> m = new LinkedHashMap<>();
            m.put(Summary.AVG_LATENCY, rounded(new Column(latency, 1).meanInterval(), 4));
            m.put(Summary.AVG_TTFT, rounded(ttftColumn(ttft).meanInterval(), 2));
            m.put(Summary.AVG_TPOT, rounded(new Column(tpot, 1).meanInterval(), 2));
            m.put(Summary.AVG_ITL, rounded(new Column(itl, 1).meanInterval(), 2));
            // written only beside the averages themselves (reasoning replies: Summary.toMap)
            m.put(Summary.AVG_TTFCT, rounded(new Column(ttfct, 1).meanInterval(), 2));
            m.put(Summary.AVG_ANSWER_TPOT, rounded(new Column(answerTpot, 1).meanInterval(), 2));
            return m;
        }

        private static Interval rounded(Interval i, int decimals) {
            return i == null ? null : i.rounded(decimals);
        }

        List<PercentileRow> percentileRows() {
            Map<String, Column> columns = columns();
            List<PercentileRow> rows = new ArrayList<>(PercentileRow.LABELS.size());
            for (int i = 0; i < PercentileRow.POINTS.length; i++) {
                double p = PercentileRow.POINTS[i];
                Map<String, Double> values = new LinkedHashMap<>();
                Map<String, Interval> intervals = new LinkedHashMap<>();
                for (Map.Entry<String, Column> e : columns.entrySet()) {
                    int decimals = PercentileRow.decimals(e.getKey());
                    values.put(e.getKey(), Rounding.round(e.getValue().nearestRankHigh(p), decimals));
                    if (p > 0 && p < 100) { // the minimum and maximum have no interval
                        Interval ci = e.getValue().percentileInterval(p);
                        intervals.put(e.getKey(), ci == null ? null : ci.rounded(decimals));
                    }
                }
                rows.add(new PercentileRow(PercentileRow.LABELS.get(i), values, intervals));
            }
            return rows;
        }
    }

    /** A percentile column: a distribution whose samples are reported multiplied by {@code factor > 0}. */
    private record Column(Distribution values, double factor) {
        double nearestRankHigh(double p) {
            return values.nearestRankHigh(p) * factor; // scaling keeps the ranks
        }

        Double mean() {
            Double m = values.mean();
            return m == null ? null : m * factor;
        }

        Interval percentileInterval(double p) {
            Interval i = values.percentileInterval(p);
            return i == null ? null : i.scaled(factor);
        }

        Interval meanInterval() {
            Interval i = values.meanInterval();
            return i == null ? null : i.scaled(factor);
        }
    }

    static String tokenCountSource(Map<RequestRecord.TokenSource, Long> counts) {
        List<Map.Entry<RequestRecord.TokenSource, Long>> present =
                counts.entrySet().stream().filter(e -> e.getValue() > 0).toList();
        if (present.isEmpty()) return null;
        if (present.size() == 1) return sourceLabel(present.getFirst().getKey());
        StringBuilder sb = new StringBuilder("mixed: ");
        for (int i = 0; i < present.size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append(sourceLabel(present.get(i).getKey())).append(' ').append(present.get(i).getValue());
        }
        return sb.toString();
    }

    /** The one member the cached figures came from, or "mixed: A 12, B 3" (most replies first, then by name). */
    static String cachedTokensSource(Map<String, Long> counts) {
        if (counts.isEmpty()) return null;
        if (counts.size() == 1) return counts.keySet().iterator().next();
        List<Map.Entry<String, Long>> byCount = counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .toList();
        StringBuilder sb = new StringBuilder("mixed: ");
        for (int i = 0; i < byCount.size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append(byCount.get(i).getKey()).append(' ').append(byCount.get(i).getValue());
        }
        return sb.toString();
    }

    /** "server", "estimated" or "mixed: server 12, estimated 3". */
    static String cacheSource(Map<RequestRecord.CacheSource, Long> counts) {
        List<Map.Entry<RequestRecord.CacheSource, Long>> present =
                counts.entrySet().stream().filter(e -> e.getValue() > 0).toList();
        if (present.isEmpty()) return null;
        StringBuilder sb = new StringBuilder(present.size() > 1 ? "mixed: " : "");
        for (int i = 0; i < present.size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append(present.get(i).getKey() == RequestRecord.CacheSource.SERVER
                    ? Summary.SOURCE_SERVER : Summary.SOURCE_ESTIMATE);
            if (present.size() > 1) sb.append(' ').append(present.get(i).getValue());
        }
        return sb.toString();
    }

    private static String sourceLabel(RequestRecord.TokenSource source) {
        return switch (source) {
            case SERVER -> Summary.SOURCE_SERVER;
            case SERVER_TIMINGS -> Summary.SOURCE_SERVER_TIMINGS;
            case TOKENIZER -> Summary.SOURCE_TOKENIZER;
            case ESTIMATE -> Summary.SOURCE_ESTIMATE;
        };
    }

    private static Map<String, Long> sortedErrors(Map<String, Long> counts) {
        Map<String, Long> out = new LinkedHashMap<>();
        counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
                        .thenComparing(Map.Entry.comparingByKey()))
                .forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    /** Per class in the order of {@code sortedErrors}: its one type, or "a (3), b (1)" most frequent first. */
    private static Map<String, String> errorTypes(Map<String, Long> sortedErrors,
                                                  Map<String, Map<String, Long>> counts) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String cls : sortedErrors.keySet()) {
            Map<String, Long> types = counts.get(cls);
            if (types == null) continue;
            Map<String, Long> sorted = sortedErrors(types);
            if (sorted.size() == 1) {
                out.put(cls, sorted.keySet().iterator().next());
                continue;
            }
            List<String> parts = new ArrayList<>();
            sorted.forEach((type, n) -> parts.add(type + " (" + n + ")"));
            out.put(cls, String.join(", ", parts));
        }
        return out;
    }

    private static Map<String, String> orderedSamples(Map<String, Long> sortedErrors, Map<String, String> samples) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String cls : sortedErrors.keySet()) {
            String s = samples.get(cls);
            if (s != null) out.put(cls, s);
        }
        return out;
    }

    private static double r4(double v) {
        Double r = Rounding.round(v, 4);
        return r == null ? -1 : r;
    }

    private static Double r4d(Double v) {
        return v == null ? null : Rounding.round(v, 4);
    }

    private static Double r2(Double v) {
        return v == null ? null : Rounding.round(v, 2);
    }
}
