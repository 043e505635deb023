package io.unibench.engine.sla;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.unibench.BadInputException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code --sla-params}: a JSON object of criteria (one group), or a list of such objects (groups, each tuned on its
 * own: evalscope's "OR"). Within a group every criterion must hold. A single group of a single {@code max}/{@code min}
 * criterion asks for the value that optimizes that metric instead.
 *
 * @param groups the criterion groups, in the order given
 * @param notes  lines worth printing before the run (a bare TTFT/TPOT threshold that looks like milliseconds)
 */
public record SlaParams(List<List<SlaCriterion>> groups, List<String> notes) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public SlaParams {
        groups = groups.stream().map(List::copyOf).toList();
        notes = List.copyOf(notes);
    }

    public static SlaParams parse(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (Exception e) {
            throw new BadInputException("--sla-params: not valid JSON: " + json);
        }
        if (root == null || !(root.isObject() || root.isArray())) {
            throw new BadInputException("--sla-params: expected a JSON object of criteria or a list of them");
        }
        List<JsonNode> records = new ArrayList<>();
        if (root.isArray()) root.forEach(records::add);
        else records.add(root);
        if (records.isEmpty()) throw new BadInputException("--sla-params: the list has no criterion group");
        List<List<SlaCriterion>> groups = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (JsonNode record : records) {
            if (!record.isObject() || record.isEmpty()) {
                throw new BadInputException("--sla-params: every group must be a non-empty object, got " + record);
            }
            List<SlaCriterion> group = new ArrayList<>();
            for (Map.Entry<String, JsonNode> e : record.properties()) {
                SlaMetric metric = SlaMetric.byKey(e.getKey());
                if (metric == null) {
                    throw new BadInputException("--sla-params: unknown metric '" + e.getKey() + "'; known: " + SlaMetric.keys());
                }
                if (!e.getValue().isTextual()) {
                    throw new BadInputException("--sla-params " + e.getKey() + ": expected a string such as \"<=2\", got "
                            + e.getValue());
                }
                String text = e.getValue().asText();
                group.add(SlaCriterion.parse(metric, text));
                if (SlaCriterion.bareLooksLikeMillis(metric, text)) {
                    notes.add("Note: --sla-params " + e.getKey() + " '" + text + "' is read as " + text.replaceAll("[<>=≤≥ ]", "")
                            + " seconds (the one unit of bare times); write '" + text.strip() + "ms' for milliseconds.");
                }
            }
            groups.add(group);
        }
        boolean optimizing = groups.stream().flatMap(List::stream).anyMatch(c -> c.op().optimizes());
        if (optimizing && (groups.size() != 1 || groups.get(0).size() != 1)) {
            throw new BadInputException("--sla-params: max/min needs exactly one group of one metric");
        }
        return new SlaParams(groups, notes);
    }

    /** The single max/min criterion, or null for constraint groups. */
    public SlaCriterion optimization() {
        SlaCriterion only = groups.size() == 1 && groups.get(0).size() == 1 ? groups.get(0).get(0) : null;
        return only != null && only.op().optimizes() ? only : null;
    }

    /** A group as the summary table names it: {@code p99_latency <= 2 s AND avg_ttft <= 500 ms}. */
    public static String describe(List<SlaCriterion> group) {
        return String.join(" AND ", group.stream().map(SlaCriterion::describe).toList());
    }
}
