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
 * completion). Each is a probe with a verdict of its own. Sent raw by the one client ({@code LlmClient.raw}): a benchmark
 * request is never a malformed body.
 *
 * <p>Unknown model: llama.cpp's and SGLang's servers (and {@code unibench sim} by default) serve whatever model name a
 * request gives; that is their documented behaviour, so a 200 is a WARN unless the user declared the served models
 * ({@code --served-models}), which makes it a FAIL.
 *
 * <p>Oversize prompt: one word per token, {@link #OVERSIZE_MARGIN} more than the context the server advertises
 * ({@code /v1/models}' {@code max_model_len}: vLLM, SGLang, the simulator; else {@code /props}'
 * {@code default_generation_settings.n_ctx}: llama.cpp's context per slot), else {@link #DEFAULT_OVERSIZE} words
 * (about 1.8 MB), which the probe's line says.
 */
final class ErrorsCheck implements Check {
    static final int DEFAULT_OVERSIZE = 300_000;
    static final int OVERSIZE_MARGIN = 1_000;
    private static final Pattern LIMIT = Pattern.compile("(?i)(?:context|length|limit)[^0-9]{0,40}?(\\d{3,9})");

    @Override public String id() { return "errors-are-errors"; }

    @Override public Verdict run(Target t) throws InterruptedException {
        List<Verdict.Probe> probes = new ArrayList<>();
        probes.add(judge("malformed body", t.post("{\"model\": \"x\", \"messages\": [".getBytes(StandardCharsets.UTF_8)), t));
        String unknown = "unibench-check-no-such-model-" + Long.toHexString(System.nanoTime());
        probes.add(unknownModel(t.post(t.body(Ask.of(unknown, Prompts.SHORT, 8).notStreamed())), t));
        Context context = context(t);
        int words = context.tokens() + OVERSIZE_MARGIN;
        Target.RawPost reply = t.post(t.body(Ask.of(t.model(), Prompts.longText(words), 8).notStreamed()));
        Verdict.Probe oversize = judge("oversize prompt", reply, t);
        String sized = words + " words, " + context.source();
        if (oversize.status() == Verdict.Status.PASS) {
            Matcher m = LIMIT.matcher(reply.body());
            sized += m.find() ? "; the server names its limit " + m.group(1) : "";
        }
        probes.add(new Verdict.Probe(oversize.name(), oversize.status(), oversize.evidence() + " (" + sized + ")"));
        return Verdict.ofProbes(id(), probes);
    }

    /** PASS when the reply is a 4xx with an error object; else FAIL saying what is wrong. */
    private static Verdict.Probe judge(String what, Target.RawPost r, Target t) {
        String problem = problem(r, t);
        return problem == null ? new Verdict.Probe(what, Verdict.Status.PASS, "→ " + r.status())
                : new Verdict.Probe(what, Verdict.Status.FAIL, problem);
    }

    /** As {@link #judge}, but a plain 200 is the server serving any name: WARN unless the served models are declared. */
    private static Verdict.Probe unknownModel(Target.RawPost r, Target t) {
        Verdict.Probe p = judge("unknown model", r, t);
        List<String> declared = t.settings.servedModels();
        if (p.status() != Verdict.Status.FAIL || r.status() != 200 || errorObject(r.body(), t)) return p;
        if (!declared.isEmpty()) {
            return new Verdict.Probe(p.name(), Verdict.Status.FAIL, p.evidence() + "; the served models are "
                    + String.join(", ", declared) + " (--served-models)");
        }
        return new Verdict.Probe(p.name(), Verdict.Status.WARN, "HTTP 200: the server answers any model name (as "
                + "llama.cpp, SGLang and `unibench sim` do by default); --served-models NAMES makes this a FAIL");
    }

    /** Null when the reply is a 4xx with an error object; else what is wrong. */
    private static String problem(Target.RawPost r, Target t) {
        if (r.problem() != null) return r.problem() + " (a hang, not an error answer)";
        boolean errorObject = errorObject(r.body(), t);
        if (r.status() == 200) {
            return "HTTP 200 " + (errorObject ? "with an error object inside" : "as if it succeeded (a silent "
                    + "truncation or an ignored field)") + ": " + r.head(80);
        }
        if (r.status() < 400 || r.status() > 499) return "HTTP " + r.status() + ", not a 4xx: " + r.head(80);
        if (!errorObject) return "HTTP " + r.status() + " without an error object: " + r.head(80);
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

    /** A context length and where it came from. */
    record Context(int tokens, String source) {}

    /**
     * The context the server advertises for the model: {@code GET /v1/models}' {@code max_model_len}, else
     * {@code GET /props}' {@code default_generation_settings.n_ctx}; else {@link #DEFAULT_OVERSIZE}, said so.
     */
    static Context context(Target t) throws InterruptedException {
        JsonNode models = t.get("../models");
        if (models != null) {
            for (JsonNode m : models.path("data")) {
                if (t.model().equals(m.path("id").asText()) && m.path("max_model_len").canConvertToInt()) {
                    return new Context(m.path("max_model_len").asInt(),
                            "/v1/models max_model_len " + m.path("max_model_len").asInt() + " + " + OVERSIZE_MARGIN);
                }
            }
        }
        JsonNode props = t.get("../../props");
        JsonNode nCtx = props == null ? null : props.path("default_generation_settings").path("n_ctx");
        if (nCtx != null && nCtx.canConvertToInt() && nCtx.asInt() > 0) {
            return new Context(nCtx.asInt(), "/props n_ctx " + nCtx.asInt() + " + " + OVERSIZE_MARGIN);
        }
        return new Context(DEFAULT_OVERSIZE, "no context length advertised (/v1/models max_model_len, /props "
                + "n_ctx): the fallback size");
    }
}
