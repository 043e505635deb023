package io.unibench.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.LevelName;
import io.unibench.store.RunStore;
import io.unibench.store.StoredPoint;
import io.unibench.store.StoredRun;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A round's stored runs by target: each run of {@code unibench run} is one provider's (its environment names the
 * provider, its row the model) and each of its points one scenario at one level, labelled
 * {@code PROVIDER/SCENARIO/LEVEL} ({@code parallel_N}, {@code rate_R}, {@code trace}, an SLA probe's
 * {@code sla_tuning/sla_VAR_VAL_run_I}): the target is keyed by that level, so the rate levels of a scenario (all
 * at concurrency −1) are targets of their own. Read from the store only, so every evaluation of a round sees the same.
 */
record RoundTargets(Map<Target, Found> points) {
    /** A target's point in the round, with its run and the provider's price (null when unpriced). */
    record Found(String runId, StoredPoint point, JsonNode price) {}

    static RoundTargets read(RunStore runs, List<String> runIds) throws SQLException {
        Map<Target, Found> out = new LinkedHashMap<>();
        for (String id : runIds) {
            StoredRun run = runs.run(id);
            String name = run.row().name() == null ? "" : run.row().name();
            String provider = run.environment() != null && run.environment().hasNonNull("provider")
                    ? run.environment().get("provider").asText() : name.substring(name.lastIndexOf('/') + 1);
            JsonNode price = price(run.config(), provider);
            for (StoredPoint p : run.points()) {
                out.put(new Target(provider, run.row().model(), scenario(p.label(), provider), LevelName.of(p.label())),
                        new Found(id, p, price));
            }
        }
        return new RoundTargets(out);
    }

    /** {@code PROVIDER/SCENARIO/LEVEL} → SCENARIO (scenario names may contain slashes; a probe's sla_tuning/ dropped). */
    static String scenario(String label, String provider) {
        String s = label.startsWith(provider + "/") ? label.substring(provider.length() + 1) : label;
        int cut = s.lastIndexOf('/');
        return cut >= 0 ? s.substring(0, cut).replaceFirst("/sla_tuning$", "") : s;
    }

    private static JsonNode price(JsonNode config, String provider) {
        if (config == null) return null;
        if (config.path("provider").path("name").asText("").equals(provider)) return config.path("provider").get("price");
        for (JsonNode p : config.path("providers")) {
            if (p.path("name").asText("").equals(provider)) return p.get("price");
        }
        return null;
    }
}
