package io.unibench.store;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;

/**
 * What is known about a run when it starts.
 *
 * @param name        {@code --name}, or null
 * @param tags        {@code --tag} values
 * @param model       model name sent to the target
 * @param url         the target's endpoint URL
 * @param config      the full configuration, secrets already masked ({@code benchmark_args.json} of the run)
 * @param environment tool, machine and target facts (see {@link RunEnvironment})
 * @param parentRunId the service run this one belongs to (a provider after the first of a service run), or null
 */
public record RunStart(String name, List<String> tags, String model, String url, JsonNode config,
                       Map<String, Object> environment, String parentRunId) {
    public RunStart {
        tags = List.copyOf(tags);
        environment = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(environment));
    }

    public RunStart(String name, List<String> tags, String model, String url, JsonNode config,
                    Map<String, Object> environment) {
        this(name, tags, model, url, config, environment, null);
    }

    /** The same start, as one provider of the service run {@code parent}. */
    public RunStart under(String parent) {
        return new RunStart(name, tags, model, url, config, environment, parent);
    }
}
