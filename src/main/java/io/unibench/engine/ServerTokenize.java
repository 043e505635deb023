package io.unibench.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.client.ClientConfig;
import io.unibench.client.LlmClient;
import io.unibench.client.RawReply;
import io.unibench.client.TlsOptions;
import io.unibench.workload.Prompt;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Counts synthesized prompts with the server's own tokenizer, through the {@code /tokenize} endpoint llama.cpp and
 * vLLM serve at their root: the client's tokenizer aims a prompt at its target length, and the model's tokenizer may
 * count the same text quite differently. One body fits both servers ({@code content} is llama.cpp's field,
 * {@code model}/{@code prompt} vLLM's; each ignores the other's), the count is vLLM's {@code count} or the length of
 * llama.cpp's {@code tokens}. Special tokens are not added (vLLM would prepend a BOS), so the count is of the text.
 *
 * <p>Run once before the measured interval, sequentially, over a bounded sample: it never touches the measured path.
 * A server without the endpoint (OpenAI, most gateways) is reported as such, not as an error.
 */
public final class ServerTokenize {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /**
     * What the sample showed.
     *
     * @param endpoint     the /tokenize URL asked
     * @param counted      prompts the server counted
     * @param targetSum    Σ their target lengths
     * @param clientSum    Σ their lengths as the client's tokenizer counts them
     * @param serverSum    Σ their lengths as the server counts them
     * @param serverMin    shortest server count; {@code serverMax} longest
     * @param unavailable  why counting stopped (HTTP status, connection failure) before the sample was done, or null
     */
    public record Result(String endpoint, int counted, long targetSum, long clientSum, long serverSum, int serverMin,
                         int serverMax, String unavailable) {

        /** The report's line, e.g. {@code 10 prompts: server 412.3 tokens on average (381-431), target 200}. */
        public String describe() {
            if (counted == 0) return "not counted: " + endpoint + " " + unavailable;
            return String.format(Locale.ROOT, "%d prompts via %s: server %.1f tokens on average (min %d, max %d), "
                            + "target %.1f, client tokenizer %.1f", counted, endpoint, (double) serverSum / counted,
                    serverMin, serverMax, (double) targetSum / counted, (double) clientSum / counted);
        }

        /** Keys added to the first point's {@code benchmark_summary.json}; empty when nothing was counted. */
        public Map<String, Object> summaryKeys() {
            Map<String, Object> m = new LinkedHashMap<>();
            if (counted == 0) return m;
            m.put("Server Tokenized Prompts", (long) counted);
            m.put("Avg Server-Counted Prompt Tokens", Math.round(10_000.0 * serverSum / counted) / 10_000.0);
            m.put("Min Server-Counted Prompt Tokens", (long) serverMin);
            m.put("Max Server-Counted Prompt Tokens", (long) serverMax);
            m.put("Avg Target Prompt Tokens (server-counted sample)", Math.round(10_000.0 * targetSum / counted) / 10_000.0);
            return m;
        }
    }

    private ServerTokenize() {}

    /** The /tokenize URL of the server behind {@code completionsUrl}: its root, before {@code /v1/}. */
    static URI endpoint(URI completionsUrl) {
        String path = completionsUrl.getPath();
        int v1 = path.indexOf("/v1/");
        String root = v1 >= 0 ? path.substring(0, v1) : "";
        return completionsUrl.resolve(root + "/tokenize");
    }

    /**
     * Asks the server to count up to {@code limit} of {@code prompts} that aimed at a target length, one at a time;
     * stops at the first failure (the endpoint is absent or refuses). Over https the server's certificate is checked
     * as the target's ({@code tls}: its {@code --ca-cert} or {@code --insecure}).
     */
    public static Result sample(URI completionsUrl, Map<String, String> headers, TlsOptions tls, String model,
                                List<Prompt> prompts, int limit) throws InterruptedException {
        URI url = endpoint(completionsUrl);
        List<Prompt> sample = new ArrayList<>();
        for (Prompt p : prompts) {
            if (sample.size() >= limit) break;
            if (p.targetTokens() >= 0 && text(p) != null) sample.add(p);
        }
        int counted = 0;
        String why = null;
        long target = 0;
        long client = 0;
        long server = 0;
        int min = Integer.MAX_VALUE;
        int max = 0;
        ClientConfig config = new ClientConfig(completionsUrl, headers, TIMEOUT, TIMEOUT, TIMEOUT, 1, false, tls);
        try (LlmClient http = new LlmClient(config)) { // the one client; /tokenize is no completion: a raw request
            for (Prompt p : sample) {
                ObjectNode body = JSON.createObjectNode().put("model", model).put("prompt", text(p))
                        .put("content", text(p)).put("add_special_tokens", false);
                RawReply response = http.raw("POST", url.getRawPath(), JSON.writeValueAsBytes(body), false).join();
                if (response.status() == 0) {
                    why = "unreachable (" + response.result().errorClass().label() + ")";
                    break;
                }
                int n = count(response);
                if (n < 0) {
                    why = "answered HTTP " + response.status() + (response.status() == 200 ? " without a count" : "");
                    break;
                }
                counted++;
                target += p.targetTokens();
                client += p.actualTokens();
                server += n;
                min = Math.min(min, n);
                max = Math.max(max, n);
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a tree of strings always serialises", e);
        }
        if (counted == 0) {
            return new Result(url.toString(), 0, 0, 0, 0, 0, 0,
                    why != null ? why : "had no prompt with a target length to count");
        }
        return new Result(url.toString(), counted, target, client, server, min, max, why);
    }

    /** vLLM's {@code count}, else the length of llama.cpp's {@code tokens}; -1 when the reply is neither. */
    private static int count(RawReply response) {
        if (response.status() != 200) return -1;
        try {
            JsonNode root = JSON.readTree(response.body());
            if (root.path("count").isInt()) return root.get("count").asInt();
            return root.path("tokens").isArray() ? root.get("tokens").size() : -1;
        } catch (IOException e) {
            return -1;
        }
    }

    /** The text whose length was aimed at: the prompt, or the content of its one message. */
    private static String text(Prompt p) {
        if (p.text() != null) return p.text();
        if (p.messages() == null || p.messages().size() != 1) return null;
        JsonNode content = p.messages().get(0).path("content");
        return content.isTextual() ? content.asText() : null;
    }
}
