package io.unibench.check;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.unibench.Secrets;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The verdicts of one {@code unibench check}, as JSON or Markdown ({@code --report}). The target URL is shown with
 * its credentials masked; headers are never shown.
 *
 * @param metrics where the server's metrics came from, or why there were none
 */
public record CheckReport(CheckSettings settings, List<Verdict> verdicts, String metrics) {
    public CheckReport {
        verdicts = List.copyOf(verdicts);
    }

    public boolean failed() {
        return verdicts.stream().anyMatch(v -> v.status() == Verdict.Status.FAIL);
    }

    public long count(Verdict.Status status) {
        return verdicts.stream().filter(v -> v.status() == status).count();
    }

    /** {@code 9 passed, 1 failed, 2 skipped} and, when there are any, {@code , 1 warned}. */
    public String totals() {
        long warned = count(Verdict.Status.WARN);
        return count(Verdict.Status.PASS) + " passed, " + count(Verdict.Status.FAIL) + " failed, "
                + count(Verdict.Status.SKIP) + " skipped" + (warned > 0 ? ", " + warned + " warned" : "");
    }

    public String json() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("target", Secrets.redact(settings.endpoint().toString()));
        root.put("model", settings.model());
        root.put("server_metrics", Secrets.redact(metrics));
        root.put("allow_load", settings.allowLoad());
        root.put("passed", count(Verdict.Status.PASS));
        root.put("failed", count(Verdict.Status.FAIL));
        root.put("skipped", count(Verdict.Status.SKIP));
        root.put("warned", count(Verdict.Status.WARN));
        root.put("checks", verdicts.stream().map(v -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("check", v.check());
            m.put("status", v.status().name());
            m.put("evidence", Secrets.redact(v.evidence()));
            if (!v.probes().isEmpty()) {
                m.put("probes", v.probes().stream().map(p -> {
                    Map<String, Object> pm = new LinkedHashMap<>();
                    pm.put("probe", p.name());
                    pm.put("status", p.status().name());
                    pm.put("evidence", Secrets.redact(p.evidence()));
                    return pm;
                }).toList());
            }
            return m;
        }).toList());
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(root) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("maps of strings and numbers always serialise", e);
        }
    }

    public String markdown() {
        StringBuilder sb = new StringBuilder("# unibench check\n\n");
        sb.append("Target: `").append(Secrets.redact(settings.endpoint().toString())).append("`, model `")
                .append(settings.model()).append("`; server metrics: ").append(Secrets.redact(metrics)).append("\n\n");
        sb.append("| check | result | evidence |\n| --- | --- | --- |\n");
        for (Verdict v : verdicts) {
            StringBuilder evidence = new StringBuilder(v.evidence());
            for (Verdict.Probe p : v.probes()) {
                evidence.append("<br>").append(p.status()).append(" ").append(p.name()).append(": ").append(p.evidence());
            }
            sb.append("| ").append(v.check()).append(" | ").append(v.status()).append(" | ")
                    .append(Secrets.redact(evidence.toString()).replace("|", "\\|").replace("\n", " ")).append(" |\n");
        }
        return sb.append("\n").append(totals()).append(".\n").toString();
    }
}
