package io.unibench.scenario;

import io.unibench.metrics.CostMeter;
import io.unibench.metrics.RunResult;
import io.unibench.metrics.StartWaits;
import io.unibench.scenario.BenchConfig.Provider;
import io.unibench.scenario.BenchConfig.Scenario;

import java.util.List;

/** What {@code unibench run} measured: one series of levels per provider × scenario. */
public record ScenarioResults(BenchConfig config, List<Series> series, boolean stopped) {

    public ScenarioResults {
        series = List.copyOf(series);
    }

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
    }

    public List<Series> forScenario(String scenario) {
        return series.stream().filter(s -> s.scenario().name().equals(scenario)).toList();
    }
}
