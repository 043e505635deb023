package io.unibench.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.unibench.BadInputException;
import io.unibench.Secrets;
import io.unibench.scenario.LocatedYaml;
import io.unibench.scenario.ScenarioFile;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A schedule's scenario document: checked as {@code unibench run --config} checks it (schema, located errors, the
 * API keys' variables) plus its {@code alerts:}/{@code notify:} sections and their variables. A schedule stores
 * the document itself, so a header whose name looks secret ({@code x-api-key}, …) with a literal value is refused:
 * it would be stored in clear; keys belong in {@code api_key_env}.
 */
public final class ScheduleDocument {
    private ScheduleDocument() {}

    /** Bad input (one located line) unless the document can be scheduled in this environment. */
    public static AlertsDocument check(String fileName, String text, Map<String, String> env) {
        ScenarioFile.parse(fileName, text, env);
        refuseSecrets(fileName, text);
        AlertsDocument alerts = AlertsDocument.parse(fileName, text);
        alerts.requireEnvironment(env, fileName);
        return alerts;
    }

    /** The document's rules and channels plus the schedule's own rules (stored JSON, already checked). */
    public static AlertsDocument alerts(Schedule s, Map<String, String> extraRules) {
        AlertsDocument doc = AlertsDocument.parse(s.documentName(), s.document());
        List<AlertRule> rules = new ArrayList<>(doc.rules());
        for (var e : extraRules.entrySet()) {
            if (rules.stream().anyMatch(r -> r.name().equals(e.getKey()))) {
                throw new BadInputException("schedule " + s.name() + ": rule '" + e.getKey() + "' is both in the "
                        + "document and added to the schedule");
            }
            rules.add(AlertsDocument.parseRule(e.getValue(), doc.channels()));
        }
        return new AlertsDocument(rules, doc.channels());
    }

    /**
     * One rule added to a schedule (its {@code alerts:} entry as JSON): checked as part of the schedule's document,
     * so the schema's messages apply; returns the rule.
     */
    public static AlertRule checkRule(Schedule s, String json, Map<String, String> env) {
        JsonNode rule = json.isBlank() ? null : LocatedYaml.parse("rule", json).root();
        if (rule == null || !rule.isObject()) throw new BadInputException("rule: must be a JSON object (an alerts: entry)");
        ObjectNode doc = (ObjectNode) LocatedYaml.parse(s.documentName(), s.document()).root().deepCopy();
        ArrayNode list = doc.withArray("alerts");
        if (rule.hasNonNull("name")) {
            for (JsonNode r : list) {
                if (r.path("name").asText().equals(rule.get("name").asText())) {
                    throw new BadInputException("rule '" + rule.get("name").asText() + "': the document already has it");
                }
            }
        }
        list.add(rule);
        String text;
        try {
            text = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(doc);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        AlertsDocument alerts = check("rule", text, env);
        return alerts.rules().getLast();
    }

    /**
     * A schedule stores its document, so no credential may be in it: a header whose name looks secret, or a
     * base_url's user info ({@code http://user:pw@host/v1}, which {@code run --config} sends as Basic
     * authorization and masks everywhere, but a schedule would keep in clear to send it at every round).
     */
    private static void refuseSecrets(String fileName, String text) {
        LocatedYaml yaml = LocatedYaml.parse(fileName, text);
        JsonNode root = yaml.root();
        List<JsonNode> providers = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        if (root.has("provider")) {
            providers.add(root.get("provider"));
            paths.add("provider");
        }
        for (int i = 0; i < root.path("providers").size(); i++) {
            providers.add(root.get("providers").get(i));
            paths.add("providers[" + i + "]");
        }
        for (int i = 0; i < providers.size(); i++) {
            JsonNode p = providers.get(i);
            String url = p.path("base_url").asText("");
            if (!Secrets.maskUserInfo(url).equals(url)) {
                throw yaml.error(paths.get(i) + ".base_url", "credentials in the URL (user info) are refused: a schedule stores "
                        + "its document; name the key's variable with api_key_env instead");
            }
            var names = p.path("headers").fieldNames();
            while (names.hasNext()) {
                String h = names.next();
                if (Secrets.isSecretHeader(h, p.path("headers").path(h).asText(null))) {
                    throw new BadInputException(fileName + ": provider " + p.path("name").asText() + ": header " + h
                            + " looks secret and a schedule stores its document: name the key's variable with "
                            + "api_key_env instead");
                }
            }
        }
    }
}
