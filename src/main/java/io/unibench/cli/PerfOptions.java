package io.unibench.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The flags of {@code unibench perf}: names, defaults and meaning of {@code evalscope perf}.
 * Fields left {@code null} mean "not given"; {@link PerfSettings} resolves them.
 */
public final class PerfOptions {
    // ---- target ---------------------------------------------------------------------------------
    @Option(names = "--url", paramLabel = "URL", description = "Endpoint; /v1/chat/completions is appended "
            + "when the path names no endpoint. 'sim' or absent: start the embedded simulator on a free "
            + "loopback port. User info (http://user:pass@host/...) is sent as Basic authorization unless "
            + "--api-key or an Authorization header is given; it is masked wherever the URL is shown. "
            + "Default: embedded simulator.")
    String url;

    @Option(names = "--model", description = "Model name sent in every body. Required with --url. "
            + "Default: unibench-sim with the embedded simulator.")
    String model;

    @Option(names = "--api", defaultValue = "openai", paramLabel = "NAME", description = "API plugin: openai (chat "
            + "completions; legacy /v1/completions when the URL ends in /completions, with --no-apply-chat-template or "
            + "--tokenize-prompt; aliases local, local_vllm), openai_responses (the Responses API, /v1/responses; "
            + "aliases responses, openai_response), anthropic (the Messages API, /v1/messages), openai_embedding "
            + "(embedding; /v1/embeddings), openai_rerank (rerank; /v1/rerank). Default: ${DEFAULT-VALUE}.")
    String api;

    @Option(names = "--api-key", description = "Sent as 'Authorization: Bearer KEY' (--api anthropic: 'x-api-key: "
            + "KEY' with 'anthropic-version: 2023-06-01' unless --headers sets one); also read from ANTHROPIC_API_KEY "
            + "(anthropic), UNIBENCH_API_KEY or OPENAI_API_KEY. Masked everywhere it is shown. Default: none.")
    String apiKey;

    @Option(names = "--headers", arity = "1..*", paramLabel = "K=V", description = "Extra request headers "
            + "(split at the first '='). Default: none.")
    List<String> headers = new ArrayList<>();

    @Option(names = "--tokenize-prompt", description = "Send every prompt as token ids (the --tokenizer-path "
            + "tokenizer's; the embedded simulator's own without one) in 'prompt' to /v1/completions, so the server "
            + "gets exactly the synthesized length; chat messages go as the tokens of their contents joined by "
            + "newlines, without a chat template. --api openai only. Default: off.")
    boolean tokenizePrompt;

    @Option(names = "--apply-chat-template", negatable = true, description = "Send chat messages "
            + "(on) or a plain prompt to /v1/completions (off). Default: on when the URL ends in "
            + "chat/completions.")
    Boolean applyChatTemplate;

    @Option(names = "--connect-timeout", paramLabel = "S", description = "TCP/TLS connect timeout in "
            + "seconds. Default: none.")
    Double connectTimeout;

    @Option(names = "--read-timeout", paramLabel = "S", description = "Longest gap between two reads of a "
            + "reply, in seconds (not a total). Default: none.")
    Double readTimeout;

    @Option(names = "--total-timeout", paramLabel = "S", defaultValue = "21600", description = "Longest a "
            + "whole request may take, in seconds. Default: ${DEFAULT-VALUE}.")
    double totalTimeout;

    @Option(names = "--no-test-connection", description = "Skip the one-token connection test before the "
            + "run. Default: test.")
    boolean noTestConnection;

    @Option(names = "--no-client-warmup", description = "Skip the client's warm-up before the first point: a "
            + "bounded run of its own request path (at most 600 requests, 1 s) against an in-process loopback "
            + "responder, nothing sent to the target, its time printed, so a short run's first requests are not "
            + "measured on code the JVM still interprets. Default: warm up.")
    boolean noClientWarmup;

    @Option(names = "--ca-cert", paramLabel = "FILE", description = "https: trust the CA certificate(s) of this PEM "
            + "file instead of the JDK's trust store (a lab's own CA, or the certificate `unibench sim --tls` "
            + "prints); the host name is still verified. Default: the JDK's trust store.")
    java.nio.file.Path caCert;

    @Option(names = "--insecure", description = "https: accept any certificate for any host (no chain and no host "
            + "name check), for self-signed lab servers; the handshake is still made and timed. Default: verify.")
    boolean insecure;

    @Option(names = "--sim-tls", description = "The embedded simulator serves https with a self-signed certificate "
            + "made at start, which the client trusts (host name checked): TLS in the measurement as at a real "
            + "provider. Default: plain http.")
    boolean simTls;

    // ---- load -----------------------------------------------------------------------------------
    @Option(names = {"-n", "--number"}, arity = "1..*", paramLabel = "N", description = "Requests per run; "
            + "several values with as many --parallel values run as a sweep of pairs. Default: 1000 "
            + "(with the embedded simulator and no load flags: 8 64 400).")
    List<Integer> number;

    @Option(names = "--parallel", arity = "1..*", paramLabel = "P", description = "Concurrent requests "
            + "(closed loop). Default: 1 (with the embedded simulator and no load flags: 1 8 32).")
    List<Integer> parallel;

    @Option(names = "--rate", arity = "1..*", paramLabel = "R", description = "Poisson arrivals per second "
            + "on an absolute schedule, bounded by --parallel; -1 = send as fast as --parallel allows. One "
            + "value for every run or one per run. With --multi-turn its meaning is set by --rate-mode "
            + "(default: evalscope's per-worker think time before every turn). Default: -1.")
    List<Double> rate;

    @Option(names = "--open-loop", description = "Open loop (evalscope): requests start on the --rate schedule "
            + "with no concurrency bound (--parallel is ignored, shown as INF); needs --rate > 0 for every run; result "
            + "folders are rate_R_number_N. Not with --multi-turn (use --rate-mode arrival). Default: off (closed "
            + "loop, at most --parallel in flight).")
    boolean openLoop;

    @Option(names = "--duration", paramLabel = "S", description = "Soft cap per run in seconds: stop "
            + "sending, let in-flight requests finish; with --number the first cap wins. Default: none.")
    Double duration;

    @Option(names = "--warmup-num", paramLabel = "N", defaultValue = "0", description = "Warmup requests sent "
            + "first and excluded from results: ≥1 a count, 0<x<1 a share of --number. Default: ${DEFAULT-VALUE}.")
    double warmupNum;

    @Option(names = "--sleep-interval", paramLabel = "S", description = "Pause between sweep runs in seconds. "
            + "Default: 5 (1 with the embedded simulator, which has nothing to drain).")
    Integer sleepInterval;

    // ---- multi-turn -----------------------------------------------------------------------------
    @Option(names = "--multi-turn", description = "Benchmark conversations: every turn sends the whole history, "
            + "the model's actual replies included. --number counts conversations, --parallel concurrent "
            + "conversations. Datasets: random_multi_turn (the default with this flag), share_gpt_zh_multi_turn, "
            + "share_gpt_en_multi_turn, custom_multi_turn, swe_smith, trie_*. Default: off.")
    boolean multiTurn;

    @Option(names = "--min-turns", paramLabel = "N", description = "random_multi_turn: fewest user turns per "
            + "conversation. Default: 1.")
    Integer minTurns;

    @Option(names = "--max-turns", paramLabel = "N", description = "Most user turns per conversation: the upper "
            + "bound for random_multi_turn (required there), a cut for file datasets, and enforced for every "
            + "conversation. Default: none.")
    Integer maxTurns;

    @Option(names = "--rate-mode", paramLabel = "MODE", description = "What --rate means with --multi-turn: "
            + "'think' = evalscope's meaning, each worker pauses an exponentially distributed think time (mean "
            + "1/R s) before every turn; 'arrival' = new conversations arrive as a Poisson process of R "
            + "conversations/s (open loop over conversations, at most --parallel running, queueing delay of the "
            + "first turn measured). Default: think.")
    String rateMode;

    @Option(names = "--dataset-args", paramLabel = "JSON", description = "JSON object of dataset-specific "
            + "settings: swe_smith's, batch_size (embedding_batch, random_embedding_batch), num_documents and "
            + "document_length_ratio (random_rerank); a key the dataset does not read is refused. Default: {}.")
    String datasetArgs;

    @Option(names = "--multi-turn-args", paramLabel = "JSON", description = "Deprecated alias of "
            + "--dataset-args (evalscope); its keys are added where --dataset-args has none. Default: none.")
    String multiTurnArgs;

    // ---- agentic workloads (trie traces, swe_smith) ---------------------------------------------------
    @Option(names = "--tool-latency-scale", paramLabel = "X", description = "Factor on the recorded tool-call "
            + "pauses before a trace's turns (trie_*): 1 = as recorded, 0 = no idle gaps. Default: 1.0.")
    Double toolLatencyScale;

    @Option(names = "--max-traces", paramLabel = "N", description = "Most distinct conversations loaded from the "
            + "dataset (after --dataset-offset); the run cycles through them. Default: --number.")
    Integer maxTraces;

    @Option(names = "--swe-smith-input", paramLabel = "FILE", description = "--dataset swe_smith without "
            + "--dataset-path: build conversations in memory from this local trajectory file (JSONL with "
            + "'messages', or a SWE-agent .traj). Needs --tokenizer-path. Default: none.")
    String sweSmithInput;

    @Option(names = "--num-workers", paramLabel = "N", description = "Threads building swe_smith conversations "
            + "(live mode); 0 = the default. Default: the cores available.")
    Integer numWorkers;

    @Option(names = "--chars-per-token", paramLabel = "X", description = "Characters per token of the estimate "
            + "used when there is no --tokenizer-path and the server reports no usage (such counts are labelled "
            + "estimated). Default: 3.0.")
    Double charsPerToken;

    // ---- generation -----------------------------------------------------------------------------
    @Option(names = "--max-tokens", arity = "1..2", paramLabel = "N", description = "max_tokens; two values "
            + "MIN MAX draw one uniformly per request. Default: 2048.")
    List<Integer> maxTokens;

    @Option(names = "--min-tokens", description = "min_tokens (vLLM extension). Default: none.")
    Integer minTokens;

    @Option(names = "--frequency-penalty", paramLabel = "X", description = "frequency_penalty. Default: none.")
    Double frequencyPenalty;

    @Option(names = "--repetition-penalty", paramLabel = "X", description = "repetition_penalty (vLLM extension). "
            + "Default: none.")
    Double repetitionPenalty;

    @Option(names = "--logprobs", description = "Sends logprobs: true. Default: not sent.")
    boolean logprobs;

    @Option(names = "--n-choices", paramLabel = "N", description = "n: choices per request (the server generates "
            + "them all; tokens of every choice count as output). Default: none.")
    Integer nChoices;

    @Option(names = "--stop-token-ids", arity = "0..*", paramLabel = "ID", description = "stop_token_ids (vLLM "
            + "extension), sent as integers (evalscope sends the strings it parsed). Default: none.")
    List<String> stopTokenIds; // read as text: 'abc' is then refused by name (PerfSettings.stopTokenIds), not as an unmatched argument

    @Option(names = "--temperature", defaultValue = "0.0", description = "Default: ${DEFAULT-VALUE}.")
    double temperature;

    @Option(names = "--top-p", description = "Default: none.")
    Double topP;

    @Option(names = "--top-k", description = "Default: none.")
    Integer topK;

    @Option(names = "--seed", description = "Seeds the client's random choices and is sent as 'seed'. "
            + "Default: none (prompts are still reproducible from seed 0).")
    Long seed;

    @Option(names = "--stop", arity = "0..*", description = "Stop sequences. Default: none.")
    List<String> stop;

    @Option(names = "--stream", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Stream the reply (adds stream_options.include_usage). Default: ${DEFAULT-VALUE}.")
    boolean stream;

    @Option(names = "--extra-args", paramLabel = "JSON", defaultValue = "{}", description = "JSON object "
            + "merged last into every body, e.g. '{\"ignore_eos\": true}'. Default: ${DEFAULT-VALUE}.")
    String extraArgs;

    // ---- dataset --------------------------------------------------------------------------------
    @Option(names = "--dataset", description = "random, line_by_line, custom, openqa, longalpaca, mooncake_trace (a timestamped "
            + "trace replayed at its recorded times, see --trace-speedup); with --multi-turn: "
            + "random_multi_turn, share_gpt_zh_multi_turn, share_gpt_en_multi_turn, custom_multi_turn, swe_smith, "
            + "trie_agentic_coding, trie_code_qa, trie_office_work. Default: "
            + "random (random_multi_turn with --multi-turn; evalscope: openqa, which needs a hub download; here "
            + "openqa reads --dataset-path).")
    String dataset;

    @Option(names = "--dataset-path", description = "Dataset file. Default: none.")
    String datasetPath;

    @Option(names = "--dataset-offset", defaultValue = "0", description = "Shifts random prompts, and where "
            + "conversation datasets start (custom_multi_turn, share_gpt_*_multi_turn, trie, swe_smith); advanced by "
            + "--number after each sweep run so runs do not share prefix-cache entries. Default: ${DEFAULT-VALUE}.")
    long datasetOffset;

    @Option(names = "--min-prompt-length", description = "Filter (files) or lower bound (random), in tokens "
            + "with a tokenizer, else characters. Default: 0 (random: 128).")
    Integer minPromptLength;

    @Option(names = "--max-prompt-length", description = "Filter or upper bound, same unit. Default: 131072 "
            + "(random: 1024, instead of evalscope's 131072 which averages 65k-token prompts).")
    Integer maxPromptLength;

    @Option(names = "--prefix-length", defaultValue = "0", description = "Random tokens shared by every "
            + "prompt of the run (random dataset). Default: ${DEFAULT-VALUE}.")
    int prefixLength;

    @Option(names = "--prompt", description = "Fixed prompt (or @file) for every request; overrides "
            + "--dataset. Default: none.")
    String prompt;

    @Option(names = "--query-template", paramLabel = "JSON|@FILE", description = "JSON object (or @file) every "
            + "request body starts from: its 'messages' (or 'prompt') is replaced by the dataset's, the generation "
            + "flags then overwrite their keys, --extra-args last. No %%m/%%p substitution (evalscope documents it "
            + "but never does it). Not applied to full bodies from a dataset (line_by_line objects). Default: none.")
    String queryTemplate;

    @Option(names = "--tokenizer-path", description = "Tokenizer for synthesized prompts, length filters and "
            + "client-side counts when the server sends no usage: a bundled tiktoken encoding "
            + "(cl100k_base, o200k_base, p50k_base, r50k_base), or a local Hugging Face tokenizer.json file or "
            + "model folder. Default: none (cl100k_base where prompts are synthesized; counts without usage are "
            + "estimated from --chars-per-token and labelled estimated).")
    String tokenizerPath;

    // ---- output ---------------------------------------------------------------------------------
    @Option(names = "--outputs-dir", defaultValue = "outputs", description = "Root folder of the results. "
            + "Default: ${DEFAULT-VALUE}.")
    String outputsDir;

    @Option(names = "--name", description = "Result folder name. Default: the model name.")
    String name;

    @Option(names = "--no-timestamp", description = "Write to OUTPUTS/NAME instead of "
            + "OUTPUTS/YYYYmmdd_HHMMSS/NAME. Default: timestamped.")
    boolean noTimestamp;

    @Option(names = "--log-every-n-query", defaultValue = "100", description = "Progress line every N "
            + "requests when stderr is not a terminal. Default: ${DEFAULT-VALUE}.")
    int logEveryNQuery;

    @Option(names = "--enable-progress-tracker", description = "Keep OUTPUTS/.../NAME/progress.json up to date "
            + "(evalscope's file: status, total_count, processed_count, percent, updated_at; at most once a "
            + "second). Default: off.")
    boolean enableProgressTracker;

    @Option(names = "--debug", description = "Log request bodies (cut at 800 characters) and reply chunks "
            + "(whole) on stderr, secrets masked. Default: off.")
    boolean debug;

    @Option(names = "--server-tokenize", paramLabel = "N", defaultValue = "0", description = "Before the run (outside "
            + "the measured interval), count up to N of the first point's prompts that aim at a target length with the "
            + "server's own tokenizer (POST /tokenize at the server root, as llama.cpp and vLLM serve it) and report "
            + "that length beside the target. Not with --multi-turn. Default: 0 (off).")
    int serverTokenize;

    @Option(names = "--max-error-rate", paramLabel = "PCT", description = "Exit 3 when a run point failed more "
            + "than PCT percent of its requests (for CI gates; each sweep point is judged alone). A run in which no "
            + "request succeeded exits 3 whatever this is. Default: no limit.")
    Double maxErrorRate;

    // ---- run history (store package) -------------------------------------------------------------
    @Mixin
    HistoryOptions history = new HistoryOptions();

    // ---- arrival shapes, goodput, SLA auto-tune ---------------------------------------------------
    @Mixin
    LoadShapeOptions loads = new LoadShapeOptions();

    // ---- retries of refusals, budget, target precision --------------------------------------------
    @Mixin
    LimitOptions limits = new LimitOptions();

    @Mixin
    ShardOptions shard = new ShardOptions(); // --shard, --run-group, --start-at (issue 21)

    /** --headers as an ordered map; a value without '=' is bad input. */
    Map<String, String> headerMap() {
        Map<String, String> map = new LinkedHashMap<>();
        for (String h : headers) {
            int eq = h.indexOf('=');
            if (eq <= 0) throw new io.unibench.BadInputException("--headers '" + h + "': expected KEY=VALUE");
            map.put(h.substring(0, eq).trim(), h.substring(eq + 1).trim());
        }
        return map;
    }
}
