package io.unibench.web;

import io.unibench.store.RunRow;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The runs of one service run of several providers: the queued run holds the first provider's results and links the
 * other providers' runs (one stored run per provider, as {@code unibench run --config} stores them); each of those
 * names the queued run it is part of.
 *
 * @param partOf the queued run this one is part of, or null
 * @param linked the other providers' runs of this queued run, in the order they started (empty for the others)
 */
public record RunLinks(String partOf, List<RunRow> linked) {
    public RunLinks {
        linked = List.copyOf(linked);
    }

    /** {@code part_of} or {@code linked_runs: [{id, name, status, model, base_url}]}, or nothing, for the API. */
    Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (partOf != null) m.put("part_of", partOf);
        if (!linked.isEmpty()) {
            m.put("linked_runs", linked.stream().map(r -> {
                Map<String, Object> l = new LinkedHashMap<>();
                l.put("id", r.runId());
                l.put("name", r.name());
                l.put("status", r.status());
                l.put("model", r.model());
                l.put("base_url", r.url());
                return l;
            }).toList());
        }
        return m;
    }
}
