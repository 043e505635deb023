package io.unibench.metrics;

import static io.unibench.metrics.RequestRecord.ABSENT;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleUnaryOperator;

/**
 * Aggregates the records of one run incrementally. {@link #accept} is O(chunks of the record): it adds to running
 * sums and appends raw values to primitive arrays (8 bytes a sample, no object kept per request), so nothing is
 * recomputed per request (evalscope recomputes its whole snapshot per request, O(n²)). Exact percentiles are
 * computed from the raw values only when {@link #result} is called. Thread-safe: one lock, held briefly.
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

    // Raw values of successes, for exact percentiles at the end.
    private final GrowableDoubles latencySeconds = new GrowableDoubles();
    private final GrowableDoubles promptTokens = new GrowableDoubles();
    private final GrowableDoubles completionTokens = new GrowableDoubles();
    private final GrowableDoubles ttftMs = new GrowableDoubles(); // streamed successes with a first token
    private final GrowableDoubles firstChunkMs = new GrowableDoubles(); // streamed successes with a first chunk
    private final GrowableDoubles tpotMs = new GrowableDoubles();
    private final GrowableDoubles itlMs = new GrowableDoubles();
    /** Runs of {@link #itlMs}: how many intervals each request contributed and its tokens per chunk. */
    private final GrowableLongs itlRunLengths = new GrowableLongs();
    private final GrowableDoubles itlRunTokensPerChunk = new GrowableDoubles();
    private final GrowableDoubles queueDelayMs = new GrowableDoubles();
    private final GrowableDoubles latencyInclQueueSeconds = new GrowableDoubles();
    private final GrowableDoubles ttftInclQueueMs = new GrowableDoubles();

    // Prefix cache: only successes whose server reported cached tokens.
    private long cacheRecords;
    private long cachePromptSum;
    private long cachedSum;

    // Which cached-token figures were the server's and which the client's multi-turn estimate.
    private final EnumMap<RequestRecord.CacheSource, Long> cacheSources = new EnumMap<>(RequestRecord.CacheSource.class);

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

    // Workload timeline, one point per success in arrival order.
    private long timelineStartNanos = ABSENT;
    private final GrowableDoubles timelineT = new GrowableDoubles();
    private final GrowableLongs timelineCompletion = new GrowableLongs();
    private final GrowableLongs timelineNewPrompt = new GrowableLongs();
    private final GrowableLongs timelineCachedPrompt = new GrowableLongs();
    private long cumCompletion;
    private long cumNewPrompt;
    private long cumCachedPrompt;

    // Connection and transfer phases of successes.
    private final PhaseStats phases = new PhaseStats();

    // Failures.
    private final Map<String, Long> errorCounts = new HashMap<>();
    private final Map<String, String> errorSamples = new HashMap<>();

    @Override
    public void accept(RequestRecord r) {
        synchronized (lock) {
            total++;
            if (r.stream()) streamTotal++;
            else nonStreamTotal++;
            if (r.scheduledNanos() != ABSENT) scheduled = true;
            if (r.startNanos() != ABSENT) {
                minStartNanos = Math.min(minStartNanos, r.startNanos());
                if (r.endNanos() != ABSENT) maxEndNanos = Math.max(maxEndNanos, r.endNanos());
            }
            if (r.success()) acceptSuccess(r);
            else acceptFailure(r);
            traces.accept(r);
            phases.accept(r);
        }
    }

    private void acceptFailure(RequestRecord r) {
        String cls = r.errorClass() == null ? UNKNOWN_ERROR : r.errorClass();
        errorCounts.merge(cls, 1L, Long::sum);
        if (r.errorMessage() != null) errorSamples.putIfAbsent(cls, r.errorMessage());
    }

    private void acceptSuccess(RequestRecord r) {
        succeeded++;
        int prompt = Math.max(r.promptTokens(), 0);
        int completion = Math.max(r.completionTokens(), 0);
        double latency = r.latencySeconds();
        latencySum += latency;
        promptSum += prompt;
        completionSum += completion;
        latencySeconds.add(latency);
        promptTokens.add(prompt);
        completionTokens.add(completion);
        if (r.tokenSource() != null) tokenSources.merge(r.tokenSource(), 1L, Long::sum);

        double ttft = r.ttftSeconds();
        if (r.stream()) {
            streamSucceeded++;
            if (!Double.isNaN(ttft)) {
                ttftMs.add(ttft * 1000);
                ttftStreamSumMs += ttft * 1000;
                ttftStreamCount++;
            }
            double firstChunk = r.firstChunkSeconds();
            if (!Double.isNaN(firstChunk)) firstChunkMs.add(firstChunk * 1000);
            double tpot = r.tpotSeconds();
            if (!Double.isNaN(tpot)) tpotMs.add(tpot * 1000);
        }

        int intervals = r.interChunkCount();
        if (intervals > 0) {
            for (int i = 0; i < intervals; i++) itlMs.add(r.interChunkSeconds(i) * 1000);
            itlRunLengths.add(intervals);
            itlRunTokensPerChunk.add(r.tokensPerChunk());
        }
        double tokensPerChunk = r.tokensPerChunk();
        if (tokensPerChunk > 1) {
            decodedPerIterSum += tokensPerChunk;
            decodedPerIterCount++;
        }

        if (r.scheduledNanos() != ABSENT) {
            addIfDefined(queueDelayMs, r.queueDelaySeconds() * 1000);
            addIfDefined(latencyInclQueueSeconds, r.scheduledLatencySeconds());
            addIfDefined(ttftInclQueueMs, r.scheduledTtftSeconds() * 1000);
        }

        int cached = Math.max(r.cachedTokens(), 0);
        if (r.cachedTokens() >= 0) {
            cacheRecords++;
            cachePromptSum += prompt;
            cachedSum += r.cachedTokens();
            if (r.cachedTokenSource() != null) cacheSources.merge(r.cachedTokenSource(), 1L, Long::sum);
        }

        if (r.conversationId() != null) {
            multiTurnSuccesses++;
            turnSum += r.turnIndex() + 1L;
            if (!Double.isNaN(ttft)) {
                if (r.turnIndex() == 0) {
                    firstTurnTtftSumMs += ttft * 1000;
                    firstTurnCount++;
                } else {
                    subsequentTurnTtftSumMs += ttft * 1000;
                    subsequentTurnCount++;
                }
            }
        }

        if (r.startNanos() != ABSENT && r.endNanos() != ABSENT) {
            if (timelineStartNanos == ABSENT) timelineStartNanos = r.startNanos();
            cumCompletion += completion;
            cumNewPrompt += Math.max(prompt - cached, 0);
            cumCachedPrompt += cached;
            timelineT.add((r.endNanos() - timelineStartNanos) / NANOS_PER_SECOND);
            timelineCompletion.add(cumCompletion);
            timelineNewPrompt.add(cumNewPrompt);
            timelineCachedPrompt.add(cumCachedPrompt);
        }
    }

    private static void addIfDefined(GrowableDoubles values, double v) {
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
            return new LiveStats(total, succeeded, wall, rps, avgLatency, avgTtft, gen);
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
        synchronized (lock) {
            phaseSummary = phases.summary(); // sorts the phase samples: once, at the end
            s = new Snapshot();
            // O(conversations + turns) and called once at the end, so it runs under the lock
            traceSummary = traces.any() ? traces.summary(wallSeconds()) : null;
            turnPositions = traces.positions();
        }
        Summary summary = s.summary(info, traceSummary);
        List<PercentileRow> rows = s.percentileRows();
        WorkloadTimeline timeline = s.timeline();
        return new RunResult(info, summary, rows, WorkloadThroughput.of(timeline), timeline, s.errors, s.samples,
                traceSummary, turnPositions, phaseSummary);
    }

    /** Copies of the state taken under the lock, so the heavy work (sorting) runs without it. */
    private final class Snapshot {
        final long total = RunMetrics.this.total;
        final long succeeded = RunMetrics.this.succeeded;
        final long streamTotal = RunMetrics.this.streamTotal;
        final long nonStreamTotal = RunMetrics.this.nonStreamTotal;
        final long streamSucceeded = RunMetrics.this.streamSucceeded;
        final boolean scheduled = RunMetrics.this.scheduled;
        final double wall = wallSeconds();
        final double latencySum = RunMetrics.this.latencySum;
        final long promptSum = RunMetrics.this.promptSum;
        final long completionSum = RunMetrics.this.completionSum;
        final EnumMap<RequestRecord.TokenSource, Long> sources = new EnumMap<>(tokenSources);
        final double[] latency = latencySeconds.toArray();
        final double[] prompt = promptTokens.toArray();
        final double[] completion = completionTokens.toArray();
        final double[] ttft = ttftMs.toArray();
        final double[] firstChunk = firstChunkMs.toArray();
        final double[] tpot = tpotMs.toArray();
        final double[] itl = itlMs.toArray();
        final long[] runLengths = itlRunLengths.toArray();
        final double[] runTokensPerChunk = itlRunTokensPerChunk.toArray();
        final double[] queueDelay = queueDelayMs.toArray();
        final double[] latencyInclQueue = latencyInclQueueSeconds.toArray();
        final double[] ttftInclQueue = ttftInclQueueMs.toArray();
        final long cacheRecords = RunMetrics.this.cacheRecords;
        final long cachePromptSum = RunMetrics.this.cachePromptSum;
        final long cachedSum = RunMetrics.this.cachedSum;
        final EnumMap<RequestRecord.CacheSource, Long> cacheSourceCounts = new EnumMap<>(cacheSources);
        final long turnSum = RunMetrics.this.turnSum;
        final long multiTurnSuccesses = RunMetrics.this.multiTurnSuccesses;
        final double firstTurnTtftSumMs = RunMetrics.this.firstTurnTtftSumMs;
        final long firstTurnCount = RunMetrics.this.firstTurnCount;
        final double subsequentTurnTtftSumMs = RunMetrics.this.subsequentTurnTtftSumMs;
        final long subsequentTurnCount = RunMetrics.this.subsequentTurnCount;
        final double decodedPerIterSum = RunMetrics.this.decodedPerIterSum;
        final long decodedPerIterCount = RunMetrics.this.decodedPerIterCount;
        final long timelineStart = timelineStartNanos;
        final double[] tlT = timelineT.toArray();
        final long[] tlCompletion = timelineCompletion.toArray();
        final long[] tlNew = timelineNewPrompt.toArray();
        final long[] tlCached = timelineCachedPrompt.toArray();
        final Map<String, Long> errors = sortedErrors(errorCounts);
        final Map<String, String> samples = orderedSamples(errors, errorSamples);

        private double[] itlPerToken;

        /**
         * Per-token ITL: every interval of a request divided by that request's tokens per chunk. When every
         * request streamed one token per chunk (the usual case) that is {@link #itl} itself, returned as is: the
         * percentile rows then sort one array of every interval of the run instead of two.
         */
        double[] itlPerToken() {
            if (itlPerToken == null) itlPerToken = computeItlPerToken();
            return itlPerToken;
        }

        private double[] computeItlPerToken() {
            boolean oneTokenPerChunk = true;
            for (double tpc : runTokensPerChunk) oneTokenPerChunk &= tpc == 1.0;
            if (oneTokenPerChunk) return itl; // x / 1.0 == x
            GrowableDoubles out = new GrowableDoubles();
            int offset = 0;
            for (int run = 0; run < runLengths.length; run++) {
                int len = (int) runLengths[run];
                double tpc = runTokensPerChunk[run];
                if (tpc > 0) {
                    for (int i = offset; i < offset + len; i++) out.add(itl[i] / tpc);
                }
                offset += len;
            }
            return out.toArray();
        }

        /** TTFT and first chunk of non-streamed replies equal their latency; used when nothing streamed. */
        double[] ttftColumn(double[] streamed) {
            return streamSucceeded > 0 ? streamed : map(latency, v -> v * 1000);
        }

        Summary summary(RunInfo info, TraceSummary traceSummary) {
            boolean any = succeeded > 0;
            double n = succeeded;
            double reqThroughput = any && wall > 0 ? succeeded / wall : -1;
            double outputThroughput = any && wall > 0 ? completionSum / wall : -1;
            double totalThroughput = any && wall > 0 ? (promptSum + completionSum) / wall : -1;
            Double avgItlPerToken = mean(itlPerToken());
            Double avgDecoded = decodedPerIterCount > 0 ? decodedPerIterSum / decodedPerIterCount : null;
            Double acceptRate = avgDecoded == null ? null : Math.max(0, Math.min(1, 1 - 1 / avgDecoded));
            return new Summary(
                    r4(wall),
                    info.concurrency(),
                    info.rate(),
                    total,
                    succeeded,
                    total - succeeded,
                    streamTotal,
                    nonStreamTotal,
                    r4(reqThroughput),
                    any ? r4(latencySum / n) : -1,
                    any ? r4(promptSum / n) : -1,
                    r4(outputThroughput),
                    r4(totalThroughput),
                    r2(mean(ttftColumn(ttft))),
                    r2(mean(tpot)),
                    r2(mean(itl)),
                    any ? r4(completionSum / n) : -1,
                    0.0, // evalscope: embedding/rerank only, 0.0 for generation
                    multiTurnSuccesses > 0 ? Rounding.round((double) turnSum / multiTurnSuccesses, 4) : null,
                    cacheRecords > 0 && cachePromptSum > 0
                            ? Rounding.round(100.0 * cachedSum / cachePromptSum, 4) : null,
                    firstTurnCount > 0 ? Rounding.round(firstTurnTtftSumMs / firstTurnCount, 2) : null,
                    subsequentTurnCount > 0 ? Rounding.round(subsequentTurnTtftSumMs / subsequentTurnCount, 2) : null,
                    avgDecoded == null ? null : Rounding.round(avgDecoded, 4),
                    acceptRate == null ? null : Rounding.round(acceptRate, 4),
                    total > 0 ? Rounding.round(100.0 * succeeded / total, 1) : null,
                    promptSum,
                    completionSum,
                    cacheRecords > 0 ? cachedSum : null,
                    r2(mean(ttftColumn(firstChunk))),
                    r2(avgItlPerToken),
                    tokenCountSource(sources),
                    scheduled,
                    scheduled ? r2(mean(queueDelay)) : null,
                    scheduled ? r4d(mean(latencyInclQueue)) : null,
                    scheduled ? r2(mean(ttftInclQueue)) : null,
                    cacheRecords > 0 ? cacheSource(cacheSourceCounts) : null,
                    traceSummary == null ? null : traceSummary.completedTraces());
        }

        List<PercentileRow> percentileRows() {
            Map<String, double[]> columns = new LinkedHashMap<>();
            columns.put(PercentileRow.LATENCY, latency);
            columns.put(PercentileRow.TTFT, ttftColumn(ttft));
            columns.put(PercentileRow.ITL, itl);
            columns.put(PercentileRow.TPOT, tpot);
            columns.put(PercentileRow.INPUT_TOKENS, prompt);
            columns.put(PercentileRow.OUTPUT_TOKENS, completion);
            columns.put(PercentileRow.OUTPUT_THROUGHPUT, perLatency(completion, null));
            columns.put(PercentileRow.TOTAL_THROUGHPUT, perLatency(completion, prompt));
            columns.put(PercentileRow.DECODE_THROUGHPUT, map(tpot, v -> v > 0 ? 1000 / v : Double.NaN));
            columns.put(PercentileRow.FIRST_CHUNK, ttftColumn(firstChunk));
            columns.put(PercentileRow.ITL_PER_TOKEN, itlPerToken());
            if (scheduled) {
                columns.put(PercentileRow.QUEUE_DELAY, queueDelay);
                columns.put(PercentileRow.LATENCY_INCL_QUEUE, latencyInclQueue);
                columns.put(PercentileRow.TTFT_INCL_QUEUE, ttftInclQueue);
            }
            Map<String, double[]> sorted = new LinkedHashMap<>();
            Map<double[], double[]> sortedBySource = new IdentityHashMap<>(); // a column listed twice is sorted once
            columns.forEach((name, values) -> sorted.put(name,
                    sortedBySource.computeIfAbsent(values, RunMetrics::sortedWithoutNaN)));

            List<PercentileRow> rows = new ArrayList<>(PercentileRow.LABELS.size());
            for (int i = 0; i < PercentileRow.POINTS.length; i++) {
                Map<String, Double> values = new LinkedHashMap<>();
                for (Map.Entry<String, double[]> e : sorted.entrySet()) {
                    double v = Percentiles.nearestRankHigh(e.getValue(), PercentileRow.POINTS[i]);
                    values.put(e.getKey(), Rounding.round(v, PercentileRow.decimals(e.getKey())));
                }
                rows.add(new PercentileRow(PercentileRow.LABELS.get(i), values));
            }
            return rows;
        }

        /** (completion [+ prompt]) / latency per success; NaN (left out) when latency is not positive. */
        double[] perLatency(double[] completion, double[] promptOrNull) {
            double[] out = new double[latency.length];
            for (int i = 0; i < out.length; i++) {
                double tokens = completion[i] + (promptOrNull == null ? 0 : promptOrNull[i]);
                out[i] = latency[i] > 0 ? tokens / latency[i] : Double.NaN;
            }
            return out;
        }

        WorkloadTimeline timeline() {
            List<WorkloadTimeline.Point> points = new ArrayList<>(tlT.length);
            for (int i = 0; i < tlT.length; i++) {
                points.add(new WorkloadTimeline.Point(tlT[i], tlCompletion[i], tlNew[i], tlCached[i]));
            }
            Double start = timelineStart == ABSENT ? null : timelineStart / NANOS_PER_SECOND;
            return new WorkloadTimeline(start, points);
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

    private static Map<String, String> orderedSamples(Map<String, Long> sortedErrors, Map<String, String> samples) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String cls : sortedErrors.keySet()) {
            String s = samples.get(cls);
            if (s != null) out.put(cls, s);
        }
        return out;
    }

    private static double[] sortedWithoutNaN(double[] values) {
        double[] out = new double[values.length];
        int n = 0;
        for (double v : values) {
            if (!Double.isNaN(v)) out[n++] = v;
        }
        if (n < out.length) out = Arrays.copyOf(out, n);
        Arrays.sort(out);
        return out;
    }

    private static double[] map(double[] values, DoubleUnaryOperator f) {
        double[] out = new double[values.length];
        for (int i = 0; i < values.length; i++) out[i] = f.applyAsDouble(values[i]);
        return out;
    }

    /** Mean of the finite values; null when there are none. */
    private static Double mean(double[] values) {
        double sum = 0;
        long n = 0;
        for (double v : values) {
            if (Double.isFinite(v)) {
                sum += v;
                n++;
            }
        }
        return n == 0 ? null : sum / n;
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
