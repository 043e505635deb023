package io.unibench.check;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * One chat completion request a check sends, as the body it becomes. Temperature 0 and a fixed seed unless
 * changed, so a well-behaved server answers the same request the same way.
 */
record Ask(String model, String prompt, int maxTokens, boolean stream, boolean ignoreEos, List<String> stop) {
    static final long SEED = 1234;

    static Ask of(String model, String prompt, int maxTokens) {
        return new Ask(model, prompt, maxTokens, true, false, List.of());
    }

    Ask notStreamed() { return new Ask(model, prompt, maxTokens, false, ignoreEos, stop); }

    Ask ignoringEos() { return new Ask(model, prompt, maxTokens, stream, true, stop); }

    Ask stoppingAt(String s) { return new Ask(model, prompt, maxTokens, stream, ignoreEos, List.of(s)); }

    Ask forModel(String m) { return new Ask(m, prompt, maxTokens, stream, ignoreEos, stop); }

    byte[] body(ObjectMapper mapper) {
        ObjectNode root = mapper.createObjectNode();
        root.put("model", model);
        ObjectNode message = root.putArray("messages").addObject();
        message.put("role", "user");
        message.put("content", prompt);
        root.put("max_tokens", maxTokens);
        root.put("temperature", 0);
        root.put("seed", SEED);
        root.put("stream", stream);
        if (stream) root.putObject("stream_options").put("include_usage", true);
        if (ignoreEos) root.put("ignore_eos", true);
        if (!stop.isEmpty()) {
            var array = root.putArray("stop");
            stop.forEach(array::add);
        }
        try {
            return mapper.writeValueAsBytes(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a tree of strings and numbers always serialises", e);
        }
    }
}
