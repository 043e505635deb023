package io.unibench.cli;

import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code unibench sim}: the simulated OpenAI-compatible server, standalone, until Ctrl-C. */
@Command(name = "sim", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run the simulated LLM server: /v1/chat/completions, /v1/completions, /v1/models, /health.",
                "Time to first token = ttft + uncached prompt tokens × prefill; then one token every itl.",
                "Prefix cache in blocks of --block-size tokens (LRU), reported as usage.prompt_tokens_details.cached_tokens."})
public final class SimCommand implements Callable<Integer> {
    private static final SimConfig D = SimConfig.defaults();

    @Spec
    CommandSpec spec;

    @Option(names = "--host", description = "Address to listen on. Default: " + "127.0.0.1")
    String host = D.host();

    @Option(names = "--port", description = "Port (0 = any free port). Default: 8877 (evalscope's default --url).")
    int port = 8877;

    @Option(names = "--model", description = "Model id served by /v1/models. Default: unibench-sim")
    String model = D.model();

    @Option(names = "--ttft-ms", description = "Fixed part of the time to first token, ms. Default: 20")
    double ttftMs = D.ttftMs();

    @Option(names = "--prefill-ms-per-token", description = "Prefill time per uncached prompt token, ms. Default: 0.02")
    double prefillMsPerToken = D.prefillMsPerToken();

    @Option(names = "--itl-ms", description = "Time between output tokens, ms. Default: 5")
    double itlMs = D.itlMs();

    @Option(names = "--mean-output-tokens", description = "Mean natural reply length without ignore_eos. Default: 64")
    int meanOutputTokens = D.meanOutputTokens();

    @Option(names = "--seed", description = "Seed of reply lengths and texts. Default: 0")
    long seed = D.seed();

    @Option(names = "--block-size", description = "Prefix-cache block size in tokens. Default: 16")
    int blockSize = D.blockSize();

    @Option(names = "--cache-blocks", description = "Prefix-cache capacity in blocks. Default: 65536")
    int cacheBlocks = D.cacheCapacityBlocks();

    @Option(names = "--no-report-cached-tokens", description = "Omit usage.prompt_tokens_details, as a server "
            + "without --enable-prompt-tokens-details does. Default: reported.")
    boolean noReportCachedTokens;

    @Option(names = "--tokenizer", description = "Tokenizer counting prompt tokens. Default: cl100k_base")
    String tokenizer = D.tokenizer();

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        SimConfig config;
        try {
            config = new SimConfig(host, port, model, ttftMs, prefillMsPerToken, itlMs, meanOutputTokens, seed,
                    blockSize, cacheBlocks, !noReportCachedTokens, tokenizer);
        } catch (IllegalArgumentException e) {
            throw new io.unibench.BadInputException(e.getMessage());
        }
        CountDownLatch closed = new CountDownLatch(1);
        SimServer server = SimServer.start(config);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            closed.countDown();
        }, "unibench-sim-stop"));
        out.println("unibench sim listening on " + server.baseUrl() + " (model " + model + "); Ctrl-C to stop");
        out.println("try: ./unibench perf --url " + server.baseUrl() + "/v1/chat/completions --model " + model);
        closed.await();
        return 0;
    }
}
