package io.unibench.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The simulator's knobs by name: one table that gives {@code unibench sim} its flags ({@code --NAME}), profile files
 * and {@code --profile} presets their keys, and docs/simulator.md its list. Names follow vLLM where vLLM has the setting.
 */
public final class SimKnobs {
    /** One setting: its name (flag without dashes), value type, one-line description and how to read it. */
    public record Knob(String name, Class<?> type, String description, Function<SimConfig, Object> get) {}

    private static final String RATE_PREFIX = "fault-rate-";
    private static final List<Knob> ALL = build();
    private static final Map<String, Knob> BY_NAME = index();

    private SimKnobs() {}

    public static List<Knob> all() { return ALL; }

    public static Knob byName(String name) { return BY_NAME.get(name); }

    private static List<Knob> build() {
        List<Knob> k = new ArrayList<>();
        k.add(new Knob("host", String.class, "Address to listen on.", SimConfig::host));
        k.add(new Knob("port", Integer.class, "TCP port (0 = any free port).", SimConfig::port));
        k.add(new Knob("model", String.class, "Model id served by /v1/models (echoed back in replies).", SimConfig::model));
        k.add(new Knob("allowed-models", List.class, "Comma-separated model ids a request may name besides --model; "
                + "when set, any other model is a 400 listing the served models. Empty = any model is accepted.",
                c -> c.scheduling().allowedModels()));
        k.add(new Knob("tokenizer", String.class, "Tokenizer counting prompt tokens (e.g. cl100k_base, o200k_base).",
                SimConfig::tokenizer));
        k.add(new Knob("seed", Long.class, "Seed of reply lengths, reply texts and fault draws.", SimConfig::seed));
        k.add(new Knob("ttft-ms", Double.class, "Fixed API overhead before a request joins the queue, ms (part of "
                + "TTFT; does not occupy the engine).", SimConfig::ttftMs));
        k.add(new Knob("prefill-ms-per-token", Double.class, "Engine time per uncached prompt token, ms.",
                SimConfig::prefillMsPerToken));
        k.add(new Knob("itl-ms", Double.class, "Decode step time with one running sequence, ms.", SimConfig::itlMs));
        k.add(new Knob("decode-ms-per-seq", Double.class, "Decode step time added per running sequence beyond the "
                + "first, ms.", c -> c.scheduling().decodeMsPerSeq()));
        k.add(new Knob("decode-ms-per-1k-context", Double.class, "Decode step time added per 1,000 context tokens "
                + "summed over the decoding batch, ms.", c -> c.scheduling().decodeMsPer1kContext()));
        k.add(new Knob("mean-output-tokens", Integer.class, "Mean natural reply length when ignore_eos is not set "
                + "(geometric distribution); the cap without max_tokens is 16x this.", SimConfig::meanOutputTokens));
        k.add(new Knob("max-num-seqs", Integer.class, "Most sequences running at once.", c -> c.scheduling().maxNumSeqs()));
        k.add(new Knob("max-num-batched-tokens", Integer.class, "Token budget per engine step (decodes take one "
                + "each, prefill chunks the rest).", c -> c.scheduling().maxNumBatchedTokens()));
        k.add(new Knob("max-model-len", Integer.class, "Longest prompt + max_tokens accepted; longer is a 400.",
                c -> c.scheduling().maxModelLen()));
        k.add(new Knob("context-advertised", String.class, "Where the context length (max-model-len) is told: models "
                + "(/v1/models max_model_len, as vLLM), props (/props default_generation_settings.n_ctx, as "
                + "llama.cpp's llama-server) or none.", c -> c.scheduling().contextAdvertised()));
        k.add(new Knob("max-queue", Integer.class, "Most requests waiting for a slot; more are answered 429 at once.",
                c -> c.scheduling().maxQueue()));
        k.add(new Knob("max-queue-wait-ms", Double.class, "A request that waited longer for a slot is answered 503 "
                + "(0 = wait forever).", c -> c.scheduling().maxQueueWaitMs()));
        k.add(new Knob("retry-after-s", Integer.class, "Retry-After of the scheduler's 429 (queue full) and 503 "
                + "(waited too long) answers.", c -> c.scheduling().retryAfterS()));
        k.add(new Knob("block-size", Integer.class, "Tokens per KV block.", SimConfig::blockSize));
        k.add(new Knob("kv-cache-blocks", Integer.class, "KV cache size in blocks: bounds admission and the prefix "
                + "cache (0 = unlimited, no prefix caching).", SimConfig::cacheCapacityBlocks));
        k.add(new Knob("prefix-caching", Boolean.class, "Reuse cached KV blocks of shared prompt prefixes.",
                c -> c.scheduling().prefixCaching()));
        k.add(new Knob("report-cached-tokens", Boolean.class, "Report usage.prompt_tokens_details.cached_tokens "
                + "(vLLM --enable-prompt-tokens-details).", SimConfig::reportCachedTokens));
        for (FaultKind f : FaultKind.values()) {
            k.add(new Knob(RATE_PREFIX + f.id(), Double.class, "Probability of fault '" + f.id() + "': "
                    + f.description() + ".", c -> c.faults().rate(f)));
        }
        k.add(new Knob("fault-first-chunk-delay-ms", Long.class, "Delay of the slow-first-chunk fault, ms.",
                c -> c.faults().firstChunkDelayMs()));
        k.add(new Knob("fault-chunk-delay-ms", Long.class, "Gap between chunks of the slow-chunks fault, ms.",
                c -> c.faults().chunkDelayMs()));
        k.add(new Knob("fault-after-chunks", Integer.class, "Chunks sent before fail-midstream, disconnect and "
                + "malformed-json strike.", c -> c.faults().afterChunks()));
        k.add(new Knob("fault-retry-after-s", Integer.class, "Retry-After of injected 429 and 503.",
                c -> c.faults().retryAfterS()));
        k.add(new Knob("close-after-reply", Boolean.class, "Close the connection right after every reply while its "
                + "headers say keep-alive, as llama.cpp's llama-server does.", c -> c.connections().closeAfterReply()));
        k.add(new Knob("keepalive-timeout-ms", Long.class, "Close a connection idle this long after its last reply, "
                + "without notice (nginx keepalive_timeout, uvicorn --timeout-keep-alive, load balancers; 0 = never).",
                c -> c.connections().keepaliveTimeoutMs()));
        k.add(new Knob("keepalive-requests", Integer.class, "The K-th reply on a connection says Connection: close "
                + "and the connection closes after it (nginx keepalive_requests; 0 = no limit).",
                c -> c.connections().keepaliveRequests()));
        k.add(new Knob("debug-send-times", Boolean.class, "Debug: every streamed chunk carries \"unibench_sent_ns\", "
                + "the simulator's monotonic clock (System.nanoTime) when it wrote the chunk, for measuring a "
                + "same-host client's timestamp lag. Off by default.", SimConfig::debugSendTimes));
        k.add(new Knob("debug-send-times-in-text", Boolean.class, "Debug: every streamed token's text is a space and "
                + "the simulator's System.nanoTime when it wrote the chunk (instead of a word), so an unmodified "
                + "client's content carries the send stamps next to its own arrival stamps. Off by default.",
                SimConfig::debugSendTimesInText));
        k.add(new Knob("llamacpp-timings", Boolean.class, "Every reply carries llama.cpp's \"timings\" object (in the "
                + "last chunk of a stream, in a non-streamed body) with the engine's own figures: prompt_n and "
                + "prompt_ms (prompt tokens computed and their prefill time), predicted_n and predicted_ms (tokens "
                + "generated and the time from the first to the last), cache_n (prompt tokens from the prefix cache). "
                + "Off by default.", SimConfig::llamacppTimings));
        k.add(new Knob("reasoning-share", Double.class, "A reasoning model: this share of each reply's tokens (0 to "
                + "below 1) is reasoning, streamed before the answer (chat: delta.reasoning_content, or the field "
                + "reasoning-field names; Responses: response.reasoning_text.delta events; Messages: a thinking block) "
                + "and counted in usage's completion_tokens_details.reasoning_tokens. 0 = none.",
                c -> c.reasoning().share()));
        k.add(new Knob("reasoning-field", String.class, "The chat delta member reasoning tokens go in: "
                + "reasoning_content (DeepSeek, SGLang) or reasoning (current vLLM).", c -> c.reasoning().field()));
        misbehaviours(k);
        return Collections.unmodifiableList(k);
    }

    private static final String MISBEHAVE = "misbehave-";

    /** The deliberate breakages of {@link SimConfig.Misbehaviour}, one boolean knob each, for proving checks fail. */
    private static void misbehaviours(List<Knob> k) {
        bad(k, "buffer-stream", "hold every frame of a stream until its end, as a buffering proxy does",
                SimConfig.Misbehaviour::bufferStream);
        bad(k, "omit-usage", "never send usage, even when stream_options.include_usage asks",
                SimConfig.Misbehaviour::omitUsage);
        bad(k, "errors-as-200", "send every error answer with HTTP 200 (the body is still the error object)",
                SimConfig.Misbehaviour::errorsAs200);
        bad(k, "ignore-cancel", "a client's disconnect does not stop its generation", SimConfig.Misbehaviour::ignoreCancel);
        bad(k, "leak-cancelled", "a cancelled request stays counted in vllm:num_requests_running for good",
                SimConfig.Misbehaviour::leakCancelled);
        bad(k, "nondeterministic", "the same prompt at temperature 0 gives a different text every time",
                SimConfig.Misbehaviour::nondeterministic);
        bad(k, "ignore-max-tokens", "max_tokens is not a limit", SimConfig.Misbehaviour::ignoreMaxTokens);
        bad(k, "ignore-stop", "stop strings are not honoured", SimConfig.Misbehaviour::ignoreStop);
        bad(k, "ignore-ignore-eos", "ignore_eos is accepted but not honoured", SimConfig.Misbehaviour::ignoreIgnoreEos);
        bad(k, "latch-overload", "after the first queue-full 429 every completion is refused 503 until restart",
                SimConfig.Misbehaviour::latchOverload);
        bad(k, "rotate-fingerprint", "every chat/completions reply carries a system_fingerprint of its own "
                + "(fp_sim_1, fp_sim_2, ...), as a server whose backend configuration changed between the replies",
                SimConfig.Misbehaviour::rotateFingerprint);
    }

    private static void bad(List<Knob> k, String name, String what, Function<SimConfig.Misbehaviour, Boolean> get) {
        k.add(new Knob(MISBEHAVE + name, Boolean.class, "Misbehaviour, for proving `unibench check` fails: " + what
                + ". Off by default.", c -> get.apply(c.misbehaviour())));
    }

    private static SimConfig.Misbehaviour misbehaviour(Map<String, Object> v) {
        java.util.function.Predicate<String> on = name -> (Boolean) v.get(MISBEHAVE + name);
        return new SimConfig.Misbehaviour(on.test("buffer-stream"), on.test("omit-usage"), on.test("errors-as-200"),
                on.test("ignore-cancel"), on.test("leak-cancelled"), on.test("nondeterministic"),
                on.test("ignore-max-tokens"), on.test("ignore-stop"), on.test("ignore-ignore-eos"),
                on.test("latch-overload"), on.test("rotate-fingerprint"));
    }

    private static Map<String, Knob> index() {
        Map<String, Knob> m = new LinkedHashMap<>();
        for (Knob k : ALL) m.put(k.name(), k);
        return Collections.unmodifiableMap(m);
    }

    static Map<String, Object> values(SimConfig c) {
        Map<String, Object> v = new LinkedHashMap<>();
        for (Knob k : ALL) v.put(k.name(), k.get().apply(c));
        return v;
    }

    /** {@code base} with the named knobs changed. Accepts "cache-blocks" as the old name of "kv-cache-blocks". */
    static SimConfig apply(SimConfig base, Map<String, ?> changes) {
        Map<String, Object> v = values(base);
        for (Map.Entry<String, ?> e : changes.entrySet()) {
            String name = e.getKey().equals("cache-blocks") ? "kv-cache-blocks" : e.getKey();
            Knob knob = BY_NAME.get(name);
            if (knob == null) throw new IllegalArgumentException("unknown simulator setting '" + e.getKey() + "'");
            v.put(name, coerce(knob, e.getValue()));
        }
        Map<FaultKind, Double> rates = new EnumMap<>(FaultKind.class);
        for (FaultKind f : FaultKind.values()) rates.put(f, (Double) v.get(RATE_PREFIX + f.id()));
        @SuppressWarnings("unchecked") List<String> allowed = (List<String>) v.get("allowed-models");
        try {
            return new SimConfig((String) v.get("host"), (Integer) v.get("port"), (String) v.get("model"),
                    (Double) v.get("ttft-ms"), (Double) v.get("prefill-ms-per-token"), (Double) v.get("itl-ms"),
                    (Integer) v.get("mean-output-tokens"), (Long) v.get("seed"), (Integer) v.get("block-size"),
                    (Integer) v.get("kv-cache-blocks"), (Boolean) v.get("report-cached-tokens"),
                    (String) v.get("tokenizer"),
                    new SimConfig.Scheduling((Integer) v.get("max-num-seqs"), (Integer) v.get("max-num-batched-tokens"),
                            (Integer) v.get("max-model-len"), (Integer) v.get("max-queue"),
                            (Double) v.get("max-queue-wait-ms"), (Integer) v.get("retry-after-s"),
                            (Double) v.get("decode-ms-per-seq"), (Double) v.get("decode-ms-per-1k-context"),
                            (Boolean) v.get("prefix-caching"), allowed, (String) v.get("context-advertised")),
                    new SimConfig.Faults(rates, (Long) v.get("fault-first-chunk-delay-ms"),
                            (Long) v.get("fault-chunk-delay-ms"), (Integer) v.get("fault-after-chunks"),
                            (Integer) v.get("fault-retry-after-s")),
                    (Boolean) v.get("debug-send-times"), (Boolean) v.get("debug-send-times-in-text"),
                    (Boolean) v.get("llamacpp-timings"),
                    new SimConfig.Connections((Boolean) v.get("close-after-reply"),
                            (Long) v.get("keepalive-timeout-ms"), (Integer) v.get("keepalive-requests")),
                    misbehaviour(v),
                    new SimConfig.Reasoning((Double) v.get("reasoning-share"), (String) v.get("reasoning-field")));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(knobName(e.getMessage()), e);
        }
    }

    /** Rewrites "SimConfig.maxNumSeqs must be ..." in knob terms ("max-num-seqs must be ..."). */
    private static String knobName(String message) {
        if (message == null || !message.startsWith("SimConfig.")) return message;
        int space = message.indexOf(' ');
        String field = message.substring("SimConfig.".length(), space);
        String rest = message.substring(space);
        if (field.startsWith("faults.rate.")) return RATE_PREFIX + field.substring("faults.rate.".length()) + rest;
        String last = field.substring(field.lastIndexOf('.') + 1);
        StringBuilder kebab = new StringBuilder();
        for (char ch : last.toCharArray()) {
            if (Character.isUpperCase(ch) || Character.isDigit(ch) && !kebab.isEmpty()
                    && !Character.isDigit(kebab.charAt(kebab.length() - 1))) {
                kebab.append('-');
            }
            kebab.append(Character.toLowerCase(ch));
        }
        String name = switch (kebab.toString()) {
            case "cache-capacity-blocks" -> "kv-cache-blocks";
            case "first-chunk-delay-ms", "chunk-delay-ms", "after-chunks" -> "fault-" + kebab;
            default -> field.startsWith("faults.") && last.equals("retryAfterS") ? "fault-retry-after-s" : kebab.toString();
        };
        return name + rest;
    }

    private static Object coerce(Knob knob, Object value) {
        String name = knob.name();
        if (value == null) throw new IllegalArgumentException(name + " must have a value");
        Class<?> t = knob.type();
        try {
            if (t == String.class) return value.toString();
            if (t == Boolean.class) {
                if (value instanceof Boolean b) return b;
                String s = value.toString().trim().toLowerCase(Locale.ROOT);
                if (s.equals("true")) return true;
                if (s.equals("false")) return false;
                throw new IllegalArgumentException(name + " must be true or false, got '" + value + "'");
            }
            if (t == List.class) {
                List<String> out = new ArrayList<>();
                if (value instanceof List<?> l) {
                    for (Object o : l) out.add(String.valueOf(o).trim());
                } else {
                    for (String s : value.toString().split(",")) if (!s.isBlank()) out.add(s.trim());
                }
                return List.copyOf(out);
            }
            if (value instanceof Boolean) throw new IllegalArgumentException(name + " must be a number, got " + value);
            String s = value.toString().trim();
            if (t == Integer.class) {
                if (value instanceof Number n && n.doubleValue() != Math.rint(n.doubleValue())) throw new NumberFormatException();
                return value instanceof Number n ? Math.toIntExact(n.longValue()) : Integer.parseInt(s);
            }
            if (t == Long.class) {
                if (value instanceof Number n && n.doubleValue() != Math.rint(n.doubleValue())) throw new NumberFormatException();
                return value instanceof Number n ? n.longValue() : Long.parseLong(s);
            }
            if (t == Double.class) return value instanceof Number n ? n.doubleValue() : Double.parseDouble(s);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(name + " must be " + (t == Double.class ? "a number" : "an integer")
                    + ", got '" + value + "'");
        }
        throw new IllegalStateException("knob type " + t);
    }
}
