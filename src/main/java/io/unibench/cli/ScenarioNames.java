package io.unibench.cli;

import io.unibench.engine.SpecPoints;
import io.unibench.report.scenario.KneeFinder;
import io.unibench.report.scenario.ScenarioResults;
import io.unibench.scenario.BenchConfig;
import io.unibench.scenario.LoadsText;

import java.util.List;
import java.util.Locale;

/**
 * A scenario file's run named in the file's terms for its reports ({@code report.scenario}): each of the engine's
 * series (target × workload) as its provider × scenario, its knee by the file's {@code knee} rule, and the file's
 * facts the reports show. The reports read these plain values, never the scenario file.
 */
final class ScenarioNames {
    private ScenarioNames() {}

    /** What {@code ran} measured, in {@code config}'s terms. */
    static ScenarioResults results(BenchConfig config, ScenarioSession.Ran ran) {
        return results(config, ran.series(), ran.stopped());
    }

    static ScenarioResults results(BenchConfig config, List<SpecPoints.Series> ran, boolean stopped) {
        KneeFinder.Rule knee = new KneeFinder.Rule(config.knee().minGainPercent(), config.knee().latencyP95Ms());
        List<ScenarioResults.Series> series = ran.stream().map(s -> ScenarioResults.Series.of(
                provider(config.providers().get(s.target())), scenario(config.scenarios().get(s.workload())),
                s.levels().stream().map(l -> new ScenarioResults.Level(l.concurrency(), l.result(), l.tokens(),
                        l.starts(), l.name())).toList(), s.overall(), s.tokens(), knee)).toList();
        return new ScenarioResults(config(config), series, stopped);
    }

    static ScenarioResults.Config config(BenchConfig c) {
        BenchConfig.Loads loads = c.loads();
        return new ScenarioResults.Config(c.name(), c.file(), c.concurrency().levels(), c.concurrency().holdSeconds(),
                loads.requestRate() == null ? null : loads.requestRate().levels(),
                loads.sla() == null ? null : loads.sla().variable(), LoadsText.lines(c), c.rateLimitPerSec(),
                c.rateLimitRampOnly(), c.connectionPool(), c.scenarios().stream().map(BenchConfig.Scenario::name).toList());
    }

    static ScenarioResults.Provider provider(BenchConfig.Provider p) {
        return new ScenarioResults.Provider(p.name(), p.model(), p.price());
    }

    static ScenarioResults.Scenario scenario(BenchConfig.Scenario s) {
        return new ScenarioResults.Scenario(s.name(), s.type().name().toLowerCase(Locale.ROOT), s.stream(), s.cacheBust());
    }
}
