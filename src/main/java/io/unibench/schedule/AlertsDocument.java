package io.unibench.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.BadInputException;
import io.unibench.scenario.LocatedYaml;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code alerts:} and {@code notify:} sections of a scenario document, read after the scenario file's JSON
 * Schema has passed (so types are right): the rules a schema cannot say (a rule has a threshold or a regression,
 * names are unique, every {@code notify} entry names a channel, {@code error_class} only with {@code error_rate}),
 * each error one line {@code FILE:LINE: key.path: problem}.
 */
public record AlertsDocument(List<AlertRule> rules, Map<String, Channel> channels) {
    public AlertsDocument {
        rules = List.copyOf(rules);
        channels = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(channels));
    }

    /** The sections of {@code text} (a whole scenario document). */
    public static AlertsDocument parse(String fileName, String text) {
        LocatedYaml yaml = LocatedYaml.parse(fileName, text);
        Map<String, Channel> channels = channels(yaml);
        List<AlertRule> rules = new ArrayList<>();
        Set<String> names = new HashSet<>();
        JsonNode list = yaml.root().path("alerts");
        for (int i = 0; i < list.size(); i++) {
            String path = "alerts[" + i + "]";
            AlertRule r = rule(yaml, list.get(i), path, channels);
            if (!names.add(r.name())) throw yaml.error(path + ".name", "duplicate alert name '" + r.name() + "'");
            rules.add(r);
        }
        return new AlertsDocument(rules, channels);
    }

    /**
     * One rule given outside a document (the UI/API's per-schedule rules): its {@code alerts:} entry as JSON,
     * checked against the channels of the schedule's document.
     */
    public static AlertRule parseRule(String json, Map<String, Channel> channels) {
        LocatedYaml yaml = LocatedYaml.parse("rule", json);
        if (!yaml.root().isObject()) throw yaml.error("", "must be an object (an alerts: entry)");
        return rule(yaml, yaml.root(), "", channels);
    }

    /** Every channel variable set in {@code env}, or bad input naming the first that is not. */
    public void requireEnvironment(Map<String, String> env, String what) {
        for (Channel c : channels.values()) {
            for (String var : new String[] {c.urlEnv(), c.secretEnv()}) {
                if (var != null && (env.get(var) == null || env.get(var).isBlank())) {
                    throw new BadInputException(what + ": notify channel '" + c.name() + "': environment variable "
                            + var + " is not set");
                }
            }
        }
    }

    private static Map<String, Channel> channels(LocatedYaml yaml) {
        Map<String, Channel> out = new LinkedHashMap<>();
        JsonNode list = yaml.root().path("notify");
        for (int i = 0; i < list.size(); i++) {
            JsonNode n = list.get(i);
            String path = "notify[" + i + "]";
            Channel.Type type = Channel.Type.of(n.get("type").asText());
            boolean feishu = type == Channel.Type.FEISHU || type == Channel.Type.LARK;
            if (n.has("format") && !feishu) throw yaml.error(path + ".format", "applies only to type feishu or lark");
            if (n.has("signature_header") && type != Channel.Type.WEBHOOK) {
                throw yaml.error(path + ".signature_header", "applies only to type webhook");
            }
            boolean signs = feishu || type == Channel.Type.DINGTALK || type == Channel.Type.WEBHOOK;
            if (n.has("secret_env") && !signs) {
                throw yaml.error(path + ".secret_env", type.id() + " webhooks are not signed (their URL is the secret)");
            }
            if (n.has("signature_header") && !n.has("secret_env")) {
                throw yaml.error(path + ".signature_header", "needs secret_env (the key of the signature)");
            }
            Channel c = new Channel(n.get("name").asText(), type, n.get("url_env").asText(), text(n, "secret_env"),
                    feishu ? n.path("format").asText("card") : null,
                    type == Channel.Type.WEBHOOK && n.has("secret_env")
                            ? n.path("signature_header").asText(Channel.DEFAULT_SIGNATURE_HEADER) : null,
                    n.path("language").asText("en"));
            if (out.put(c.name(), c) != null) throw yaml.error(path + ".name", "duplicate channel name '" + c.name() + "'");
        }
        return out;
    }

    private static AlertRule rule(LocatedYaml yaml, JsonNode n, String at, Map<String, Channel> channels) {
        String path = at.isEmpty() ? "" : at + ".";
        String metric = n.get("metric").asText();
        String errorClass = text(n, "error_class");
        if (errorClass != null && !metric.equals("error_rate")) {
            throw yaml.error(path + "error_class", "applies only to metric error_rate");
        }
        if (n.has("threshold") == n.has("regression")) {
            throw yaml.error(at, "give exactly one of threshold and regression");
        }
        List<String> notify = new ArrayList<>();
        JsonNode list = n.path("notify");
        for (int i = 0; i < list.size(); i++) {
            String name = list.get(i).asText();
            if (!channels.containsKey(name)) {
                throw yaml.error(path + "notify[" + i + "]", "no channel '" + name + "' in notify: (known: "
                        + (channels.isEmpty() ? "none" : String.join(", ", channels.keySet())) + ")");
            }
            notify.add(name);
        }
        JsonNode reg = n.get("regression");
        AlertRule.Regression regression = reg == null ? null
                : new AlertRule.Regression(reg.get("rounds").asInt(), reg.get("percent").asDouble());
        AlertRule.Scope scope = new AlertRule.Scope(text(n, "provider"), text(n, "scenario"),
                level(n.get("level")));
        return new AlertRule(n.get("name").asText(), new Metric(metric, errorClass), scope,
                AlertRule.Op.of(n.get("op").asText()), n.has("threshold") ? n.get("threshold").asDouble() : null,
                regression, n.path("for_rounds").asInt(AlertRule.DEFAULT_FOR_ROUNDS),
                n.path("resolve_after_rounds").asInt(1), n.path("remind_every_rounds").asInt(0),
                n.path("no_data_rounds").asInt(0), n.path("min_successes").asInt(1), notify);
    }

    /** {@code level: 8} (a concurrency level, as before levels had names) or the level's name: {@code rate_10}. */
    private static String level(JsonNode level) {
        if (level == null || level.isNull()) return null;
        return level.isIntegralNumber() ? "parallel_" + level.asInt() : level.asText();
    }

    private static String text(JsonNode n, String key) {
        return n.has(key) && !n.get(key).isNull() ? n.get(key).asText() : null;
    }
}
