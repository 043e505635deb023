package io.unibench.client;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Which API the endpoint speaks: the shape of the request body, of the reply (SSE events or JSON body) and of the
 * credentials. {@code --api} names map to these by {@link #ofApiName} (evalscope's plugin names plus
 * {@code anthropic}); OpenAI chat and legacy completions share the name {@code openai} and differ by URL.
 */
public enum ApiFormat {
    /** {@code /v1/chat/completions}: {@code messages}, {@code chat.completion.chunk} events, {@code [DONE]}. */
    CHAT("openai chat completions", "/v1/chat/completions", true),
    /** {@code /v1/completions}: {@code prompt} (text, or token ids with {@code --tokenize-prompt}). */
    COMPLETIONS("openai completions", "/v1/completions", true),
    /**
     * OpenAI's Responses API ({@code /v1/responses}): {@code input}, {@code max_output_tokens}; typed events
     * ({@code response.output_text.delta}, reasoning deltas, {@code response.completed} with the usage,
     * {@code response.failed}), no {@code [DONE]}.
     */
    RESPONSES("openai responses", "/v1/responses", true),
    /**
     * Anthropic's Messages API ({@code /v1/messages}): {@code x-api-key} and {@code anthropic-version} headers,
     * system prompt as a top-level field, events {@code message_start}, {@code content_block_delta} (text and
     * thinking), {@code message_delta} with the usage, {@code message_stop}, {@code error}.
     */
    ANTHROPIC("anthropic messages", "/v1/messages", true),
    /** {@code /v1/embeddings}: {@code input} (one text or a batch); one JSON reply, no output tokens. */
    EMBEDDING("openai embeddings", "/v1/embeddings", false),
    /** {@code /v1/rerank} (vLLM, Jina, Cohere-style): {@code query} and {@code documents}; one JSON reply. */
    RERANK("rerank", "/v1/rerank", false);

    /** The {@code anthropic-version} header sent unless {@code --headers} gives one (the current stable version). */
    public static final String ANTHROPIC_VERSION = "2023-06-01";

    /** Every {@code --api} name accepted, evalscope's first. */
    public static final List<String> API_NAMES = List.of("openai", "local", "local_vllm", "openai_responses",
            "responses", "openai_response", "openai_embedding", "embedding", "openai_rerank", "rerank", "anthropic");

    private final String label;
    private final String path;
    private final boolean generates;

    ApiFormat(String label, String path, boolean generates) {
        this.label = label;
        this.path = path;
        this.generates = generates;
    }

    /**
     * The format of an {@code --api} name; {@code openai} (and evalscope's {@code local}, {@code local_vllm}) is
     * {@link #CHAT}, which the URL may turn into {@link #COMPLETIONS}. Null for a name this tool does not know.
     */
    public static ApiFormat ofApiName(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "openai", "local", "local_vllm" -> CHAT;
            case "openai_responses", "responses", "openai_response" -> RESPONSES;
            case "openai_embedding", "embedding" -> EMBEDDING;
            case "openai_rerank", "rerank" -> RERANK;
            case "anthropic" -> ANTHROPIC;
            default -> null;
        };
    }

    /** How reports name it, e.g. "openai responses". */
    public String label() {
        return label;
    }

    /** The endpoint path appended to a base URL, e.g. {@code /v1/responses}. */
    public String path() {
        return path;
    }

    /** Prompts are chat messages (chat, Responses, Anthropic); otherwise plain text. */
    public boolean chatMessages() {
        return this == CHAT || this == RESPONSES || this == ANTHROPIC;
    }

    /** False for embeddings and rerank: no output tokens, never streamed, latency = TTFT = response time. */
    public boolean generates() {
        return generates;
    }

    /**
     * The credential headers for {@code apiKey} ({@code null} or empty = none) added to {@code headers}: OpenAI's
     * {@code Authorization: Bearer KEY} (which replaces a given one), or Anthropic's {@code x-api-key: KEY} and
     * {@code anthropic-version} (a version given in {@code headers} is kept).
     */
    public void addCredentials(Map<String, String> headers, String apiKey) {
        boolean key = apiKey != null && !apiKey.isEmpty();
        if (this != ANTHROPIC) {
            if (key) {
                headers.keySet().removeIf(h -> h.equalsIgnoreCase("Authorization"));
                headers.put("Authorization", "Bearer " + apiKey);
            }
            return;
        }
        if (key) {
            headers.keySet().removeIf(h -> h.equalsIgnoreCase("x-api-key"));
            headers.put("x-api-key", apiKey);
        }
        if (headers.keySet().stream().noneMatch(h -> h.equalsIgnoreCase("anthropic-version"))) {
            headers.put("anthropic-version", ANTHROPIC_VERSION);
        }
    }
}
