package io.unibench.web;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.scenario.ScenarioProblems;
import io.unibench.schedule.Metric;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The schedule page's alert-rule editor. Its fields become the rule's {@code alerts:} entry as JSON, exactly what
 * {@code POST /api/schedules/{name}/rules} takes, so the same code checks it ({@code ScheduleDocument.checkRule})
 * and it is stored as the API stores it. Values go into the JSON as typed (a number when it reads as one, else
 * the text), so a wrong value gets the schema's own message; a refusal is shown beside the field it names.
 */
public final class RuleEditor {
    /** The inputs that are text, by the alerts: entry's key. */
    static final List<String> TEXT = List.of("name", "metric", "error_class", "provider", "scenario", "op");
    /** The inputs that are numbers; {@code regression_rounds} is the entry's {@code regression.rounds}. */
    static final List<String> NUMBERS = List.of("threshold", "regression_rounds", "regression_percent", "level",
            "for_rounds", "resolve_after_rounds", "remind_every_rounds", "no_data_rounds", "min_successes");
    static final List<String> OPS = List.of(">", ">=", "<", "<=");
    private static final Pattern INTEGER = Pattern.compile("-?\\d{1,15}");
    private static final Pattern DECIMAL = Pattern.compile("-?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?");
    /** Where a located message points inside the rule: {@code alerts[1].regression.rounds: …}. */
    private static final Pattern LOCATED = Pattern.compile("alerts\\[\\d+\\]((?:\\.[a-z_]+)*)(?:\\[\\d+\\])?: ");

    private RuleEditor() {}

    /**
     * What the editor shows.
     *
     * @param values   the typed values by input name ({@code form}: threshold or regression)
     * @param ticked   the channels ticked
     * @param errors   input name → message; {@code ""}: the rule as a whole
     * @param channels the names of the document's {@code notify:} channels
     */
    public record Model(Map<String, String> values, List<String> ticked, Map<String, String> errors,
                        List<String> channels) {
        public String value(String input) {
            return values.getOrDefault(input, "");
        }

        public String error(String input) {
            return errors.get(input);
        }

        public boolean regression() {
            return "regression".equals(values.get("form"));
        }

        public List<String> metrics() {
            return Metric.names();
        }

        public List<String> ops() {
            return OPS;
        }
    }

    static Model blank(List<String> channels) {
        return new Model(Map.of("metric", "ttft_p95_ms", "op", ">", "form", "threshold", "for_rounds", "2",
                "resolve_after_rounds", "1"), List.of(), Map.of(), channels);
    }

    /** The alerts: entry of the form: the chosen form's fields always (blank ones refused by the schema), the rest when given. */
    static String json(Map<String, String> values, List<String> notify) {
        ObjectNode rule = WebServer.JSON.createObjectNode();
        boolean regression = "regression".equals(values.get("form"));
        for (String k : TEXT) {
            String v = values.getOrDefault(k, "").strip();
            if (!v.isEmpty() || k.equals("name")) rule.put(k, v);
        }
        for (String k : NUMBERS) {
            String v = values.getOrDefault(k, "").strip();
            boolean chosen = regression ? k.startsWith("regression_") : k.equals("threshold");
            boolean otherForm = regression ? k.equals("threshold") : k.startsWith("regression_");
            if (otherForm || (v.isEmpty() && !chosen)) continue;
            ObjectNode into = !k.startsWith("regression_") ? rule
                    : rule.has("regression") ? (ObjectNode) rule.get("regression") : rule.putObject("regression");
            String key = k.startsWith("regression_") ? k.substring("regression_".length()) : k;
            if (INTEGER.matcher(v).matches()) into.put(key, Long.parseLong(v));
            else if (DECIMAL.matcher(v).matches()) into.put(key, Double.parseDouble(v));
            else into.put(key, v);
        }
        if (!notify.isEmpty()) notify.forEach(rule.putArray("notify")::add);
        return rule.toString();
    }

    /** Input name → message of a refusal ({@code ""} when it names no input). */
    static Map<String, String> errors(BadInputException e) {
        Map<String, String> out = new LinkedHashMap<>();
        if (e instanceof ScenarioProblems p) {
            for (ScenarioProblems.Problem x : p.problems()) out.putIfAbsent(input(x.path() + ": "), x.message());
            return out;
        }
        String m = e.getMessage();
        Matcher at = LOCATED.matcher(m);
        if (at.find()) out.put(input(at.group()), m.substring(at.end()));
        else if (m.matches("rule '.*': the document already has it")) out.put("name", m);
        else if (m.contains("notify channel '")) out.put("notify", m.substring(m.indexOf("notify channel '")));
        else out.put("", m);
        return out;
    }

    /** {@code alerts[1].regression.rounds: } → {@code regression_rounds}; {@code alerts[1].notify[0]: } → notify. */
    private static String input(String located) {
        Matcher at = LOCATED.matcher(located);
        if (!at.lookingAt()) return "";
        String path = at.group(1);
        String input = path.isEmpty() ? "" : path.substring(1).replace('.', '_');
        return TEXT.contains(input) || NUMBERS.contains(input) || input.equals("notify") ? input : "";
    }
}
