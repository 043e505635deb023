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

    /** The tool an imported run came from ({@code source_tool}), or null for ours. */
    public String sourceTool() {
        return environment != null && environment.path("source_tool").isTextual()
                ? environment.path("source_tool").asText() : null;
    }

    /** {@link RunRow#label(String)} with what this run knows: its URL, or the tool it was imported from. */
    public String label() {
        return row.label(sourceTool());
    }

    /** {@link RunRow#target(String)}: {@code model @ url}, or the tool an imported run without a URL came from. */
    public String target() {
        return row.target(sourceTool());
    }
}
