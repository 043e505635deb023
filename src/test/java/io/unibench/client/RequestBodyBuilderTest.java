package io.unibench.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RequestBodyBuilderTest {

    private final ObjectMapper mapper = new ObjectMapper();
    private final RequestBodyBuilder builder = new RequestBodyBuilder();

    @Test
    void chatBodyInEvalscopeOrder() throws Exception {
        GenerationParams p = new GenerationParams("m", ApiFormat.CHAT, 100, 100, 5, 0.0, 0.9, 40, 42L,
                List.of("\n\n"), true, null);
        ObjectNode body = builder.build(p, messages("hi"), null, null, new SplittableRandom(1));
        assertThat(mapper.writeValueAsString(body)).isEqualTo("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                + "\"model\":\"m\",\"max_tokens\":100,\"min_tokens\":5,\"seed\":42,\"stop\":[\"\\n\\n\"],"
                + "\"stream\":true,\"stream_options\":{\"include_usage\":true},\"temperature\":0.0,"
                + "\"top_p\":0.9,\"top_k\":40}");
    }

    @Test
    void optionalFieldsLeftOutAndNoStreamOptionsWhenNotStreaming() {
        GenerationParams p = new GenerationParams("m", ApiFormat.CHAT, 16, 16, null, 0.7, null, null, null,
                null, false, null);
        ObjectNode body = builder.build(p, messages("hi"), null, null, new SplittableRandom(1));
        assertThat(names(body)).containsExactly("messages", "model", "max_tokens", "stream", "temperature");
        assertThat(body.get("stream").asBoolean()).isFalse();
        assertThat(body.get("temperature").asDouble()).isEqualTo(0.7);
    }

    @Test
    void extraArgsMergedLastAndOverride() throws Exception {
        ObjectNode extra = (ObjectNode) mapper.readTree("{\"temperature\":1.5,\"ignore_eos\":true}");
        GenerationParams p = new GenerationParams("m", ApiFormat.CHAT, 8, 8, null, 0.0, null, null, null, null,
                true, extra);
        ObjectNode body = builder.build(p, messages("hi"), null, null, new SplittableRandom(1));
        assertThat(body.get("temperature").asDouble()).isEqualTo(1.5);
        assertThat(body.get("ignore_eos").asBoolean()).isTrue();
        assertThat(names(body)).endsWith("ignore_eos");
        extra.put("ignore_eos", false); // the params took a copy
        assertThat(builder.build(p, messages("hi"), null, null, new SplittableRandom(1))
                .get("ignore_eos").asBoolean()).isTrue();
    }

    @Test
    void completionsPutPromptAndJoinMessageContents() {
        GenerationParams p = new GenerationParams("m", ApiFormat.COMPLETIONS, 8, 8, null, 0.0, null, null, null,
                null, true, null);
        ObjectNode fromPrompt = builder.build(p, null, "once upon", null, new SplittableRandom(1));
        assertThat(fromPrompt.get("prompt").asText()).isEqualTo("once upon");
        assertThat(fromPrompt.has("messages")).isFalse();

        ArrayNode two = messages("sys");
        two.addObject().put("role", "user").put("content", "question");
        ObjectNode fromMessages = builder.build(p, two, null, null, new SplittableRandom(1));
        assertThat(fromMessages.get("prompt").asText()).isEqualTo("sys\nquestion");
    }

    @Test
    void chatWrapsAPlainPromptAsAUserMessage() {
        GenerationParams p = new GenerationParams("m", ApiFormat.CHAT, 8, 8, null, 0.0, null, null, null, null,
                false, null);
        ObjectNode body = builder.build(p, null, "hello", null, new SplittableRandom(1));
        assertThat(body.get("messages")).isEqualTo(messages("hello"));
    }

    @Test
    void fullBodyIsOnlyFilledWhereKeysAreMissing() throws Exception {
        ObjectNode dataset = (ObjectNode) mapper.readTree(
                "{\"model\":\"trace-model\",\"prompt\":\"x\",\"max_tokens\":7,\"temperature\":0.3,"
                        + "\"stream_options\":{\"include_usage\":false}}");
        ObjectNode extra = (ObjectNode) mapper.readTree("{\"temperature\":1.9,\"ignore_eos\":true}");
        GenerationParams p = new GenerationParams("cli-model", ApiFormat.CHAT, 100, 200, null, 0.0, null, 20, null,
                null, true, extra);
        ObjectNode body = builder.build(p, null, null, dataset, new SplittableRandom(1));
        assertThat(body.get("model").asText()).isEqualTo("trace-model");
        assertThat(body.get("max_tokens").asInt()).isEqualTo(7);
        assertThat(body.get("temperature").asDouble()).isEqualTo(0.3); // extra args do not override either
        assertThat(body.get("ignore_eos").asBoolean()).isTrue();
        assertThat(body.get("top_k").asInt()).isEqualTo(20);
        assertThat(body.get("stream").asBoolean()).isTrue();
        assertThat(body.get("stream_options").get("include_usage").asBoolean()).isFalse();
        assertThat(dataset.has("stream")).isFalse(); // the dataset's node is not modified

        ObjectNode bare = (ObjectNode) mapper.readTree("{\"prompt\":\"x\"}");
        ObjectNode filled = builder.build(p, null, null, bare, new SplittableRandom(1));
        assertThat(filled.get("stream_options").get("include_usage").asBoolean()).isTrue();
        assertThat(filled.get("max_tokens").asInt()).isBetween(100, 200);
    }

    @Test
    void maxTokensDrawnUniformlyInclusivePerCall() {
        GenerationParams p = new GenerationParams("m", ApiFormat.CHAT, 10, 13, null, 0.0, null, null, null, null,
                false, null);
        SplittableRandom rng = new SplittableRandom(7);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 400; i++) {
            seen.add(builder.build(p, messages("hi"), null, null, rng).get("max_tokens").asInt());
        }
        // 400 draws over 4 values: missing one has probability < 4 * 0.75^400
        assertThat(seen).containsExactlyInAnyOrder(10, 11, 12, 13);
    }

    @Test
    void rejectsAmbiguousInputAndBadRanges() {
        GenerationParams p = new GenerationParams("m", ApiFormat.CHAT, 8, 8, null, 0.0, null, null, null, null,
                false, null);
        assertThatThrownBy(() -> builder.build(p, messages("a"), "b", null, new SplittableRandom(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.build(p, null, null, null, new SplittableRandom(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GenerationParams("m", ApiFormat.CHAT, 9, 8, null, 0.0, null, null, null,
                null, false, null)).isInstanceOf(IllegalArgumentException.class);
    }

    private ArrayNode messages(String content) {
        ArrayNode messages = mapper.createArrayNode();
        messages.addObject().put("role", "user").put("content", content);
        return messages;
    }

    private static List<String> names(ObjectNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
