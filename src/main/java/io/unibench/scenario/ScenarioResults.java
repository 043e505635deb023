package io.unibench.scenario;

import io.unibench.metrics.RunResult;
import io.unibench.scenario.BenchConfig.Provider;
import io.unibench.scenario.BenchConfig.Scenario;

import java.util.List;

/** What {@code unibench run} measured: one series of levels per provider × scenario. */
public record ScenarioResults(BenchConfig config, List<Series> series, boolean stopped) {

    public ScenarioResults {
        series = List.copyOf(series);
    }

    /** One concurrency level of a series. */
    public record Level(int concurrency, RunResult result, CostMeter.Totals tokens) {}

    /**
     * @param overall every request of the series (all levels), for the comparison's percentiles
     * @param knee    where throughput stopped growing or latency passed the bound; {@code null} when not reached
     */
    public record Series(Provider provider, Scenario scenario, List<Level> levels, RunResult overall,
                         CostMeter.Totals tokens, KneeFinder.Knee knee) {
        public Series {
            levels = List.copyOf(levels);
        }

        /** Highest output tok/s over the levels (the provider's capacity in this scenario); NaN when none. */
        public double peakOutputThroughput() {
            return levels.stream().mapToDouble(l -> l.result().summary().outputThroughput())
                    .filter(v -> v >= 0).max().orElse(Double.NaN);
        }

        public double peakRps() {
            return levels.stream().mapToDouble(l -> l.result().summary().reqThroughput())
                    .filter(v -> v >= 0).max().orElse(Double.NaN);
        }
    }

    public List<Series> forScenario(String scenario) {
        return series.stream().filter(s -> s.scenario().name().equals(scenario)).toList();
    }
}
