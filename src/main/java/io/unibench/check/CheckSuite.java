package io.unibench.check;

import io.unibench.client.ClientConfig;
import io.unibench.client.ClientResult;
import io.unibench.BadInputException;
import io.unibench.engine.ConnectionTest;
import io.unibench.engine.ProbeRunner;
import io.unibench.engine.ProbeSession;
import io.unibench.scrape.ServerMetricsScraper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
     * are skipped (with a SKIP line) unless {@link CheckSettings#allowLoad()}. No stored client ceiling is read
     * (see {@link #run(CheckSettings, Set, Consumer, Map)}).
     */
    public static CheckReport run(CheckSettings settings, Set<String> selected, Consumer<Verdict> each)
            throws InterruptedException {
        return run(settings, selected, each, Map.of());
    }

    /**
     * As {@link #run(CheckSettings, Set, Consumer)}; the load checks' bursts, the concurrency ramp and recovery's
     * levels are the points of one session of the engine's session runner ({@link ProbeSession}), which reads a
     * stored client ceiling ({@code unibench calibrate}'s file) from {@code env}'s unibench home for each point's
     * verdict. {@code unibench check} passes none: a burst's requests all start at once, so its delivered rate is no
     * sustained rate to hold against the ceiling (tests pass one to make a point client-bound).
     */
    static CheckReport run(CheckSettings settings, Set<String> selected, Consumer<Verdict> each,
                                  Map<String, String> env) throws InterruptedException {
        List<Verdict> verdicts = new ArrayList<>();
        ServerMetricsScraper scraper = settings.metrics() == null ? null
                : new ServerMetricsScraper(settings.metrics(), System::currentTimeMillis);
        try (ProbeRunner probes = new ProbeRunner(config(settings, MAX_CONNECTIONS));
             ProbeSession points = new ProbeSession(settings.endpoint(), settings.headers(), settings.model(),
                     settings.timeout(), MAX_CONNECTIONS, env, null)) {
            if (scraper != null) scraper.scrapeOnce();
            Target target = new Target(settings, probes, points, scraper, d -> Thread.sleep(d.toMillis()));
            for (Check check : ALL) {
                if (!selected.contains(check.id())) continue;
                Verdict v = check.load() && !settings.allowLoad()
                        ? Verdict.skip(check.id(), "a load check: run with --allow-load")
                        : judged(check, target);
                verdicts.add(v);
                each.accept(v);
            }
            String metrics = scraper == null ? "off" : scraper.unavailable() != null ? scraper.unavailable()
                    : scraper.shownUrl() + " (" + scraper.series().engine() + ")";
            return new CheckReport(settings, verdicts, metrics);
        } finally {
            if (scraper != null) scraper.close();
        }
    }

    /** The check's verdict; a FAIL naming the server's answer when its session's connection test failed. */
    private static Verdict judged(Check check, Target target) throws InterruptedException {
        try {
            return check.run(target);
        } catch (BadInputException e) { // the engine's connection test before the session's first point
            return Verdict.fail(check.id(), ConnectionTest.forPage(e.getMessage())); // check has no --no-test-connection
        }
    }

    /**
     * Why nothing can be judged (the server cannot be reached, or refuses the key), or null: one non-streamed
     * one-token request through the engine's probe path.
     */
    public static String unreachable(CheckSettings s) {
        try (ProbeRunner probes = new ProbeRunner(config(s, 2))) {
            Ask hi = Ask.of(s.model(), "Hi", 1).notStreamed();
            ClientResult r = probes.send(hi.prompt(), hi.params()).result();
            if (r.httpStatus() == 0) return "cannot reach " + s.endpoint() + ": " + r.errorClass() + " " + r.errorMessage();
            if (r.httpStatus() == 401 || r.httpStatus() == 403) {
                return s.endpoint() + " answers HTTP " + r.httpStatus() + ": check the key (--api-key-env)";
            }
            if (r.httpStatus() == 404 && !String.valueOf(r.errorMessage()).toLowerCase().contains("model")) {
                return s.endpoint() + " answers HTTP 404: not a chat completions endpoint";
            }
            return null;
        }
    }

    private static ClientConfig config(CheckSettings s, int connections) {
        return new ClientConfig(s.endpoint(), s.headers(), Duration.ofSeconds(10), s.timeout(), s.timeout(),
                connections, false);
    }
}
