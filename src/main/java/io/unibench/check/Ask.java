package io.unibench.check;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.client.ApiFormat;
import io.unibench.client.GenerationParams;

import java.util.List;

/**
 * One chat completion request a check sends: a user prompt and the generation parameters the engine builds its body
 * from, as every run's ({@link GenerationParams}). Temperature 0 and a fixed seed unless changed, so a well-behaved
 * server answers the same request the same way.
 */
record Ask(String model, String prompt, int maxTokens, boolean stream, boolean ignoreEos, List<String> stop) {
    static final long SEED = 1234;

    static Ask of(String model, String prompt, int maxTokens) {
        return new Ask(model, prompt, maxTokens, true, false, List.of());
    }

    Ask notStreamed() { return new Ask(model, prompt, maxTokens, false, ignoreEos, stop); }

    Ask ignoringEos() { return new Ask(model, prompt, maxTokens, stream, true, stop); }

    Ask stoppingAt(String s) { return new Ask(model, prompt, maxTokens, stream, ignoreEos, List.of(s)); }


    /** {@code model}, {@code max_tokens}, temperature 0, {@code seed}, {@code stop}, {@code stream} (with usage), {@code ignore_eos}. */
    GenerationParams params() {
        ObjectNode extra = ignoreEos ? JsonNodeFactory.instance.objectNode().put("ignore_eos", true) : null;
        return new GenerationParams(model, ApiFormat.CHAT, maxTokens, maxTokens, null, 0, null, null, SEED, stop,
                stream, extra);
    }
}
