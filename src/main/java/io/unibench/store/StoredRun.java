package io.unibench.store;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/** A stored run in full: its row, configuration (secrets masked), environment and sweep points. */
public record StoredRun(RunRow row, JsonNode config, JsonNode environment, List<StoredPoint> points) {
    public StoredRun {
        points = List.copyOf(points);
    }

    public String runId() {
        return row.runId();
    }
}
