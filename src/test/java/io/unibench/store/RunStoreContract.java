package io.unibench.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.Golden;
import io.unibench.Moments;
import io.unibench.metrics.MetricDelta;
import io.unibench.metrics.Outcome;
import io.unibench.metrics.PhaseTimes;
import io.unibench.metrics.Position;
import io.unibench.metrics.RequestFields;
import io.unibench.metrics.PointVerdict;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.RunInfo;
import io.unibench.metrics.RunMetrics;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.ServerTimings;
import io.unibench.metrics.Timing;
import io.unibench.metrics.Tokens;
import io.unibench.report.RunComparisonReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The store's behaviour, run unchanged against SQLite and PostgreSQL (one subclass each). */
abstract class RunStoreContract {
    static final long BASE = 7_000_000_000_000L; // a nanoTime-like origin far from 0
    static final RunInfo INFO = new RunInfo("parallel_4_number_60", 4, -1, 60);

    @TempDir
    Path tmp;

    TestStores.Backend backend;
    RunStore store;
    final Owner me = Owner.current();

    abstract TestStores.Backend backend(Path tmp) throws Exception;

    @BeforeEach
    void open() throws Exception {
        backend = backend(tmp);
        store = RunStore.open(backend.location());
    }

    @AfterEach
    void close() throws Exception {
        if (store != null) store.close();
        if (backend != null) backend.close();
    }

    RunStart start(String name, String model, String url, List<String> tags) {
        ObjectNode config = ResultJson.MAPPER.createObjectNode().put("model", model).put("url", url)
                .put("name", name).put("max_tokens", 40);
        return new RunStart(name, tags, model, url, config, Map.of("java_version", "21"));
    }

    @Test
    void theProvidersOfAServiceRunAreLinkedToTheQueuedRunInTheOrderTheyStarted() throws Exception {
        String queued = store.createRun(start("svc", "m", "http://a/v1", List.of("t")), me, 1000, RunRow.QUEUED);
        String second = store.createRun(start("svc/b", "m", "http://b/v1", List.of("t")).under(queued), me, 2000);
        String third = store.createRun(start("svc/c", "m", "http://c/v1", List.of("t")).under(queued), me, 3000);
        String alone = store.createRun(start("other", "m", "http://d/v1", List.of()), me, 4000);
        assertThat(store.linkedRuns(queued)).extracting(RunRow::runId).containsExactly(second, third);
        assertThat(store.linkedRuns(queued).getFirst().tags()).containsExactly("t");
        assertThat(store.parentRun(second)).isEqualTo(queued);
        assertThat(store.parentRun(queued)).isNull();
        assertThat(store.linkedRuns(alone)).isEmpty();
        assertThat(store.parentRun(alone)).isNull();
    }

    /** A finished run of one point holding {@code records}; returns its id. */
    String storeRun(RunStart s, List<RequestRecord> records, long now) throws Exception {
        String id = store.createRun(s, me, now);
        store.addPoint(id, 0, INFO, now);
        store.insertRequests(id, 0, BASE, records.subList(0, records.size() / 2), now);
        store.insertRequests(id, 0, BASE, records.subList(records.size() / 2, records.size()), now);
        store.savePointResult(id, 0, result(records));
        store.finishRun(id, RunRow.FINISHED, now + 1);
        return id;
    }

    static RunResult result(List<RequestRecord> records) {
        RunMetrics m = new RunMetrics();
        records.forEach(m::accept);
        return m.result(INFO);
    }

    List<RequestRecord> stored(String id) throws Exception {
        List<RequestRecord> out = new ArrayList<>();
        store.forEachRequest(id, 0, out::add);
        return out;
    }

    @Test
    void requestRecordsComeBackExactlyAndGiveTheSameReport() throws Exception {
        List<RequestRecord> records = TestStores.records(60, BASE, 1);
        String id = storeRun(start("a", "m", "http://h/v1", List.of()), records, 1000);
        List<RequestRecord> back = stored(id);
        assertSameRecords(back, records, BASE);
        RunResult original = result(records);
        RunResult rebuilt = result(back);
        assertThat(rebuilt.summary().toMap()).isEqualTo(original.summary().toMap());
        assertThat(rebuilt.percentiles()).isEqualTo(original.percentiles());
        assertThat(rebuilt.errors()).isEqualTo(original.errors());
        RunRow row = store.run(id).row();
        assertThat(row.requestCount()).isEqualTo(60);
        assertThat(row.successCount()).isEqualTo(records.stream().filter(RequestRecord::success).count());
        JsonNode summary = store.run(id).points().getFirst().summary();
        assertThat(summary.get("Total Requests").asLong()).isEqualTo(60);
        assertThat(summary.get("Avg TTFT (ms)").asDouble()).isEqualTo(original.summary().latency().avgTtftMs());
    }

    @Test
    void listFiltersByModelUrlNameTagDateAndStatusNewestFirst() throws Exception {
        List<RequestRecord> r = TestStores.records(5, BASE, 2);
        String a = storeRun(start("nightly-a", "Qwen2.5-7B", "http://gpu1:8000/v1", List.of("nightly", "h100")), r, 1_000);
        String b = storeRun(start("nightly-b", "Llama-3-8B", "http://gpu2:8000/v1", List.of("nightly")), r, 2_000);
        String c = storeRun(start("adhoc_1%", "qwen2.5-72b", "http://gpu1:8000/v1", List.of("h100")), r, 3_000);
        String d = store.createRun(start("live", "x", "http://y", List.of()), me, 4_000); // still running

        assertThat(ids(RunFilter.all(50))).containsExactly(d, c, b, a);
        assertThat(ids(filter("qwen", null, null, List.of(), null, null, null))).containsExactly(c, a);
        assertThat(ids(filter(null, "gpu1", null, List.of(), null, null, null))).containsExactly(c, a);
        assertThat(ids(filter(null, null, "NIGHTLY", List.of(), null, null, null))).containsExactly(b, a);
        assertThat(ids(filter(null, null, "_1%", List.of(), null, null, null))).containsExactly(c); // no wildcards
        assertThat(ids(filter(null, null, null, List.of("nightly", "h100"), null, null, null))).containsExactly(a);
        assertThat(ids(filter(null, null, null, List.of("h100"), null, null, null))).containsExactly(c, a);
        assertThat(ids(filter(null, null, null, List.of(), 2_000L, 4_000L, null))).containsExactly(c, b);
        assertThat(ids(filter(null, null, null, List.of(), null, null, RunRow.RUNNING))).containsExactly(d);
        assertThat(ids(RunFilter.all(2))).containsExactly(d, c);
        assertThat(store.list(RunFilter.all(10)).get(3).tags()).containsExactly("h100", "nightly");
    }

    @Test
    void pagesFollowTheCursorAndEveryRunIsListedOnce() throws Exception {
        List<RequestRecord> r = TestStores.records(3, BASE, 3);
        List<String> all = new ArrayList<>();
        for (int i = 0; i < 5; i++) all.add(storeRun(start("p" + i, "m", "u", List.of()), r, i < 3 ? 1_000 : 2_000));
        List<String> seen = new ArrayList<>();
        RunFilter.Cursor after = null;
        for (int page = 0; page < 5 && seen.size() < 5; page++) {
            List<RunRow> rows = store.list(new RunFilter(null, null, null, List.of(), null, null, null, 2, after));
            rows.forEach(x -> seen.add(x.runId()));
            after = new RunFilter.Cursor(rows.getLast().startedAt(), rows.getLast().runId());
        }
        assertThat(seen).containsExactlyElementsOf(ids(RunFilter.all(10))).containsExactlyInAnyOrderElementsOf(all);
        assertThat(store.list(new RunFilter(null, null, null, List.of(), null, null, null, 2, after))).isEmpty();
    }

    @Test
    void aRunsVerdictIsTheUnionOfItsPointsVerdictsAndEachPointKeepsItsOwn() throws Exception {
        List<RequestRecord> records = TestStores.records(40, BASE, 4);
        String id = store.createRun(start("judged", "m", "u", List.of()), me, 1_000);
        String unjudged = storeRun(start("unjudged", "m", "u", List.of()), records, 2_000);
        PointVerdict few = new PointVerdict("too-few-samples", List.of("too-few-samples: p99 needs 368"), null, 2.0,
                null, 4.0);
        PointVerdict valid = new PointVerdict("valid", List.of(), null, 2.0, null, 4.0);
        store.addPoint(id, 0, INFO, 1_000);
        store.savePointResult(id, 0, result(records).withVerdict(valid), valid.toMap());
        assertThat(store.run(id).row().verdict()).isEqualTo("valid");
        store.addPoint(id, 1, new RunInfo("parallel_8_number_60", 8, -1, 60), 1_000);
        store.savePointResult(id, 1, result(records).withVerdict(few), few.toMap());

        assertThat(store.run(id).row().verdict()).isEqualTo("too-few-samples");
        assertThat(store.list(new RunFilter(null, null, null, List.of(), null, null, null, 10, null)))
                .filteredOn(r -> r.runId().equals(id)).singleElement().extracting(RunRow::verdict)
                .isEqualTo("too-few-samples");
        assertThat(store.run(id).points().get(1).summary().path("Verdict Reasons").asText())
                .isEqualTo("too-few-samples: p99 needs 368");
        assertThat(store.run(unjudged).row().verdict()).isNull();
    }

    @Test
    void pointDetailsAndTheLastPointOfManyRunsAreStored() throws Exception {
        List<RequestRecord> records = TestStores.records(40, BASE, 4);
        String one = storeRun(start("one", "m", "u", List.of()), records, 1_000);
        String two = store.createRun(start("two", "m", "u", List.of()), me, 2_000);
        store.addPoint(two, 0, INFO, 2_000);
        store.addPoint(two, 1, new RunInfo("parallel_8_number_60", 8, -1, 60), 2_000);
        store.savePointResult(two, 1, result(records));
        String none = store.createRun(start("none", "m", "u", List.of()), me, 3_000);

        StoredPoint.Details d = store.run(one).points().getFirst().details();
        // a quarter of these records carry phase times, each retried after a stale connection
        assertThat(d.phases().path("retried_stale_connections").asLong()).isEqualTo(10);
        assertThat(d.phases().path("rows").toString()).contains("Stale connection (retried)");
        assertThat(d.timeline().path("points").size()).isBetween(2, ResultJson.TIMELINE_POINTS);
        assertThat(d.traces()).isNotNull(); // the records hold conversations
        Map<String, StoredPoint> last = store.lastPoints(List.of(one, two, none));
        assertThat(last.keySet()).containsExactlyInAnyOrder(one, two);
        assertThat(last.get(two).index()).isEqualTo(1);
        assertThat(last.get(two).summary().get("Total Requests").asInt()).isEqualTo(40);
    }

    @Test
    void sampledRequestsAreSpreadEvenlyOverThePoint() throws Exception {
        List<RequestRecord> records = TestStores.records(100, BASE, 5);
        String id = storeRun(start("s", "m", "u", List.of()), records, 1_000);
        List<RunStore.RequestSample> all = store.sampleRequests(id, 0, 100, 1000);
        assertThat(all).hasSize(100);
        List<RunStore.RequestSample> ten = store.sampleRequests(id, 0, 100, 10);
        assertThat(ten).extracting(RunStore.RequestSample::index).containsExactly(0L, 10L, 20L, 30L, 40L, 50L, 60L,
                70L, 80L, 90L);
        RequestRecord r = records.get(10);
        RunStore.RequestSample s = ten.get(1);
        assertThat(s.startMs()).isEqualTo((r.timing().startNanos() - BASE) / 1e6);
        assertThat(s.success()).isEqualTo(r.success());
        if (r.success()) assertThat(s.ttftMs()).isEqualTo((r.timing().firstTokenNanos() - r.timing().startNanos()) / 1e6);
        else assertThat(s.ttftMs()).isNull();
    }

    /** The three exports of a run, whole, against the golden files: their fields and text must stay byte-stable. */
    @Test
    void exportsAreTheGoldenFiles() throws Exception {
        List<RequestRecord> records = TestStores.records(12, BASE, 6);
        String id = storeRun(start("g", "m", "u", List.of("golden")), records, 1_000);
        ByteArrayOutputStream jsonl = new ByteArrayOutputStream();
        RunExport.requestsJsonl(store, store.run(id), jsonl);
        Golden.assertMatches("export-requests.jsonl", jsonl.toString(StandardCharsets.UTF_8));
        StringWriter csv = new StringWriter();
        RunExport.requestsCsv(store, store.run(id), csv);
        Golden.assertMatches("export-requests.csv", csv.toString().replace(id, "RUN_ID"));
        StringWriter json = new StringWriter();
        RunExport.json(store, store.run(id), json);
        Golden.assertMatches("export-run.json", json.toString().replace(id, "RUN_ID"));
    }

    @Test
    void jsonlExportHasOneLinePerRequestWithItsPoint() throws Exception {
        List<RequestRecord> records = TestStores.records(12, BASE, 6);
        String id = storeRun(start("j", "m", "u", List.of()), records, 1_000);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RunExport.requestsJsonl(store, store.run(id), out);
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines).hasSize(12);
        JsonNode first = ResultJson.MAPPER.readTree(lines.getFirst());
        assertThat(first.get("point").asInt()).isZero();
        assertThat(first.get("label").asText()).isEqualTo(INFO.label());
        assertThat(first.get("request_id").asText()).isEqualTo(records.getFirst().position().requestId());
    }

    private RunFilter filter(String model, String url, String name, List<String> tags, Long since, Long until,
                             String status) {
        return new RunFilter(model, url, name, tags, since, until, status, 50);
    }

    private List<String> ids(RunFilter f) throws Exception {
        return store.list(f).stream().map(RunRow::runId).toList();
    }

    @Test
    void runIdsResolveFromAUniquePrefix() throws Exception {
        String id = store.createRun(start("n", "m", "u", List.of()), me, 1);
        assertThat(store.resolveId(id.substring(0, id.length() - 3))).isEqualTo(id);
        assertThatThrownBy(() -> store.resolveId("nope")).isInstanceOf(BadInputException.class)
                .hasMessageContaining("no such run");
    }

    @Test
    void runsOfDeadProcessesAreMarkedInterruptedAndGetSummariesFromTheirRequests() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Owner dead = new Owner(me.host(), gone.pid(), System.currentTimeMillis());
        List<RequestRecord> records = TestStores.records(30, BASE, 3);
        String abandoned = store.createRun(start("k", "m", "u", List.of()), dead, 1_000);
        store.addPoint(abandoned, 0, INFO, 1_000);
        store.insertRequests(abandoned, 0, BASE, records, 1_500);
        String alive = store.createRun(start("l", "m", "u", List.of()), me, 1_000);
        Owner otherHost = new Owner("elsewhere", 1, 0);
        String foreign = store.createRun(start("f", "m", "u", List.of()), otherHost, 1_000);

        assertThat(store.recoverAbandoned(me, 2_000)).containsExactly(abandoned);
        StoredRun run = store.run(abandoned);
        assertThat(run.row().status()).isEqualTo(RunRow.INTERRUPTED);
        assertThat(run.row().endedAt()).isEqualTo(1_500); // its last commit
        assertThat(run.row().statusReason()).isEqualTo(RunStore.ABANDONED_REASON); // it had none: kill -9 said nothing
        assertThat(run.points().getFirst().summary().get("Total Requests").asLong()).isEqualTo(30);
        assertThat(store.run(alive).row().status()).isEqualTo(RunRow.RUNNING);
        assertThat(store.run(foreign).row().status()).isEqualTo(RunRow.RUNNING);
        // another host's run counts as abandoned only once its writer has been silent for the stale period
        assertThat(store.recoverAbandoned(me, 1_000 + RunStore.FOREIGN_STALE_MILLIS + 1)).containsExactly(foreign);
        assertThat(store.recoverAbandoned(me, 10 * RunStore.FOREIGN_STALE_MILLIS)).isEmpty();
    }

    @Test
    void compareMatchesLevelsNotProviderNamesAndDecidesFromTheRequests() throws Exception {
        List<RequestRecord> base = TestStores.records(500, BASE, 4); // 400 successes: enough for a p99's interval
        // DeepSeek at 1, 4, 16; Qwen at 2, 4, 16 (the quick start's two level lists differ): 26x slower at 4,
        // the very same requests at 16
        String a = storeLevels("DeepSeek", Map.of(1, base, 4, base, 16, base), 1_000);
        String b = storeLevels("Qwen", Map.of(2, base, 4, slower(base, 26), 16, base), 2_000);
        RunComparison.Result r = RunComparison.compare(store, store.run(a), store.run(b));
        RunComparison.Pair pair = r.pairs().getFirst();
        assertThat(pair.levels()).containsExactly("chat/parallel_4", "chat/parallel_16");
        assertThat(pair.onlyBaseline()).containsExactly("chat/parallel_1");
        assertThat(pair.onlyCandidate()).containsExactly("chat/parallel_2");

        for (String metric : List.of("Avg TTFT (ms)", "p50 TTFT (ms)", "p95 TTFT (ms)", "p99 TTFT (ms)",
                "p50 Latency (s)", "p95 Latency (s)", "p99 Latency (s)")) {
            MetricDelta slow = row(pair, "chat/parallel_4", metric);
            assertThat(slow.verdict()).as(metric).isEqualTo(MetricDelta.WORSE);
            assertThat(slow.deltaInterval().low()).as(metric).isPositive();
            assertThat(slow.nA()).isEqualTo(400);
            assertThat(slow.nB()).isEqualTo(400);
        }
        for (String metric : List.of("Avg TTFT (ms)", "p50 TTFT (ms)", "p95 TTFT (ms)")) {
            MetricDelta same = row(pair, "chat/parallel_16", metric);
            assertThat(same.delta()).as(metric).isZero();
            assertThat(same.verdict()).as(metric).isEqualTo(MetricDelta.SAME);
        }
        // one figure per run: a delta, never a verdict
        MetricDelta throughput = row(pair, "chat/parallel_4", "Req Throughput (req/s)");
        assertThat(throughput.delta()).isNegative();
        assertThat(throughput.verdict()).isEmpty();
        assertThat(throughput.deltaInterval()).isNull();

        // three runs: each against the pinned baseline, side by side in one table per level
        String c = storeLevels("Kimi", Map.of(4, base), 3_000);
        RunComparison.Result three = RunComparison.compare(store, store.run(a), List.of(store.run(b), store.run(c)));
        assertThat(three.pairs()).hasSize(2);
        assertThat(row(three.pairs().get(1), "chat/parallel_4", "p50 TTFT (ms)").verdict())
                .isEqualTo(MetricDelta.SAME);
        String text = RunComparisonReport.render(three.a().row().label(), List.of(
                side("B", three.pairs().get(0)), side("C", three.pairs().get(1))), RunComparison.METHOD);
        assertThat(text).contains("chat/parallel_4 — concurrency 4", "chat/parallel_16 — concurrency 16",
                "Not compared: only in A, not in B: chat/parallel_1", "Not compared: only in B: chat/parallel_2",
                "400/400/400", "worse", "same");
    }

    /** Issue 30: TTFCT is compared beside TTFT when either run's replies reasoned first, and not otherwise. */
    @Test
    void compareShowsTtfctWhenEitherRunReasonedAndNotOtherwise() throws Exception {
        List<RequestRecord> base = TestStores.records(100, BASE, 4);
        String plain = storeLevels("DeepSeek", Map.of(4, base), 1_000);
        String plain2 = storeLevels("Qwen", Map.of(4, base), 2_000);
        String reasoning = storeLevels("Kimi", Map.of(4, reasonedFirst(base, 50_000_000L)), 3_000);
        assertThat(RunComparison.compare(store, store.run(plain), store.run(plain2)).rows())
                .extracting(MetricDelta::metric).noneMatch(m -> m.contains("TTFCT"));
        RunComparison.Pair pair = RunComparison.compare(store, store.run(plain), store.run(reasoning)).pairs()
                .getFirst();
        assertThat(pair.rows()).extracting(MetricDelta::metric).contains("Avg TTFCT (ms)", "p50 TTFCT (ms)",
                "p95 TTFCT (ms)", "p99 TTFCT (ms)");
        MetricDelta p50 = row(pair, "chat/parallel_4", "p50 TTFCT (ms)");
        assertThat(p50.a()).isNull(); // the baseline did not reason: its side is empty
        assertThat(p50.nB()).isEqualTo(80);
        String text = RunComparisonReport.render("A", List.of(side("B", pair)), RunComparison.METHOD);
        assertThat(text).contains("TTFCT (ms)");
    }

    /** The records with their answer's first token {@code nanos} after the first (reasoning) token. */
    private static List<RequestRecord> reasonedFirst(List<RequestRecord> in, long nanos) {
        List<RequestRecord> out = new ArrayList<>();
        for (RequestRecord r : in) {
            Timing t = r.timing();
            long content = t.firstTokenNanos() == Moments.ABSENT ? Moments.ABSENT
                    : Math.min(t.firstTokenNanos() + nanos, t.endNanos());
            out.add(new RequestRecord(r.position(), new Timing(t.stream(), t.startEpochMillis(), t.scheduledNanos(),
                    t.startNanos(), t.headersNanos(), t.firstChunkNanos(), t.firstTokenNanos(), t.endNanos(),
                    t.tokenChunkNanos(), content), r.tokens(), r.outcome(), r.phases(), r.serverTimings()));
        }
        return out;
    }

    private static RunComparisonReport.Side side(String key, RunComparison.Pair p) {
        return new RunComparisonReport.Side(key, p.candidate().row().label(), p.rows(), p.onlyBaseline(),
                p.onlyCandidate());
    }

    /** A finished run of {@code provider}'s scenario "chat", one point per concurrency with its records. */
    private String storeLevels(String provider, Map<Integer, List<RequestRecord>> levels, long now) throws Exception {
        ObjectNode config = ResultJson.MAPPER.createObjectNode().put("name", "bench");
        String id = store.createRun(new RunStart("bench/" + provider, List.of(), "m-" + provider, "http://h/v1",
                config, Map.of("provider", provider)), me, now);
        int index = 0;
        for (int level : new java.util.TreeSet<>(levels.keySet())) {
            RunInfo info = new RunInfo(provider + "/chat/parallel_" + level, level, -1, -1);
            store.addPoint(id, index, info, now);
            store.insertRequests(id, index, BASE, levels.get(level), now);
            RunMetrics m = new RunMetrics();
            levels.get(level).forEach(m::accept);
            store.savePointResult(id, index, m.result(info));
            index++;
        }
        store.finishRun(id, RunRow.FINISHED, now + 1);
        return id;
    }

    private static MetricDelta row(RunComparison.Pair p, String level, String metric) {
        return p.rows().stream().filter(x -> x.point().equals(level) && x.metric().equals(metric)).findFirst()
                .orElseThrow(() -> new AssertionError("no row " + level + " " + metric + " in " + p.rows()));
    }

    @Test
    void aPointIsMatchedByScenarioAndLevel() {
        assertThat(RunComparison.levelKey("DeepSeek/chat/parallel_4", "DeepSeek")).isEqualTo("chat/parallel_4");
        assertThat(RunComparison.levelKey("Qwen/chat/parallel_4", "Qwen")).isEqualTo("chat/parallel_4");
        assertThat(RunComparison.levelKey("parallel_8_number_100", null)).isEqualTo("parallel_8");
        assertThat(RunComparison.levelKey("parallel_8_number_400", null)).isEqualTo("parallel_8");
        assertThat(RunComparison.levelKey("rate_5.0_number_400", null)).isEqualTo("rate_5");
        assertThat(RunComparison.levelKey("p/a/b/rate_2.50", "p")).isEqualTo("a/b/rate_2.5");
        assertThat(RunComparison.levelKey("p/chat/trace", "p")).isEqualTo("chat/trace");
    }

    /** The records with every moment stretched by {@code factor} around {@link #BASE}. */
    static List<RequestRecord> slower(List<RequestRecord> in, double factor) {
        List<RequestRecord> out = new ArrayList<>();
        for (RequestRecord r : in) {
            long[] chunks = Arrays.stream(r.timing().tokenChunkNanos()).map(t -> stretch(t, factor)).toArray();
            Timing t = r.timing();
            Timing stretched = new Timing(t.stream(), t.startEpochMillis(), stretch(t.scheduledNanos(), factor),
                    stretch(t.startNanos(), factor), stretch(t.headersNanos(), factor),
                    stretch(t.firstChunkNanos(), factor), stretch(t.firstTokenNanos(), factor),
                    stretch(t.endNanos(), factor), chunks, stretch(t.firstContentNanos(), factor));
            Outcome o = r.outcome();
            // only what the comparison reads: no connection phases, prompt lengths, server timings or error type
            out.add(new RequestRecord(r.position(), stretched, r.tokens().withPromptLengths(-1, -1),
                    new Outcome(o.success(), o.errorClass(), o.httpStatus(), o.errorMessage(), null, o.finishReason()),
                    PhaseTimes.NONE, null));
        }
        return out;
    }

    private static long stretch(long t, double factor) {
        return t == Moments.ABSENT ? t : BASE + Math.round((t - BASE) * factor);
    }

    @Test
    void jsonExportRebuildsTheStoredRecordsAndSummaries() throws Exception {
        List<RequestRecord> records = TestStores.records(25, BASE, 5);
        String id = storeRun(start("e", "m", "u", List.of("t1")), records, 1_000);
        java.io.StringWriter out = new java.io.StringWriter();
        RunExport.json(store, store.run(id), out);
        JsonNode doc = ResultJson.MAPPER.readTree(out.toString());
        assertThat(doc.at("/run/run_id").asText()).isEqualTo(id);
        assertThat(doc.at("/run/tags/0").asText()).isEqualTo("t1");
        JsonNode point = doc.at("/points/0");
        assertThat(point.get("summary")).isEqualTo(store.run(id).points().getFirst().summary());
        List<RequestRecord> rebuilt = new ArrayList<>();
        for (JsonNode r : point.get("requests")) {
            Map<String, String> fields = new HashMap<>();
            r.properties().forEach(e -> fields.put(e.getKey(), e.getValue().isNull() ? null
                    : e.getValue().isArray() ? joinArray(e.getValue()) : e.getValue().asText()));
            rebuilt.add(fromFields(fields));
        }
        assertSameRecords(rebuilt, records, BASE);
        // the requests.jsonl fields are there with their meaning: seconds since the point's start
        JsonNode first = point.get("requests").get(0);
        assertThat(first.get("latency_s").asDouble()).isEqualTo(records.getFirst().latencySeconds());
        assertThat(first.get("itl_s").size()).isEqualTo(records.getFirst().interChunkCount());
    }

    @Test
    void csvExportRebuildsTheStoredRecords() throws Exception {
        List<RequestRecord> records = TestStores.records(25, BASE, 6);
        String id = storeRun(start("c", "m", "u", List.of()), records, 1_000);
        StringWriter requests = new StringWriter();
        RunExport.requestsCsv(store, store.run(id), requests);
        List<List<String>> rows = Csv.parse(requests.toString());
        List<String> header = rows.getFirst();
        assertThat(header.subList(0, 4)).containsExactly("run_id", "point", "label", "index");
        List<RequestRecord> rebuilt = new ArrayList<>();
        for (List<String> row : rows.subList(1, rows.size())) {
            Map<String, String> fields = new HashMap<>();
            for (int i = 0; i < header.size(); i++) fields.put(header.get(i), row.get(i).isEmpty() ? null : row.get(i));
            assertThat(fields.get("run_id")).isEqualTo(id);
            rebuilt.add(fromFields(fields));
        }
        assertSameRecords(rebuilt, records, BASE);

        StringWriter summary = new StringWriter();
        RunExport.summaryCsv(store.run(id), summary);
        List<List<String>> srows = Csv.parse(summary.toString());
        int col = srows.getFirst().indexOf("Total Requests");
        assertThat(Double.parseDouble(srows.get(1).get(col))).isEqualTo(25);
    }

    private static String joinArray(JsonNode array) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode v : array) sb.append(sb.isEmpty() ? "" : " ").append(v.asText());
        return sb.toString();
    }

    /** A record from exported fields (text values, arrays space-separated), moments relative to 0. */
    static RequestRecord fromFields(Map<String, String> f) {
        String chunkText = f.get("token_chunk_s");
        long[] chunks = chunkText == null || chunkText.isBlank() ? new long[0]
                : Arrays.stream(chunkText.split(" ")).mapToLong(s -> RequestFields.nanos(Double.parseDouble(s))).toArray();
        return new RequestRecord(
                new Position(Long.parseLong(f.get("index")), f.get("request_id"), f.get("conversation_id"),
                        Integer.parseInt(f.get("turn")), Boolean.parseBoolean(f.get("is_last_turn"))),
                new Timing(Boolean.parseBoolean(f.get("stream")), Long.parseLong(f.get("start_epoch_ms")),
                        moment(f, "scheduled_s"), moment(f, "start_s"), moment(f, "headers_s"),
                        moment(f, "first_chunk_s"), moment(f, "first_token_s"), moment(f, "end_s"), chunks,
                        moment(f, "first_content_token_s")),
                new Tokens(count(f, "prompt_tokens"), count(f, "completion_tokens"), count(f, "cached_tokens"),
                        f.get("cached_token_source") == null ? null : RequestRecord.CacheSource.valueOf(
                                f.get("cached_token_source").toUpperCase(java.util.Locale.ROOT)),
                        f.get("token_source") == null ? null
                                : RequestRecord.TokenSource.valueOf(f.get("token_source").toUpperCase(java.util.Locale.ROOT)),
                        count(f, "target_prompt_tokens"), count(f, "synthesized_prompt_tokens"), null,
                        count(f, "reasoning_tokens")),
                new Outcome(Boolean.parseBoolean(f.get("success")), f.get("error_class"),
                        Integer.parseInt(f.get("http_status")), f.get("error_message"), f.get("error_type"),
                        f.get("finish_reason")),
                new PhaseTimes(moment(f, "connect_start_s"), moment(f, "dns_done_s"), moment(f, "connect_done_s"),
                        moment(f, "tls_done_s"), moment(f, "write_start_s"), moment(f, "written_s"),
                        moment(f, "first_byte_s"), moment(f, "stale_attempt_start_s")),
                f.get("server_prompt_n") == null ? null : new ServerTimings(
                        count(f, "server_prompt_n"), millis(f, "server_prompt_ms"), count(f, "server_predicted_n"),
                        millis(f, "server_predicted_ms"), count(f, "server_cache_n")));
    }

    private static double millis(Map<String, String> f, String k) {
        return f.get(k) == null ? Double.NaN : Double.parseDouble(f.get(k));
    }

    private static long moment(Map<String, String> f, String k) {
        return RequestFields.nanos(f.get(k) == null ? null : Double.parseDouble(f.get(k)));
    }

    private static int count(Map<String, String> f, String k) {
        return f.get(k) == null ? -1 : Integer.parseInt(f.get(k));
    }

    /** Field-by-field equality, the expected moments shifted to the point's origin. */
    static void assertSameRecords(List<RequestRecord> actual, List<RequestRecord> expected, long base) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            RequestRecord e = expected.get(i);
            RequestRecord a = actual.get(i);
            assertThat(a).usingRecursiveComparison().withComparatorForType(Double::compare, Double.class) // NaN: unknown
                    .ignoringFields("timing.scheduledNanos", "timing.startNanos", "timing.headersNanos",
                    "timing.firstChunkNanos", "timing.firstTokenNanos", "timing.endNanos", "timing.tokenChunkNanos",
                    "timing.firstContentNanos", "phases").isEqualTo(e);
            PhaseTimes p = e.phases();
            assertThat(a.phases()).as("phases of record %d", i).isEqualTo(new PhaseTimes(
                    shift(p.connectStartNanos(), base), shift(p.dnsDoneNanos(), base),
                    shift(p.connectDoneNanos(), base), shift(p.tlsDoneNanos(), base),
                    shift(p.writeStartNanos(), base), shift(p.writtenNanos(), base),
                    shift(p.firstByteNanos(), base), shift(p.staleStartNanos(), base)));
            Timing at = a.timing();
            Timing et = e.timing();
            assertThat(new long[] {at.scheduledNanos(), at.startNanos(), at.headersNanos(), at.firstChunkNanos(),
                    at.firstTokenNanos(), at.endNanos(), at.firstContentNanos()}).as("moments of record %d", i)
                    .containsExactly(shift(et.scheduledNanos(), base), shift(et.startNanos(), base),
                    shift(et.headersNanos(), base), shift(et.firstChunkNanos(), base), shift(et.firstTokenNanos(), base),
                    shift(et.endNanos(), base), shift(et.firstContentNanos(), base));
            assertThat(at.tokenChunkNanos()).containsExactly(Arrays.stream(et.tokenChunkNanos()).map(t -> t - base).toArray());
        }
    }

    private static long shift(long t, long base) {
        return t == Moments.ABSENT ? t : t - base;
    }

    @Test
    void deleteRemovesTheRunAndItsRequestsOnly() throws Exception {
        List<RequestRecord> r = TestStores.records(10, BASE, 7);
        String gone = storeRun(start("x", "m", "u", List.of("t")), r, 1);
        String kept = storeRun(start("y", "m", "u", List.of("t")), r, 2);
        assertThat(store.deleteRun(gone, false).runIds()).containsExactly(gone);
        assertThat(ids(RunFilter.all(10))).containsExactly(kept);
        assertThat(stored(gone)).isEmpty();
        assertThat(stored(kept)).hasSize(10);
        assertThat(store.deleteRun(gone, false).runIds()).isEmpty();
    }

    @Test
    void deletingAServiceRunDeletesItsLinkedProvidersRunsAndALinkedRunGoesAlone() throws Exception {
        List<RequestRecord> r = TestStores.records(4, BASE, 9);
        String parent = storeRun(start("svc", "m", "http://a/v1", List.of()), r, 1000);
        String b = storeRun(start("svc/b", "m", "http://b/v1", List.of()).under(parent), r, 2000);
        String c = storeRun(start("svc/c", "m", "http://c/v1", List.of()).under(parent), r, 3000);
        String other = storeRun(start("other", "m", "http://d/v1", List.of()), r, 4000);
        // one provider's run alone: the parent and its other provider stay, and the parent no longer lists it
        assertThat(store.deletedWith(c, false)).extracting(RunRow::runId).containsExactly(c);
        assertThat(store.deleteRun(c, false).runIds()).containsExactly(c);
        assertThat(store.linkedRuns(parent)).extracting(RunRow::runId).containsExactly(b);
        // the parent: with its linked runs, their requests too
        assertThat(store.deletedWith(parent, false)).extracting(RunRow::runId).containsExactly(parent, b);
        RunStore.Deletion d = store.deleteRun(parent, false);
        assertThat(d.runIds()).containsExactly(parent, b);
        assertThat(d.releasedGroup()).isNull();
        assertThat(ids(RunFilter.all(10))).containsExactly(other);
        assertThat(stored(b)).isEmpty();
        assertThat(stored(other)).hasSize(4);
    }

    @Test
    void aRunWhoseLinkedRunIsStillRunningIsNotDeletedAtAll() throws Exception {
        String parent = storeRun(start("svc", "m", "http://a/v1", List.of()), TestStores.records(3, BASE, 4), 1000);
        String running = store.createRun(start("svc/b", "m", "http://b/v1", List.of()).under(parent), me, 2000);
        assertThatThrownBy(() -> store.deleteRun(parent, false)).isInstanceOf(IllegalStateException.class)
                .hasMessage("run " + running + ", deleted with " + parent + ", is running; cancel it first");
        assertThat(ids(RunFilter.all(10))).containsExactlyInAnyOrder(parent, running);
        assertThat(stored(parent)).hasSize(3);
    }

    @Test
    void migrationsRunOnceAndReopeningKeepsTheData() throws Exception {
        String id = storeRun(start("m", "m", "u", List.of()), TestStores.records(3, BASE, 8), 1);
        store.close();
        store = RunStore.open(backend.location());
        assertThat(stored(id)).hasSize(3);
        try (Connection c = DriverManager.getConnection(backend.location().jdbcUrl(), backend.location().properties());
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT version FROM schema_version")) {
            List<Integer> versions = new ArrayList<>();
            while (rs.next()) versions.add(rs.getInt(1));
            assertThat(versions).containsExactlyInAnyOrderElementsOf(
                    Migrations.FILES.stream().map(Migrations::version).toList());
        }
    }

    @Test
    void aStoreWithoutTheStaleRetryColumnGetsItAndKeepsItsRequests() throws Exception {
        List<RequestRecord> records = TestStores.records(12, BASE, 9);
        String old = storeRun(start("old", "m", "u", List.of()), records, 1);
        store.close();
        // a store written by a build without V2 (the versions after it were applied): no stale_start_ns
        try (Connection c = DriverManager.getConnection(backend.location().jdbcUrl(), backend.location().properties());
             Statement st = c.createStatement()) {
            st.execute("ALTER TABLE requests DROP COLUMN stale_start_ns");
            st.execute("DELETE FROM schema_version WHERE version = 2");
        }
        Database.forgetMigrated(backend.location()); // opened by the next process: migrations run once per process
        store = RunStore.open(backend.location());
        assertThat(stored(old)).hasSize(12).noneMatch(RequestRecord::retriedStaleConnection);
        String now = storeRun(start("new", "m", "u", List.of()), records, 2);
        assertSameRecords(stored(now), records, BASE);
        assertThat(stored(now)).anyMatch(RequestRecord::retriedStaleConnection);
    }

    @Test
    void configKeyIgnoresNamesAndOutputsButNotTheLoad() {
        ObjectNode a = ResultJson.MAPPER.createObjectNode().put("url", "http://h").put("name", "x").put("number", 10);
        ObjectNode b = a.deepCopy().put("name", "y").put("outputs_dir", "elsewhere");
        ObjectNode c = a.deepCopy().put("number", 11);
        assertThat(RunWrites.configKey(a)).isEqualTo(RunWrites.configKey(b)).isNotEqualTo(RunWrites.configKey(c));
        assertThat(RunWrites.configKey(a.deepCopy().put("embedded_simulator", true).put("url", "http://p1")))
                .isEqualTo(RunWrites.configKey(a.deepCopy().put("embedded_simulator", true).put("url", "http://p2")));
    }

    static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
