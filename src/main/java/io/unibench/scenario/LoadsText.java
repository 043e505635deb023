package io.unibench.scenario;

import io.unibench.engine.sla.SlaParams;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a scenario file's levels will run, as {@code run --config F --check} prints it: the concurrency levels, the
 * request-rate levels (rates, arrival shape, bound in flight, requests per level), the SLA search (variable, bounds,
 * criteria, runs per probe) and each trace scenario's replay (file, requests, speed-up). One line each.
 */
public final class LoadsText {
    private LoadsText() {}

    public static List<String> lines(BenchConfig config) {
        BenchConfig.Loads loads = config.loads();
        List<String> out = new ArrayList<>();
        List<BenchConfig.Scenario> levelled = new ArrayList<>();
        for (BenchConfig.Scenario s : config.scenarios()) {
            BenchConfig.TraceReplay trace = loads.traces().get(s.name());
            if (trace != null) out.add(trace(s, trace));
            else levelled.add(s);
        }
        if (!levelled.isEmpty()) {
            String line = loads.sla() != null ? sla(loads.sla())
                    : loads.requestRate() != null ? rate(loads.requestRate(), config, levelled)
                    : "levels " + config.concurrency().levels();
            out.addFirst(line);
        }
        return out;
    }

    private static String rate(BenchConfig.RequestRate rr, BenchConfig config, List<BenchConfig.Scenario> scenarios) {
        StringBuilder sb = new StringBuilder();
        if (rr.ramp() != null) {
            sb.append("request rate ramp ").append(rr.ramp().strategy()).append(' ')
                    .append(LoadsSection.plain(rr.ramp().startRps())).append(" → ")
                    .append(LoadsSection.plain(rr.ramp().endRps())).append(" req/s (one level)");
        } else {
            sb.append("request rate levels ").append(rr.levels().stream().map(LoadsSection::plain).toList())
                    .append(" req/s (open loop)");
        }
        double b = rr.burstiness() == null ? 1 : rr.burstiness();
        sb.append(", burstiness ").append(LoadsSection.plain(b)).append(b == 1 ? " (Poisson)" : " (gamma gaps)");
        sb.append(rr.maxConcurrency() == null ? ", no bound in flight"
                : ", at most " + rr.maxConcurrency() + " in flight");
        sb.append(", ").append(perLevel(config, scenarios)).append(" requests per level");
        return sb.toString();
    }

    /** {@code 60}, or {@code short_qa 60, long 20} when the scenarios' rounds differ. */
    private static String perLevel(BenchConfig config, List<BenchConfig.Scenario> scenarios) {
        List<Integer> counts = scenarios.stream()
                .map(s -> ScenarioSpec.perLevel(config.concurrency(), config.loads(), s)).toList();
        if (counts.stream().distinct().count() == 1) return Integer.toString(counts.getFirst());
        List<String> each = new ArrayList<>();
        for (int i = 0; i < scenarios.size(); i++) each.add(scenarios.get(i).name() + " " + counts.get(i));
        return String.join(", ", each);
    }

    private static String sla(BenchConfig.SlaTune t) {
        List<String> groups = t.params().groups().stream().map(SlaParams::describe).toList();
        return "SLA auto-tune of " + (t.tunesRate() ? "rate (req/s, at most " + t.fixedParallel() + " in flight)"
                : "parallel (concurrency)") + " in [" + t.lowerBound() + ", " + t.upperBound() + "], criteria "
                + String.join("; ", groups) + ", " + t.numRuns() + " run(s) per probe of max(1, round(value × "
                + LoadsSection.plain(t.numberMultiplier()) + ")) requests; the probes are chosen by the search";
    }

    private static String trace(BenchConfig.Scenario s, BenchConfig.TraceReplay t) {
        double span = t.offsetsNanos()[t.count() - 1] / 1e9;
        return String.format(Locale.ROOT, "scenario %s: trace replay of %s, %d requests at their timestamps / %s "
                        + "(%.1f s, mean %.2f req/s)", s.name(), s.datasetPath(), t.count(),
                LoadsSection.plain(t.speedup()), span, t.rate());
    }
}
