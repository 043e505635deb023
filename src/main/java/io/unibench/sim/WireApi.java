package io.unibench.sim;

/** Which API a request came in on: how its body reads and how its reply is written. */
enum WireApi {
    /** {@code /v1/chat/completions} */
    CHAT,
    /** {@code /v1/completions} */
    COMPLETIONS,
    /** {@code /v1/responses}: OpenAI's Responses API, typed SSE events. */
    RESPONSES,
    /** {@code /v1/messages}: Anthropic's Messages API, typed SSE events. */
    MESSAGES,
    /** {@code /v1/embeddings}: the prompt is run through prefill only; one JSON body of vectors. */
    EMBEDDINGS,
    /** {@code /v1/rerank} (also {@code /rerank}, {@code /v2/rerank}): query × documents, prefill only. */
    RERANK;

    /** The prompt is chat messages rendered with the chat template. */
    boolean chatTemplate() {
        return this == CHAT || this == RESPONSES || this == MESSAGES;
    }

    /** Only prefill: no output tokens reach the client. */
    boolean inputOnly() {
        return this == EMBEDDINGS || this == RERANK;
    }

    /** The API that serves a request path, or null. */
    static WireApi ofPath(String path) {
        return switch (path) {
            case "/v1/chat/completions" -> CHAT;
            case "/v1/completions" -> COMPLETIONS;
            case "/v1/responses" -> RESPONSES;
            case "/v1/messages" -> MESSAGES;
            case "/v1/embeddings" -> EMBEDDINGS;
            case "/v1/rerank", "/rerank", "/v2/rerank", "/v1/reranks" -> RERANK;
            default -> null;
        };
    }
}
