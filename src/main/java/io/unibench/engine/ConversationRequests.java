package io.unibench.engine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.client.GenerationParams;
import io.unibench.client.RequestBodyBuilder;
import io.unibench.workload.Prompt;

import java.io.UncheckedIOException;
import java.util.SplittableRandom;

/**
 * Request bodies for the turns of conversations: the whole history as {@code messages} (or, for a legacy
 * completions URL, the history's contents joined into one {@code prompt}), the run's generation parameters, and the
 * turn's own {@code max_tokens} when the dataset gives one (set after everything else, as evalscope does, so it wins
 * over {@code --max-tokens} and {@code --extra-args}). Random draws ({@code --max-tokens MIN MAX}) come from a
 * generator seeded by (seed, conversation, turn), so bodies do not depend on thread timing.
 */
public final class ConversationRequests {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final GenerationParams params;
    private final RequestBodyBuilder builder = new RequestBodyBuilder();
    private final long seed;
    private final String runTag;

    public ConversationRequests(GenerationParams params, long seed, String runTag) {
        this.params = params;
        this.seed = seed;
        this.runTag = runTag;
    }

    /** The body of turn {@code turn} of conversation {@code conversationSeq} sending {@code history}. */
    PreparedRequest prepare(long index, String conversationId, long conversationSeq, int turn, ArrayNode history,
                            Integer maxTokens) {
        SplittableRandom rng = new SplittableRandom((seed * 0x9E3779B97F4A7C15L + conversationSeq) * 31 + turn);
        ObjectNode body = builder.build(params, history, null, null, rng);
        if (maxTokens != null) body.put("max_tokens", maxTokens);
        boolean stream = body.path("stream").asBoolean(false);
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        // the prompt is kept for client-side token counting when the server sends no usage
        return new PreparedRequest(index, runTag + "-" + conversationId + "-t" + turn, bytes, stream,
                Prompt.ofMessages(history.deepCopy(), -1, -1));
    }
}
