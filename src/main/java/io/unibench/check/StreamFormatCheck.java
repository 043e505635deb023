package io.unibench.check;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.client.ClientResult;
import io.unibench.client.Usage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * stream-format, three probes with a line each (one probe's problem does not hide the others'): the benchmark client
 * reads a stream with usage asked for (it must succeed and carry usage); the same client's raw read of the same
 * stream shows its events (each valid JSON of the {@code chat.completion.chunk} shape, exactly one
 * {@code finish_reason}, {@code [DONE]} last); the non-streamed reply must report the same usage.
 */
final class StreamFormatCheck implements Check {
    static final int MAX_TOKENS = 32;

    @Override public String id() { return "stream-format"; }

    @Override public Verdict run(Target t) throws InterruptedException {
        Ask ask = Ask.of(t.model(), Prompts.STORY, MAX_TOKENS);
        List<Verdict.Probe> probes = new ArrayList<>();
        ClientResult streamed = t.send(ask).result();
        probes.add(clientStream(streamed));
        probes.add(rawEvents(t.post(t.body(ask), true), t));
        probes.add(nonStreamedUsage(t.send(ask.notStreamed()).result(), streamed));
        return Verdict.ofProbes(id(), probes);
    }

    private static Verdict.Probe clientStream(ClientResult streamed) {
        String name = "stream";
        if (!streamed.success()) {
            return fail(name, "stream failed in the benchmark client: " + streamed.errorClass() + " "
                    + streamed.errorMessage());
        }
        if (!streamed.stream()) return fail(name, "a streamed request was answered with one JSON body");
        if (streamed.usage() == null) {
            return fail(name, "no usage in the stream although stream_options.include_usage was true");
        }
        return new Verdict.Probe(name, Verdict.Status.PASS, streamed.tokenChunkNanos().length + " token chunks, "
                + "finish_reason " + streamed.finishReason() + ", usage " + streamed.usage().promptTokens() + "/"
                + streamed.usage().completionTokens() + " prompt/completion");
    }

    private static Verdict.Probe rawEvents(Target.RawPost raw, Target t) {
        String name = "raw events";
        if (raw.problem() != null) return fail(name, "raw read of the stream: " + raw.problem());
        if (raw.status() != 200) return fail(name, "raw read of the stream: HTTP " + raw.status() + " " + raw.head(80));
        String shape = shapeProblem(raw.body(), t);
        if (shape != null) return fail(name, shape);
        return new Verdict.Probe(name, Verdict.Status.PASS, events(raw.body()).size()
                + " events, one finish_reason, [DONE] last");
    }

    private static Verdict.Probe nonStreamedUsage(ClientResult whole, ClientResult streamed) {
        String name = "non-streamed usage";
        if (!whole.success()) {
            return fail(name, "non-streamed reply failed: " + whole.errorClass() + " " + whole.errorMessage());
        }
        Usage w = whole.usage();
        if (w == null) return fail(name, "the non-streamed reply has no usage");
        Usage s = streamed.usage();
        if (!streamed.success() || s == null) {
            return new Verdict.Probe(name, Verdict.Status.SKIP, "usage " + w.promptTokens() + "/"
                    + w.completionTokens() + ": no streamed usage to compare it with");
        }
        boolean sameText = whole.content().equals(streamed.content());
        if (w.promptTokens() != s.promptTokens() || sameText && w.completionTokens() != s.completionTokens()) {
            return fail(name, "usage differs: streamed prompt/completion " + s.promptTokens() + "/"
                    + s.completionTokens() + ", non-streamed " + w.promptTokens() + "/" + w.completionTokens());
        }
        return new Verdict.Probe(name, Verdict.Status.PASS, "usage " + w.promptTokens() + "/" + w.completionTokens()
                + ", the same as streamed" + (sameText ? "" : " (prompt only: the texts differ)"));
    }

    private static Verdict.Probe fail(String name, String evidence) {
        return new Verdict.Probe(name, Verdict.Status.FAIL, evidence);
    }

    /** The first way the raw stream breaks the chunk shape, quoting its first bytes; null when it keeps it. */
    static String shapeProblem(String body, Target t) {
        String bare = frameWithoutData(body);
        if (bare != null) return "a frame without a data: field: " + quote(bare);
        List<String> events = events(body);
        if (events.isEmpty()) return "no SSE data events in the body: " + quote(body);
        if (!events.getLast().equals("[DONE]")) return "the last event is not [DONE]: " + quote(events.getLast());
        int finishes = 0;
        for (int i = 0; i < events.size() - 1; i++) {
            String data = events.get(i);
            if (data.equals("[DONE]")) return "[DONE] before the end (event " + (i + 1) + ")";
            JsonNode node;
            try {
                node = t.mapper.readTree(data);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                return "event " + (i + 1) + " is not JSON: " + quote(data);
            }
            if (node.has("error")) return "event " + (i + 1) + " is an error: " + quote(data);
            if (!"chat.completion.chunk".equals(node.path("object").asText())) {
                return "event " + (i + 1) + " has object " + node.path("object") + ", not chat.completion.chunk: "
                        + quote(data);
            }
            JsonNode choices = node.path("choices");
            if (!choices.isArray()) return "event " + (i + 1) + " has no choices array: " + quote(data);
            for (JsonNode c : choices) if (c.hasNonNull("finish_reason")) finishes++;
        }
        if (finishes != 1) return finishes + " events carry a finish_reason, not exactly one";
        return null;
    }

    /** The data of each SSE event ({@code data:} lines joined, comments dropped). */
    static List<String> events(String body) {
        List<String> out = new ArrayList<>();
        for (String block : body.replace("\r\n", "\n").split("\n\n")) {
            StringBuilder data = new StringBuilder();
            boolean any = false;
            for (String line : block.split("\n")) {
                if (!line.startsWith("data:")) continue;
                if (any) data.append('\n');
                data.append(line.substring(5).stripLeading());
                any = true;
            }
            if (any) out.add(data.toString());
        }
        return out;
    }

    /** A frame that is neither a comment nor carries a {@code data:} field; null when there is none. */
    static String frameWithoutData(String body) {
        for (String block : body.replace("\r\n", "\n").split("\n\n")) {
            if (block.isBlank() || block.startsWith(":")) continue;
            boolean data = false;
            for (String line : block.split("\n")) data |= line.startsWith("data:");
            if (!data) return block;
        }
        return null;
    }

    static String quote(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        String head = b.length <= 80 ? s : new String(b, 0, 80, StandardCharsets.UTF_8) + "…";
        return "'" + head.replace("\n", "\\n") + "'";
    }
}
