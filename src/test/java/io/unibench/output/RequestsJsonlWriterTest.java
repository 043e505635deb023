package io.unibench.output;

import static io.unibench.metrics.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.Golden;
import io.unibench.metrics.RequestFields;
import io.unibench.metrics.RequestRecord;
import io.unibench.metrics.TestRecords;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RequestsJsonlWriterTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void intervalsAreWrittenAsJacksonWritesTheirDoubles() throws Exception {
        Path file = dir.resolve("requests.jsonl");
        double[] chunks = {100, 100.000001, 100.0004, 100.0014, 100.0014, 101.5, 1101.5, 1101.512345678};
        RequestRecord r = record().index(0).startMs(99).chunksMs(chunks).endMs(1200).tokens(4, chunks.length).build();
        try (RequestsJsonlWriter w = new RequestsJsonlWriter(file, TestRecords.ms(0))) {
            w.accept(r);
        }
        String line = Files.readAllLines(file, StandardCharsets.UTF_8).getFirst();
        List<Double> itl = new ArrayList<>();
        for (int i = 0; i < r.interChunkCount(); i++) itl.add(r.interChunkSeconds(i));
        assertThat(line).contains("\"itl_s\":" + MAPPER.writeValueAsString(itl) + ",");
        assertThat(line).contains("\"itl_s\":[1.0E-9,3.99E-7,1.0E-6,0.0,0.0014986,1.0,1.2346E-5],");
    }

    /** Raw values larger than the generator's free buffer space take its other path: still the same text. */
    @Test
    void longIntervalArraysAcrossGeneratorBufferBoundaries() throws Exception {
        Path file = dir.resolve("long.jsonl");
        List<RequestRecord> records = new ArrayList<>();
        java.util.SplittableRandom rng = new java.util.SplittableRandom(3);
        for (int i = 0; i < 40; i++) {
            double[] chunks = new double[200 + rng.nextInt(900)];
            double t = 100;
            for (int c = 0; c < chunks.length; c++) chunks[c] = t += rng.nextDouble() * 3;
            records.add(record().index(i).startMs(99).chunksMs(chunks).endMs(t + 1).tokens(4, chunks.length).build());
        }
        try (RequestsJsonlWriter w = new RequestsJsonlWriter(file, TestRecords.ms(0))) {
            records.forEach(w::accept);
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertThat(lines).hasSize(records.size());
        for (int i = 0; i < records.size(); i++) {
            RequestRecord r = records.get(i);
            List<Double> itl = new ArrayList<>();
            for (int k = 0; k < r.interChunkCount(); k++) itl.add(r.interChunkSeconds(k));
            assertThat(lines.get(i)).contains("\"itl_s\":" + MAPPER.writeValueAsString(itl) + ",");
            assertThat(MAPPER.readTree(lines.get(i)).get("index").asInt()).isEqualTo(i);
        }
    }

    /** Moments are written by SecondsText: the text must stay what Jackson wrote for (nanos - runStart) / 1e9. */
    @Test
    void momentsAreWrittenAsJacksonWritesTheirDoubles() throws Exception {
        Path file = dir.resolve("moments.jsonl");
        long runStart = TestRecords.ms(0) + 123_456_789L;
        double[][] moments = {{0, 0.000001, 0.5, 0.5000001}, {99.999999, 100, 100.001, 3600.123456789},
                {1e-6, 2e-6, 2.5e-3, 7}};
        List<RequestRecord> records = new ArrayList<>();
        for (double[] m : moments) {
            records.add(record().index(records.size()).scheduledMs(m[0]).startMs(m[1]).headersMs(m[2])
                    .firstChunkMs(m[2]).chunksMs(m[2], m[3]).endMs(m[3]).tokens(3, 2).build());
        }
        try (RequestsJsonlWriter w = new RequestsJsonlWriter(file, runStart)) {
            records.forEach(w::accept);
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < records.size(); i++) {
            RequestRecord r = records.get(i);
            long[] nanos = {r.timing().scheduledNanos(), r.timing().startNanos(), r.timing().headersNanos(), r.timing().firstChunkNanos(), r.timing().endNanos()};
            String[] keys = {"scheduled_s", "start_s", "headers_s", "first_chunk_s", "end_s"};
            for (int k = 0; k < keys.length; k++) {
                String jackson = MAPPER.writeValueAsString((nanos[k] - runStart) / 1e9);
                assertThat(lines.get(i)).contains("\"" + keys[k] + "\":" + jackson + ",");
            }
        }
        // the member order of the format
        List<String> names = new ArrayList<>();
        MAPPER.readTree(lines.getFirst()).fieldNames().forEachRemaining(names::add);
        assertThat(names).containsExactly("index", "request_id", "conversation_id", "turn", "is_first_turn",
                "is_last_turn", "stream", "success", "error_class", "http_status", "error_message", "finish_reason",
                "start_epoch_ms", "scheduled_s", "start_s", "headers_s", "first_chunk_s", "first_token_s", "end_s",
                "new_connection", "connect_start_s", "dns_done_s", "connect_done_s", "tls_done_s", "write_start_s",
                "written_s", "first_byte_s", "phases_ms", "latency_s", "ttft_s", "first_chunk_latency_s", "tpot_s",
                "queue_delay_s", "tokens_per_chunk", "itl_s", "prompt_tokens", "completion_tokens", "cached_tokens",
                "cached_token_source", "token_source", "target_prompt_tokens", "synthesized_prompt_tokens",
                "error_type", "server_prompt_n", "server_prompt_ms", "server_predicted_n", "server_predicted_ms",
                "server_cache_n", "retried_stale_connection", "stale_attempt_start_s", "cached_token_field",
                "first_content_token_s", "ttfct_s", "answer_tpot_s", "reasoning_tokens", "retries", "retry_wait_s");
    }

    /**
     * This file and the run history's export write the fields of one list ({@code metrics.RequestFields}): this
     * writer through its fast typed path, the export through {@code Field.value}. Both must give the same values;
     * the export has {@code token_chunk_s} where this file has {@code phases_ms}.
     */
    @Test
    void theExportFieldsAreThisFilesFieldsWithTheSameValues() throws Exception {
        Path file = dir.resolve("same.jsonl");
        long runStart = TestRecords.ms(0);
        List<RequestRecord> records = new ArrayList<>(List.of(
                record().index(0).conversation("conv-1", 2).scheduledMs(90).startMs(100).headersMs(120)
                        .firstChunkMs(130).chunksMs(150, 250, 450).endMs(450).tokens(40, 5).cached(16).build(),
                record().index(1).startMs(200).endMs(300).failed("http_429", 429, "slow down")
                        .source(RequestRecord.TokenSource.ESTIMATE).build()));
        records.addAll(io.unibench.store.TestStores.records(8, runStart, 3)); // phases, server timings, error types
        try (RequestsJsonlWriter w = new RequestsJsonlWriter(file, runStart)) {
            records.forEach(w::accept);
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < records.size(); i++) {
            JsonNode line = MAPPER.readTree(lines.get(i));
            List<String> names = new ArrayList<>();
            line.fieldNames().forEachRemaining(names::add);
            List<String> exported = new ArrayList<>();
            for (RequestFields.Field f : RequestFields.EXPORT) exported.add(f.name());
            List<String> fileNames = new ArrayList<>(names);
            fileNames.remove("phases_ms");
            fileNames.removeAll(List.of("retries", "retry_wait_s")); // not kept by the run history yet
            fileNames.add(fileNames.indexOf("itl_s") + 1, "token_chunk_s");
            assertThat(fileNames).as("record %d: the export's names in the same order", i).isEqualTo(exported);
            List<String> jsonl = new ArrayList<>();
            for (RequestFields.Field f : RequestFields.JSONL) {
                jsonl.add(f.name());
                assertSameValue(f.value(records.get(i), runStart), line.get(f.name()), "record " + i + ", " + f.name());
            }
            assertThat(names).as("record %d: the file's names", i).isEqualTo(jsonl);
        }
    }

    private static void assertSameValue(Object value, JsonNode written, String what) {
        assertThat(written).as(what).isNotNull();
        switch (value) {
            case null -> assertThat(written.isNull()).as("%s is null", what).isTrue();
            case double[] a -> {
                assertThat(written.size()).as(what).isEqualTo(a.length);
                for (int k = 0; k < a.length; k++) assertThat(written.get(k).asDouble()).isEqualTo(a[k]);
            }
            case Double d -> assertThat(written.asDouble()).as(what).isEqualTo(d);
            case Boolean b -> assertThat(written.asBoolean()).as(what).isEqualTo(b);
            case Long l -> assertThat(written.asLong()).as(what).isEqualTo(l);
            case Map<?, ?> m -> {
                assertThat(written.size()).as(what).isEqualTo(m.size());
                m.forEach((k, v) -> assertSameValue(v, written.get((String) k), what + "." + k));
            }
            default -> assertThat(written.asText()).as(what).isEqualTo(value.toString());
        }
    }

    /**
     * Whole lines against the golden file, for records of every kind (streamed, failed, retried after a stale
     * connection, with the server's timings and error type, synthesized prompt lengths, not streamed, cancelled):
     * the file's bytes must stay what they are.
     */
    @Test
    void wholeLinesAreTheGoldenFile() throws Exception {
        Path file = dir.resolve("golden.jsonl");
        List<RequestRecord> records = new ArrayList<>(io.unibench.store.TestStores.records(12, TestRecords.ms(0), 6));
        records.set(3, records.get(3).withPromptLengths(128, 131));
        records.add(record().index(12).nonStream().startMs(10).headersMs(50).firstChunkMs(60).endMs(60)
                .tokens(20, 30).build());
        records.add(record().index(13).conversation("conv-9", 1).lastTurn().startMs(20).endMs(25)
                .failed("cancelled", 0, "stopped").build());
        try (RequestsJsonlWriter w = new RequestsJsonlWriter(file, TestRecords.ms(-250))) {
            records.forEach(w::accept);
        }
        Golden.assertMatches("requests.jsonl", Files.readString(file, StandardCharsets.UTF_8));
    }

    @Test
    void roundTrip() throws Exception {
        Path file = dir.resolve("sub/requests.jsonl");
        long runStart = TestRecords.ms(0);
        try (RequestsJsonlWriter w = new RequestsJsonlWriter(file, runStart)) {
            w.accept(record().index(0).conversation("conv-1", 2).scheduledMs(90).startMs(100).headersMs(120)
                    .firstChunkMs(130).chunksMs(150, 250, 450).endMs(450).tokens(40, 5).cached(16).build());
            w.accept(record().index(1).startMs(200).endMs(300).failed("http_429", 429, "slow down \"please\"")
                    .source(RequestRecord.TokenSource.ESTIMATE).build());
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertThat(lines).hasSize(2);
        assertThat(lines).allSatisfy(l -> assertThat(l).doesNotContain("NaN").startsWith("{").endsWith("}"));

        JsonNode ok = MAPPER.readTree(lines.get(0));
        assertThat(ok.get("index").asLong()).isZero();
        assertThat(ok.get("request_id").asText()).isEqualTo("req-0");
        assertThat(ok.get("conversation_id").asText()).isEqualTo("conv-1");
        assertThat(ok.get("turn").asInt()).isEqualTo(2);
        assertThat(ok.get("stream").asBoolean()).isTrue();
        assertThat(ok.get("success").asBoolean()).isTrue();
        assertThat(ok.get("error_class").isNull()).isTrue();
        assertThat(ok.get("http_status").asInt()).isEqualTo(200);
        assertThat(ok.get("finish_reason").asText()).isEqualTo("stop");
        assertThat(ok.get("start_epoch_ms").asLong()).isEqualTo(1_700_000_000_000L);
        assertThat(ok.get("scheduled_s").asDouble()).isCloseTo(0.09, within(1e-9));
        assertThat(ok.get("start_s").asDouble()).isCloseTo(0.1, within(1e-9));
        assertThat(ok.get("headers_s").asDouble()).isCloseTo(0.12, within(1e-9));
        assertThat(ok.get("first_chunk_s").asDouble()).isCloseTo(0.13, within(1e-9));
        assertThat(ok.get("first_token_s").asDouble()).isCloseTo(0.15, within(1e-9));
        assertThat(ok.get("end_s").asDouble()).isCloseTo(0.45, within(1e-9));
        assertThat(ok.get("latency_s").asDouble()).isCloseTo(0.35, within(1e-9));
        assertThat(ok.get("ttft_s").asDouble()).isCloseTo(0.05, within(1e-9));
        assertThat(ok.get("first_chunk_latency_s").asDouble()).isCloseTo(0.03, within(1e-9));
        assertThat(ok.get("tpot_s").asDouble()).isCloseTo(0.075, within(1e-9)); // (0.35 − 0.05) / 4
        assertThat(ok.get("queue_delay_s").asDouble()).isCloseTo(0.01, within(1e-9));
        assertThat(ok.get("tokens_per_chunk").asDouble()).isEqualTo(2.0); // (5 − 1) / (3 − 1)
        List<Double> itl = new ArrayList<>();
        ok.get("itl_s").forEach(n -> itl.add(n.asDouble()));
        assertThat(itl).containsExactly(0.1, 0.2);
        assertThat(ok.get("prompt_tokens").asInt()).isEqualTo(40);
        assertThat(ok.get("completion_tokens").asInt()).isEqualTo(5);
        assertThat(ok.get("cached_tokens").asInt()).isEqualTo(16);
        assertThat(ok.get("token_source").asText()).isEqualTo("server");

        JsonNode failed = MAPPER.readTree(lines.get(1));
        assertThat(failed.get("success").asBoolean()).isFalse();
        assertThat(failed.get("error_class").asText()).isEqualTo("http_429");
        assertThat(failed.get("error_message").asText()).isEqualTo("slow down \"please\"");
        assertThat(failed.get("scheduled_s").isNull()).isTrue();
        assertThat(failed.get("first_token_s").isNull()).isTrue();
        assertThat(failed.get("ttft_s").isNull()).isTrue();
        assertThat(failed.get("tpot_s").isNull()).isTrue();
        assertThat(failed.get("queue_delay_s").isNull()).isTrue();
        assertThat(failed.get("itl_s")).isEmpty();
        assertThat(failed.get("prompt_tokens").isNull()).isTrue();
        assertThat(failed.get("cached_tokens").isNull()).isTrue();
        assertThat(failed.get("token_source").asText()).isEqualTo("estimate");
    }

    @Test
    void flushedWhileIdleWithoutClose() throws Exception {
        Path file = dir.resolve("requests.jsonl");
        try (RequestsJsonlWriter w = new RequestsJsonlWriter(file, TestRecords.ms(0))) {
            w.accept(record().index(7).startMs(0).endMs(5).failed("cancelled", 0, "stop").build());
            // The background flusher runs once a second; poll with a generous bound (10 flush intervals) so a
            // slow shared machine cannot make this flaky, and fail if the line never reaches the file.
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (Files.size(file) == 0 && System.nanoTime() < deadline) Thread.sleep(20);
            assertThat(Files.readAllLines(file)).hasSize(1);
        }
    }

    @Test
    void concurrentWritersProduceWholeLines() throws Exception {
        Path file = dir.resolve("requests.jsonl");
        int threads = 4;
        int perThread = 500;
        try (RequestsJsonlWriter w = new RequestsJsonlWriter(file, TestRecords.ms(0))) {
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int base = t * perThread;
                ts.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < perThread; i++) {
                        w.accept(record().index(base + i).startMs(i).chunksMs(i + 1, i + 2).endMs(i + 2).tokens(3, 2).build());
                    }
                }));
            }
            for (Thread t : ts) t.join();
        }
        List<String> lines = Files.readAllLines(file);
        assertThat(lines).hasSize(threads * perThread);
        long distinct = lines.stream().map(l -> {
            try {
                return MAPPER.readTree(l).get("index").asLong();
            } catch (Exception e) {
                throw new AssertionError("not a JSON line: " + l, e);
            }
        }).distinct().count();
        assertThat(distinct).isEqualTo(threads * perThread);
    }
    /**
     * A disk that fills up mid-write (the channel takes the bytes that fit, then "No space left on device", as a full
     * tmpfs does): the file keeps whole lines only, each valid JSON; the failure names the file and is thrown once by
     * a record (which ends the run), then again by close; the records after it are not written.
     */
    @Test
    void aDiskThatFillsUpLeavesOnlyWholeLinesAndSaysWhichFile() throws Exception {
        Path file = dir.resolve("requests.jsonl");
        int room = 150_000; // more than one 64 KiB flush, less than the records: the second or third flush is cut
        FillingChannel channel = new FillingChannel(file, room);
        List<Throwable> thrown = new ArrayList<>();
        int records = 400;
        RequestsJsonlWriter w = new RequestsJsonlWriter(file, channel, TestRecords.ms(0));
        for (int i = 0; i < records; i++) {
            try {
                w.accept(record().index(i).startMs(i).chunksMs(i + 1, i + 2, i + 3).endMs(i + 4).tokens(3, 3).build());
            } catch (io.unibench.OutputFailedException e) {
                thrown.add(e);
            }
        }
        Throwable atClose = org.assertj.core.api.Assertions.catchThrowable(w::close);
        assertThat(channel.refused).isTrue();
        assertThat(thrown).hasSize(1); // one record's caller learns it; the next records are dropped quietly
        assertThat(thrown.getFirst()).isSameAs(atClose).hasMessage("cannot write " + file + ": No space left on device");
        assertThat(Files.size(file)).isLessThanOrEqualTo(room);
        byte[] bytes = Files.readAllBytes(file);
        assertThat(bytes).isNotEmpty();
        assertThat(bytes[bytes.length - 1]).isEqualTo((byte) '\n'); // no cut last record
        List<String> lines = Files.readAllLines(file);
        assertThat(lines.size()).isLessThan(records);
        for (int i = 0; i < lines.size(); i++) {
            assertThat(MAPPER.readTree(lines.get(i)).get("index").asInt()).as(lines.get(i)).isEqualTo(i);
        }
    }

    /** A real file on a disk with {@code room} bytes: a write takes what fits, the next one fails. */
    private static final class FillingChannel implements java.nio.channels.SeekableByteChannel {
        private final java.nio.channels.FileChannel file;
        private final long room;
        volatile boolean refused;

        FillingChannel(Path path, long room) throws java.io.IOException {
            this.file = java.nio.channels.FileChannel.open(path, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);
            this.room = room;
        }

        @Override
        public int write(java.nio.ByteBuffer src) throws java.io.IOException {
            long free = room - file.size();
            if (free <= 0) {
                refused = true;
                throw new java.io.IOException("No space left on device");
            }
            if (src.remaining() <= free) return file.write(src);
            java.nio.ByteBuffer part = src.slice(src.position(), (int) free);
            int n = file.write(part);
            src.position(src.position() + n);
            return n;
        }

        @Override public int read(java.nio.ByteBuffer dst) { throw new UnsupportedOperationException(); }
        @Override public long position() throws java.io.IOException { return file.position(); }
        @Override public java.nio.channels.SeekableByteChannel position(long p) throws java.io.IOException {
            file.position(p);
            return this;
        }
        @Override public long size() throws java.io.IOException { return file.size(); }
        @Override public java.nio.channels.SeekableByteChannel truncate(long size) throws java.io.IOException {
            file.truncate(size);
            return this;
        }
        @Override public boolean isOpen() { return file.isOpen(); }
        @Override public void close() throws java.io.IOException { file.close(); }
    }
}
