package io.unibench.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The platform's import and export: a result file posted to {@code /api/runs/import} is stored as {@code runs
 * import} stores it; a bad, foreign-origin or too large upload stores nothing and says why in one line; a run
 * downloads as a Benchmark Report v0.2; the compare page shows both fingerprints, the refusal and the marked override.
 */
class WebImportTest extends WebFixtureTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path SAMPLES = Path.of("src/test/resources/io/unibench/importer");
    private static final Path VLLM = SAMPLES.resolve(
            "vllm-bench-serve/openai-chat-infqps-concurrency4-qwen-plus-20261201-225459.json");

    private static HttpResponse<String> upload(String file, byte[] body, Map<String, String> headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(f.base() + "/api/runs/import?file=" + file))
                .header("Content-Type", "application/octet-stream").POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(b::header);
        return f.send(b);
    }

    @Test
    void anUploadedFileIsStoredAsRunsImportStoresIt() throws Exception {
        HttpResponse<String> r = upload("guidellm_report_v2.json",
                Files.readAllBytes(SAMPLES.resolve("guidellm/guidellm_report_v2.json")), Map.of("Origin", f.base()));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        JsonNode run = JSON.readTree(r.body()).path("runs").get(0);
        assertThat(run.path("tool").asText()).isEqualTo("GuideLLM");
        assertThat(run.path("points").asInt()).isEqualTo(2);
        JsonNode detail = JSON.readTree(f.get("/api/runs/" + run.path("id").asText()).body());
        JsonNode env = detail.path("environment");
        assertThat(env.path("source_tool").asText()).isEqualTo("GuideLLM");
        // the stored file name is the upload's, never the service's temporary folder
        assertThat(env.path("source_files").has("guidellm_report_v2.json")).as(env.toString()).isTrue();
        assertThat(detail.toString()).doesNotContain("unibench-upload");
    }

    @Test
    void aFigureTheToolDidNotMeasureIsAbsentOnTheRunPageNeverZero() throws Exception {
        HttpResponse<String> up = upload("vllm.json", Files.readAllBytes(VLLM), Map.of());
        assertThat(up.statusCode()).as(up.body()).isEqualTo(201);
        String id = JSON.readTree(up.body()).path("runs").get(0).path("id").asText();
        // vLLM's per-request rows count no cached tokens: the cached/new prompt split is null, never 0 and all new
        JsonNode rows = JSON.readTree(f.get("/api/runs/" + id).body()).at("/points/0/workload/rows");
        for (JsonNode row : rows) {
            String metric = row.path("metric").asText();
            boolean split = metric.equals("Cached Prompt tok/s") || metric.equals("New Prompt tok/s");
            assertThat(row.path("overall").isNull()).as(row.toString()).isEqualTo(split);
            assertThat(row.path("steady_state").isNull()).as(row.toString()).isEqualTo(split);
        }
        String page = f.get("/runs/" + id).body();
        assertThat(page).contains("Cached Prompt tok/s (not measured by the tool it was imported from)",
                "New Prompt tok/s (not measured by the tool it was imported from)");
        // our own run keeps its measured figures, a zero included
        String ours = f.get("/runs/" + f.runIds.getFirst()).body();
        assertThat(ours).contains("Cached Prompt tok/s").doesNotContain("not measured by the tool");
        JsonNode ourRows = JSON.readTree(f.get("/api/runs/" + f.runIds.getFirst()).body()).at("/points/0/workload/rows");
        assertThat(ourRows.isEmpty()).isFalse();
        ourRows.forEach(row -> assertThat(row.path("overall").isNumber()).as(row.toString()).isTrue());
    }

    @Test
    void aBadFileIsItsLocatedLineAndNothingIsStored() throws Exception {
        long before = f.store.count();
        ObjectNode bad = (ObjectNode) JSON.readTree(VLLM.toFile());
        ((com.fasterxml.jackson.databind.node.ArrayNode) bad.get("ttfts")).set(3, JSON.getNodeFactory().textNode("x"));
        HttpResponse<String> r = upload("bad.json", JSON.writeValueAsBytes(bad), Map.of());
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(r.body()).path("error").asText())
                .isEqualTo("bad.json: /ttfts/3: expected a number, found string \"x\"");
        HttpResponse<String> none = upload("notes.json", "{\"hello\": 1}".getBytes(), Map.of());
        assertThat(none.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(none.body()).path("error").asText()).startsWith("notes.json: /: not a result runs import recognises");
        assertThat(f.store.count()).isEqualTo(before);
    }

    @Test
    void aForeignOriginOrATooLargeFileStoresNothing() throws Exception {
        long before = f.store.count();
        byte[] vllm = Files.readAllBytes(VLLM);
        HttpResponse<String> cross = upload("v.json", vllm, Map.of("Origin", "http://127.0.0.1:1"));
        assertThat(cross.statusCode()).isEqualTo(403);
        byte[] big = new byte[(int) RunImports.MAX_UPLOAD_BYTES + 1];
        java.util.Arrays.fill(big, (byte) ' ');
        HttpResponse<String> large = upload("big.json", big, Map.of());
        assertThat(large.statusCode()).isEqualTo(413);
        assertThat(JSON.readTree(large.body()).path("error").asText())
                .startsWith("big.json: larger than 16 MiB, the most the platform takes");
        assertThat(f.store.count()).isEqualTo(before);
    }

    @Test
    void aRunDownloadsAsABenchmarkReport() throws Exception {
        HttpResponse<String> r = f.get("/api/runs/" + f.runIds.getFirst() + "/export?format=br-v0.2");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Disposition").orElse(""))
                .isEqualTo("attachment; filename=\"" + f.runIds.getFirst() + "-br-v0.2.json\"");
        JsonNode doc = JSON.readTree(r.body());
        assertThat(doc.path("version").asText()).isEqualTo("0.2");
        assertThat(doc.at("/run/uid").asText()).isEqualTo(f.runIds.getFirst());
        assertThat(f.get("/api/runs/" + f.runIds.getFirst() + "/export?format=csv").statusCode()).isEqualTo(400);
    }

    @Test
    void theComparePageShowsBothFingerprintsTheRefusalAndAMarkedOverride() throws Exception {
        HttpResponse<String> up = upload("vllm.json", Files.readAllBytes(VLLM), Map.of());
        assertThat(up.statusCode()).as(up.body()).isEqualTo(201);
        String vllm = JSON.readTree(up.body()).path("runs").get(0).path("id").asText();
        String a = f.runIds.getFirst();
        String page = f.get("/compare?a=" + a + "&b=" + vllm).body();
        assertThat(page).contains("Workload fingerprints", "first chunk with text (role-only chunk excluded)",
                "first chunk of any kind (role-only chunk included)", "No verdict",
                "B: B's TTFT is the first chunk of any kind", "Compare anyway (verdicts marked as forced)",
                "href=\"/compare?a=" + a + "&amp;b=" + vllm + "&amp;force=true\"");
        String forced = f.get("/compare?a=" + a + "&b=" + vllm + "&force=true").body();
        assertThat(forced).contains("Compared anyway.", "forced; not comparable").doesNotContain("Compare anyway (");
    }
}
