package io.unibench.client;

import java.nio.charset.StandardCharsets;

/** The benchmark's static reply, as bench/static-target/make-bodies.py writes it: 256 one-token chunks + usage + [DONE]. */
final class StaticBody {
    static final int TOKENS = 256;
    /** Role chunk, 256 token chunks, finish chunk, usage chunk, [DONE]. */
    static final int EVENTS = TOKENS + 4;
    static final String HEAD = "{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1732000000,\"model\":\"m\",";

    static String tokenChunk(int i) {
        return HEAD + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok" + (i % 100)
                + " \"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}";
    }

    static byte[] sse() {
        StringBuilder sb = new StringBuilder();
        sb.append("data: ").append(HEAD).append("\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                + "\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n");
        for (int i = 0; i < TOKENS; i++) sb.append("data: ").append(tokenChunk(i)).append("\n\n");
        sb.append("data: ").append(HEAD).append("\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,"
                + "\"finish_reason\":\"length\"}],\"usage\":null}\n\n");
        sb.append("data: ").append(HEAD).append("\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":256,"
                + "\"total_tokens\":265,\"prompt_tokens_details\":{\"cached_tokens\":0}}}\n\n");
        sb.append("data: [DONE]\n\n");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private StaticBody() {}
}
