package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.Secrets;
import io.unibench.check.CheckReport;
import io.unibench.check.CheckSettings;
import io.unibench.check.CheckSuite;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/** {@code unibench check}: validate a backend's behaviour at its limits (issue 19). */
@Command(name = "check", mixinStandardHelpOptions = true, sortOptions = false,
        exitCodeListHeading = Main.EXIT_CODES_HEADING,
        exitCodeList = {"0:no check failed", "2:bad input (one line on stderr naming the flag)",
                "3:the target could not be reached at all (nothing was judged)", "4:a check failed"},
        description = {"Validate an OpenAI-compatible backend: streaming, errors, generation controls, prefix-cache "
                + "reporting and, with --allow-load, overload, cancellation, queue draining and recovery.",
                "One line per check: PASS, FAIL or SKIP, with the evidence. Default target: the embedded simulator."})
public final class CheckCommand implements Callable<Integer> {
    static final int EXIT_CHECK_FAILED = 4;
    static final int EXIT_UNREACHABLE = 3;
    /** The embedded simulator's limits: small, so the load checks are quick and its refusals come early. */
    private static final int SIM_SEQS = 8;

    @Option(names = "--url", paramLabel = "URL", description = "The server: its base URL (http://host:8000), its /v1, "
            + "or the chat completions URL. Default: the embedded simulator.")
    String url;

    @Option(names = "--model", paramLabel = "NAME", description = "The model every request names (required with --url).")
    String model;

    @Option(names = "--served-models", split = ",", paramLabel = "NAME", description = "The models the server "
            + "serves (comma-separated). With it, a 200 for a model name not served is a FAIL of errors-are-errors; "
            + "without it a WARN (llama.cpp, SGLang and `unibench sim` serve any name by default).")
    List<String> servedModels;

    @Option(names = "--api-key-env", paramLabel = "NAME", description = "Environment variable holding the API key, "
            + "sent as 'Authorization: Bearer KEY' (never shown).")
    String apiKeyEnv;

    @Option(names = "--only", split = ",", paramLabel = "CHECK", description = "Run only these checks (comma-separated).")
    List<String> only;

    @Option(names = "--skip", split = ",", paramLabel = "CHECK", description = "Leave these checks out (comma-separated).")
    List<String> skip;

    @Option(names = "--report", paramLabel = "FORMAT", description = "Also write the verdicts as ${COMPLETION-CANDIDATES}.")
    ReportFormat report;

    @Option(names = "--report-file", paramLabel = "FILE", description = "Where --report writes (default: "
            + "check_report.json or check_report.md in the current folder).")
    Path reportFile;

    @Option(names = "--concurrency-limit", paramLabel = "N", description = "The server's concurrency limit (vLLM "
            + "--max-num-seqs, SGLang --max-running-requests, llama.cpp --parallel). Default: found by ramping 1, 2, 4, "
            + "… concurrent requests.")
    Integer concurrencyLimit;

    @Option(names = "--allow-load", description = "Run the load checks (overload-bounded, cancellation-propagates, "
            + "queue-drains, recovery): they push the server past its limit. Without it they are skipped.")
    boolean allowLoad;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60", description = "The client's limit for "
            + "one request (default: ${DEFAULT-VALUE}); a request still waiting then 'waited until the client's timeout'.")
    double timeoutSeconds;

    @Option(names = "--settle", paramLabel = "SECONDS", defaultValue = "10", description = "How long the server may "
            + "take to settle after cancellations or a burst (default: ${DEFAULT-VALUE}).")
    double settleSeconds;

    @picocli.CommandLine.Mixin
    ServerMetricsOption serverMetrics = new ServerMetricsOption();

    @Spec
    CommandSpec spec;

    private Map<String, String> environment = System.getenv();

    enum ReportFormat { json, md }

    CheckCommand forTest(Map<String, String> env) {
        this.environment = env;
        return this;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Set<String> selected = selection();
        Duration timeout = positive("--timeout", timeoutSeconds);
        Duration settle = positive("--settle", settleSeconds);
        if (concurrencyLimit != null && concurrencyLimit < 1) {
            throw new BadInputException("--concurrency-limit " + concurrencyLimit + ": expected >= 1");
        }
        Map<String, String> headers = headers();
        SimServer sim = null;
        try {
            URI endpoint;
            String target;
            Integer limit = concurrencyLimit;
            if (url == null) {
                String m = model == null ? SimConfig.defaults().model() : model;
                sim = SimServer.start(embeddedSimulator(m));
                endpoint = URI.create(sim.baseUrl() + "/v1/chat/completions");
                model = m;
                if (limit == null) limit = SIM_SEQS;
                target = endpoint + " (embedded simulator)";
            } else {
                if (model == null) throw new BadInputException("--model: required with --url");
                endpoint = endpoint(url);
                target = Secrets.redact(endpoint.toString());
            }
            URI metrics = serverMetrics.url(endpoint);
            List<String> served = servedModels == null ? List.of()
                    : servedModels.stream().map(String::strip).filter(m -> !m.isEmpty()).toList();
            if (servedModels != null && !served.contains(model)) {
                throw new BadInputException("--served-models " + String.join(",", served) + ": does not name --model "
                        + model);
            }
            CheckSettings settings = new CheckSettings(endpoint, model, headers, timeout, limit, settle, allowLoad,
                    metrics, served);
            err.println("Checking " + target + ", model " + model);
            String unreachable = CheckSuite.unreachable(settings);
            if (unreachable != null) {
                err.println("unibench: " + Secrets.redact(unreachable));
                return EXIT_UNREACHABLE;
            }
            CheckReport result = CheckSuite.run(settings, selected, v -> {
                out.println(Secrets.redact(v.line()));
                out.flush();
            });
            out.println("Server metrics: " + Secrets.redact(result.metrics()));
            out.println(result.totals());
            if (report != null) writeReport(result, err);
            return result.failed() ? EXIT_CHECK_FAILED : 0;
        } finally {
            if (sim != null) sim.close();
        }
    }

    /** The embedded target: strict about models, small limits, a bounded queue. */
    static SimConfig embeddedSimulator(String model) {
        SimConfig base = SimConfig.defaults().withModel(model);
        return base.with(Map.of("allowed-models", List.of(model), "max-num-seqs", SIM_SEQS, "max-queue", SIM_SEQS,
                "max-queue-wait-ms", 2000.0, "max-model-len", 8192));
    }

    private Set<String> selection() {
        List<String> known = CheckSuite.ids();
        Set<String> selected = new LinkedHashSet<>(only == null ? known : only);
        for (String id : selected) unknown("--only", id, known);
        if (skip != null) {
            for (String id : skip) unknown("--skip", id, known);
            skip.forEach(selected::remove);
        }
        if (selected.isEmpty()) throw new BadInputException("--skip: every check is left out");
        return selected;
    }

    private static void unknown(String flag, String id, List<String> known) {
        if (!known.contains(id)) {
            throw new BadInputException(flag + ": unknown check '" + id + "' (known: " + String.join(", ", known) + ")");
        }
    }

    private static Duration positive(String flag, double seconds) {
        if (!(seconds > 0) || Double.isInfinite(seconds)) {
            throw new BadInputException(flag + " " + seconds + ": expected a number of seconds > 0");
        }
        return Duration.ofNanos((long) (seconds * 1e9));
    }

    private Map<String, String> headers() {
        Map<String, String> headers = new LinkedHashMap<>();
        if (apiKeyEnv == null) return headers;
        String key = environment.get(apiKeyEnv);
        if (key == null || key.isBlank()) {
            throw new BadInputException("--api-key-env " + apiKeyEnv + ": that environment variable is not set");
        }
        headers.put("Authorization", "Bearer " + key.strip());
        return headers;
    }

    /** The chat completions URL of a base URL, a {@code /v1} URL or the chat completions URL itself. */
    static URI endpoint(String url) {
        URI uri;
        try {
            uri = URI.create(url.strip());
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--url " + Secrets.redact(url) + ": not a URL");
        }
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
            throw new BadInputException("--url " + Secrets.redact(url) + ": expected http:// or https:// and a host");
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath().replaceAll("/+$", "");
        String full;
        if (path.endsWith("/chat/completions")) full = path;
        else if (path.endsWith("/v1")) full = path + "/chat/completions";
        else if (path.isEmpty()) full = "/v1/chat/completions";
        else throw new BadInputException("--url " + Secrets.redact(url) + ": expected the base URL, its /v1 or the "
                    + "/v1/chat/completions URL");
        return URI.create(scheme + "://" + uri.getRawAuthority() + full);
    }

    private void writeReport(CheckReport result, PrintWriter err) {
        Path file = reportFile != null ? reportFile
                : Path.of(report == ReportFormat.json ? "check_report.json" : "check_report.md");
        try {
            Files.writeString(file, report == ReportFormat.json ? result.json() : result.markdown());
        } catch (IOException e) {
            throw BadInputException.io("--report-file", file.toString(), e);
        }
        err.println("Report: " + file.toAbsolutePath());
    }
}
