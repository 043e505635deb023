package io.unibench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.OutputFailedException;
import io.unibench.Secrets;
import io.unibench.engine.LoadPlan;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code benchmark_args.json}: the run's arguments under evalscope's key names, so scripts that read it keep
 * working. Secrets are masked ({@code sk-***abc}): the API key and every secret-looking header.
 */
final class ArgsFile {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ArgsFile() {}

    /**
     * The run's arguments, for the spec's outputs: the keys of one point (url, number, parallel, open_loop, rate,
     * warmup_num, dataset_offset) are null until {@link #write} fills them in.
     */
    static ObjectNode arguments(PerfSettings s, PerfOptions o) {
        ObjectNode a = JSON.createObjectNode();
        a.put("model", s.model());
        a.put("api", o.api);
        a.putNull("url");
        a.put("api_key", s.apiKey() == null ? null : Secrets.mask(s.apiKey()));
        ObjectNode headers = a.putObject("headers");
        for (Map.Entry<String, String> h : s.headers().entrySet()) {
            headers.put(h.getKey(), Secrets.headerValue(h.getKey(), h.getValue()));
        }
        a.put("connect_timeout", o.connectTimeout);
        a.put("read_timeout", o.readTimeout);
        a.put("total_timeout", o.totalTimeout);
        a.putNull("number");
        a.putNull("parallel");
        a.putNull("open_loop");
        a.putNull("rate");
        a.put("duration", o.duration);
        a.putNull("warmup_num");
        a.put("sleep_interval", s.sleepIntervalSeconds());
        a.put("max_tokens", s.generation().maxTokensMin());
        if (s.generation().maxTokensMax() != s.generation().maxTokensMin()) {
            a.putArray("max_tokens").add(s.generation().maxTokensMin()).add(s.generation().maxTokensMax());
        }
        a.put("min_tokens", o.minTokens);
        a.put("frequency_penalty", o.frequencyPenalty);
        a.put("repetition_penalty", o.repetitionPenalty);
        a.put("logprobs", o.logprobs ? Boolean.TRUE : null);
        a.put("n_choices", o.nChoices);
        if (o.stopTokenIds != null) PerfSettings.stopTokenIds(o).forEach(a.putArray("stop_token_ids")::add);
        a.put("temperature", o.temperature);
        a.put("top_p", o.topP);
        a.put("top_k", o.topK);
        a.put("seed", o.seed);
        if (o.stop != null) o.stop.forEach(a.putArray("stop")::add);
        a.put("stream", o.stream);
        a.set("extra_args", s.generation().extraArgs());
        a.put("dataset", s.dataset());
        a.put("dataset_path", o.datasetPath);
        a.putNull("dataset_offset");
        a.put("min_prompt_length", s.minPromptLength());
        a.put("max_prompt_length", s.maxPromptLength());
        a.put("prefix_length", o.prefixLength);
        a.put("prompt", o.prompt);
        a.put("query_template", o.queryTemplate);
        a.put("tokenizer_path", o.tokenizerPath);
        a.put("multi_turn", o.multiTurn);
        a.put("min_turns", o.minTurns == null ? 1 : o.minTurns);
        a.put("max_turns", o.maxTurns);
        a.put("rate_mode", o.multiTurn ? (o.rateMode == null ? "think" : o.rateMode) : null);
        a.put("dataset_args", o.datasetArgs);
        a.put("apply_chat_template", s.format() == io.unibench.client.ApiFormat.CHAT);
        a.put("no_test_connection", o.noTestConnection);
        a.put("ca_cert", o.caCert == null ? null : o.caCert.toString());
        a.put("insecure", o.insecure);
        a.put("sim_tls", o.simTls);
        a.put("outputs_dir", o.outputsDir);
        a.put("name", o.name);
        a.put("no_timestamp", o.noTimestamp);
        a.put("log_every_n_query", o.logEveryNQuery);
        a.put("debug", o.debug);
        a.put("embedded_simulator", s.embeddedSimulator());
        return a;
    }
}
