package io.unibench.engine;

import io.unibench.Moments;
import io.unibench.client.ClientResult;
import io.unibench.client.Usage;
import io.unibench.metrics.LoadDelivery;
import io.unibench.metrics.RecordSink;
import io.unibench.metrics.RunMetrics;
import io.unibench.output.RequestsJsonlWriter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The engine's per-request path during the client warm-up ({@link io.unibench.client.ClientWarmup}): each warm-up
 * reply is made a record by a {@link RecordFactory} and handed to throwaway sinks of the kinds a point has (its
 * metrics, load delivery, a {@code requests.jsonl} writer into a temporary file deleted at {@link #close()}; none
 * when the temporary folder cannot be written), so that
 * code is compiled before the point's clock starts too, not while the first ~30 measured requests run beside it
 * (bench/HISTORY.md, "warm31"). Nothing of it reaches a point: its sinks are its own. A reply without the server's
 * token counts is skipped (a record of it would count tokens with a tokenizer, which this has not).
 */
final class EngineWarmup implements AutoCloseable {
    private final PreparedRequest request;
    private final RecordFactory records = new RecordFactory(null, false);
    private final Path file;
    private final List<RecordSink> sinks;
    private long index;

    /** @param request the request the warm-up sends (the connection test's), whose records these are */
    EngineWarmup(PreparedRequest request) {
        this.request = request;
        Path made = null;
        List<RecordSink> kinds = new ArrayList<>(List.of(new RunMetrics(), new LoadDelivery()));
        try {
            made = Files.createTempFile("unibench-warmup-", ".jsonl");
            kinds.add(new RequestsJsonlWriter(made, System.nanoTime()));
        } catch (IOException | RuntimeException e) {
            // no temporary folder to write in: the writer's code is warmed by the point's first records instead
            delete(made);
            made = null;
        }
        this.file = made;
        this.sinks = List.copyOf(kinds);
    }

    /** One warm-up reply through the engine's record and sinks. */
    void accept(ClientResult result) {
        Usage usage = result.usage();
        if (usage == null || usage.promptTokens() < 0 || usage.completionTokens() < 0) return;
        ClosedLoop.deliver(records.record(index++, request, result, Moments.ABSENT, System.currentTimeMillis()), sinks);
    }

    /** Records made so far. */
    long records() {
        return index;
    }

    /** Its temporary {@code requests.jsonl}; null when none could be made. */
    Path file() {
        return file;
    }

    @Override
    public void close() {
        try {
            for (RecordSink sink : sinks) sink.close();
        } finally {
            delete(file);
        }
    }

    private static void delete(Path file) {
        if (file == null) return;
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a temporary file left behind in the temp folder; nothing of the run's
        }
    }
}
