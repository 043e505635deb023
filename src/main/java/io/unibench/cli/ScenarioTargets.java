package io.unibench.cli;

import io.unibench.scenario.BenchConfig;
import io.unibench.sim.SimConfig;
import io.unibench.sim.SimServer;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a scenario's providers are: an embedded simulator started on a free loopback port for each
 * {@code base_url: sim} (with the provider's latency profile), the full chat-completions URL of the others.
 * Closing stops the simulators. Shared by {@code unibench run} and the service's runs.
 */
final class ScenarioTargets implements AutoCloseable {
    private final Map<String, String> endpoints = new LinkedHashMap<>();
    private final List<SimServer> sims = new ArrayList<>();

    static ScenarioTargets start(BenchConfig bench, PrintWriter err) {
        ScenarioTargets t = new ScenarioTargets();
        try {
            for (BenchConfig.Provider p : bench.providers()) {
                if (p.embeddedSimulator()) {
                    BenchConfig.SimProfile prof = p.simulator();
                    SimServer sim = SimServer.start(SimConfig.defaults().withModel(p.model()).withTtftMs(prof.ttftMs())
                            .withItlMs(prof.itlMs()).withPrefillMsPerToken(prof.prefillMsPerToken()));
                    t.sims.add(sim);
                    t.endpoints.put(p.name(), sim.baseUrl() + "/v1/chat/completions");
                    err.println("Provider " + p.name() + ": embedded simulator at " + sim.baseUrl()
                            + " (ttft " + prof.ttftMs() + " ms, itl " + prof.itlMs() + " ms)");
                } else {
                    t.endpoints.put(p.name(), PerfSettings.completeUrl(p.baseUrl()));
                }
            }
            return t;
        } catch (RuntimeException e) {
            t.close();
            throw e;
        }
    }

    /**
     * Provider name → full chat-completions URL, nothing started: an embedded simulator's provider has none yet
     * ({@code run --dry-run}).
     */
    static Map<String, String> described(BenchConfig bench) {
        Map<String, String> m = new LinkedHashMap<>();
        for (BenchConfig.Provider p : bench.providers()) {
            if (!p.embeddedSimulator()) m.put(p.name(), PerfSettings.completeUrl(p.baseUrl()));
        }
        return m;
    }

    /** Provider name → full chat-completions URL. */
    Map<String, String> endpoints() {
        return endpoints;
    }

    @Override
    public void close() {
        for (SimServer s : sims) s.close();
    }
}
