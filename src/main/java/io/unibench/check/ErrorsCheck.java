package io.unibench.check;

import com.fasterxml.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * errors-are-errors: a malformed body, an unknown model and a prompt beyond the context each get a 4xx whose body
 * is an error object: not a 200 with an error inside, not a 5xx, not a hang, not a silent truncation (a 200 with a
 * completion). Sent by the plain HTTP client: the benchmark client never sends a malformed body. The oversize
 * prompt is one word per token, {@link #OVERSIZE_MARGIN} more than the context {@code /v1/models} states
 * ({@code max_model_len}, vLLM and the simulator), else {@link #DEFAULT_OVERSIZE} words.
 */
final class ErrorsCheck implements Check {
    static final int DEFAULT_OVERSIZE = 300_000;
    static final int OVERSIZE_MARGIN = 1_000;
    private static final Pattern LIMIT = Pattern.compile("(?i)(?:context|length|limit)[^0-9]{0,40}?(\\d{3,9})");

    @Override public String id() { return "errors-are-errors"; }

    @Override public Verdict run(Target t) throws InterruptedException {
        List<String> seen = new ArrayList<>();
        String problem = judge("malformed body", t.post("{\"model\": \"x\", \"messages\": [".getBytes(StandardCharsets.UTF_8)), t, seen);
        if (problem == null) {
            String unknown = "unibench-check-no-such-model-" + Long.toHexString(System.nanoTime());
            problem = judge("unknown model", t.post(Ask.of(unknown, Prompts.SHORT, 8).notStreamed().body(t.mapper)), t, seen);
        }
        if (problem == null) {
            int words = contextTokens(t) + OVERSIZE_MARGIN;
            Target.RawReply reply = t.post(Ask.of(t.model(), Prompts.longText(words), 8).notStreamed().body(t.mapper));
            problem = judge("oversize prompt (" + words + " words)", reply, t, seen);
            if (problem == null) {
                Matcher m = LIMIT.matcher(reply.body());
                if (m.find()) seen.set(seen.size() - 1, seen.getLast() + ", context limit " + m.group(1));
            }
        }
        return problem == null ? Verdict.pass(id(), String.join("; ", seen)) : Verdict.fail(id(), problem);
    }

    /** Null when the reply is a 4xx with an error object (noted in {@code seen}); else what is wrong. */
    private static String judge(String what, Target.RawReply r, Target t, List<String> seen) {
        if (r.problem() != null) return what + ": " + r.problem() + " (a hang, not an error answer)";
        boolean errorObject = errorObject(r.body(), t);
        if (r.status() == 200) {
            return what + ": HTTP 200 " + (errorObject ? "with an error object inside" : "as if it succeeded (a silent "
                    + "truncation or an ignored field)") + ": " + r.head(80);
        }
        if (r.status() < 400 || r.status() > 499) return what + ": HTTP " + r.status() + ", not a 4xx: " + r.head(80);
        if (!errorObject) return what + ": HTTP " + r.status() + " without an error object: " + r.head(80);
        seen.add(what + " → " + r.status());
        return null;
    }

    /** {@code {"error": {...}}} (OpenAI, vLLM), {@code {"error": "..."}} (TGI) or {@code {"object": "error"}} (old vLLM). */
    static boolean errorObject(String body, Target t) {
        try {
            JsonNode root = t.mapper.readTree(body);
            return root != null && (root.hasNonNull("error") || "error".equals(root.path("object").asText()));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return false;
        }
    }

    /** The context length {@code GET /v1/models} states for the model, else {@link #DEFAULT_OVERSIZE}. */
    private static int contextTokens(Target t) throws InterruptedException {
        JsonNode models = t.models();
        if (models != null) {
            for (JsonNode m : models.path("data")) {
                if (t.model().equals(m.path("id").asText()) && m.path("max_model_len").canConvertToInt()) {
                    return m.path("max_model_len").asInt();
                }
            }
        }
        return DEFAULT_OVERSIZE;
    }
}
