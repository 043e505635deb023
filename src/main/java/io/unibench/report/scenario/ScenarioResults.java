package io.unibench.report.scenario;

import io.unibench.metrics.CostMeter;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.StartWaits;
import io.unibench.metrics.TokenPrice;

import java.util.List;

/**
 * What {@code unibench run} measured, in the scenario file's terms: one series of levels per provider × scenario, each
 * with its knee. Plain values: the front end names the engine's series with the file's names and facts
 * ({@code cli.ScenarioNames}); this package reads no scenario file.
 */
public record ScenarioResults(Config config, List<Series> series, boolean stopped) {

    public ScenarioResults {
        series = List.copyOf(series);
    }

    /**
     * The file's facts the reports show.
     *
     * @param levels            the concurrency levels
     * @param holdSeconds       how long each concurrency level is held; null = by count
     * @param requestRates      {@code request_rate}'s levels (req/s); null = none
     * @param slaVariable       what {@code sla_auto_tune} searches ({@code parallel}, {@code rate}); null = no search
     * @param load              what the levels ran, one line each ({@code run --config --check}'s lines)
     * @param rateLimitRampOnly no {@code rate_limit} in the file: only each level's ramp is paced
     * @param scenarios         the scenarios' names in the file's order
     */
    public record Config(String name, String file, List<Integer> levels, Double holdSeconds, List<Double> requestRates,
                         String slaVariable, List<String> load, double rateLimitPerSec, boolean rateLimitRampOnly,
                         int connectionPool, List<String> scenarios) {
        public Config {
            levels = List.copyOf(levels);
            requestRates = requestRates == null ? null : List.copyOf(requestRates);
            load = List.copyOf(load);
            scenarios = List.copyOf(scenarios);
        }
    }

    /** A provider: its name, model and prices ({@code null}: not priced). */
    public record Provider(String name, String model, TokenPrice price) {}

    /** A scenario: its name, type as the file writes it ({@code chat}, {@code multi_turn}, {@code mixed}), streaming. */
    public record Scenario(String name, String type, boolean stream, boolean cacheBust) {}

    /**
     * One level of a series; {@code starts} says what its request starts waited on the rate limiter; {@code name} is
     * its folder ({@code parallel_C}; {@code rate_R}, {@code ramp_…}, {@code trace} and SLA probes are open-loop or
     * searched levels, -1 concurrency when unbounded).
     */
    public record Level(int concurrency, RunResult result, CostMeter.Totals tokens, StartWaits starts, String name) {
        /** A closed-loop level. */
        public Level(int concurrency, RunResult result, CostMeter.Totals tokens, StartWaits starts) {
            this(concurrency, result, tokens, starts, "parallel_" + concurrency);
        }

        /** A closed-loop level whose starts never met the limiter. */
        public Level(int concurrency, RunResult result, CostMeter.Totals tokens) {
            this(concurrency, result, tokens, StartWaits.NONE);
        }

        /** A closed-loop level, the kind the provider comparison compares. */
        public boolean closedLoop() {
            return name.equals("parallel_" + concurrency);
        }
    }

    /**
     * @param overall every request of the series (all levels), for the comparison's percentiles
     * @param knee    where throughput stopped growing or latency passed the bound; {@code null} when not reached
     */
    public record Series(Provider provider, Scenario scenario, List<Level> levels, RunResult overall,
                         CostMeter.Totals tokens, KneeFinder.Knee knee) {
        public Series {
            levels = List.copyOf(levels);
        }

        /** A series whose knee is {@code rule}'s over its closed-loop levels. */
        public static Series of(Provider provider, Scenario scenario, List<Level> levels, RunResult overall,
                                CostMeter.Totals tokens, KneeFinder.Rule rule) {
            return new Series(provider, scenario, levels, overall, tokens,
                    KneeFinder.find(levels.stream().filter(Level::closedLoop).toList(), rule));
        }
    }

    public List<Series> forScenario(String scenario) {
        return series.stream().filter(s -> s.scenario().name().equals(scenario)).toList();
    }
}
