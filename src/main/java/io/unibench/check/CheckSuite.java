package io.unibench.check;

import io.unibench.client.ClientConfig;
import io.unibench.client.LlmClient;
import io.unibench.scrape.ServerMetricsScraper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The battery of {@code unibench check}, in the order it runs: the light checks first, the load checks (which
 * need {@code --allow-load}) last, so a production endpoint sees the harmless ones before anything heavy.
 */
public final class CheckSuite {
    private static final List<Check> ALL = List.of(new StreamFormatCheck(), new StreamIncrementalCheck(),
            new ErrorsCheck(), new MaxTokensCheck(), new StopCheck(), new IgnoreEosCheck(), new DeterminismCheck(),
            new CacheReportedCheck(), new OverloadCheck(), new CancellationCheck(), new QueueDrainsCheck(),
            new RecoveryCheck());
    /** Connections enough for the largest burst: recovery's 4 × the ramp's cap. */
    private static final int MAX_CONNECTIONS = 4 * Ramp.CAP + 16;

    private CheckSuite() {}

    /** Every check's id, in running order. */
    public static List<String> ids() {
        return ALL.stream().map(Check::id).toList();
    }

    /**
     * Runs the selected checks against the target; {@code each} sees every verdict as it is reached. Load checks
     * are skipped (with a SKIP line) unless {@link CheckSettings#allowLoad()}.
     */
    public static CheckReport run(CheckSettings settings, Set<String> selected, Consumer<Verdict> each)
            throws InterruptedException {
        ClientConfig config = new ClientConfig(settings.endpoint(), settings.headers(), Duration.ofSeconds(10),
                settings.timeout(), settings.timeout(), MAX_CONNECTIONS, false);
        List<Verdict> verdicts = new ArrayList<>();
        ServerMetricsScraper scraper = settings.metrics() == null ? null
                : new ServerMetricsScraper(settings.metrics(), System::currentTimeMillis);
        try (LlmClient client = new LlmClient(config)) {
            if (scraper != null) scraper.scrapeOnce();
            Target target = new Target(settings, client, scraper, d -> Thread.sleep(d.toMillis()));
            for (Check check : ALL) {
                if (!selected.contains(check.id())) continue;
                Verdict v = check.load() && !settings.allowLoad()
                        ? Verdict.skip(check.id(), "a load check: run with --allow-load")
                        : check.run(target);
                verdicts.add(v);
                each.accept(v);
            }
            String metrics = scraper == null ? "off" : scraper.unavailable() != null ? scraper.unavailable()
                    : scraper.url() + " (" + scraper.series().engine() + ")";
            return new CheckReport(settings, verdicts, metrics);
        } finally {
            if (scraper != null) scraper.close();
        }
    }
}
