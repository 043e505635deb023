package io.unibench.schedule;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one notification says, whatever the channel: the rule, the target, the value against the threshold, the last
 * rounds' values, how long it has been firing, and a link to the run when the service's public URL is known.
 * Stored as JSON in the outbox; each channel renders it ({@link Payloads}).
 *
 * @param kind       {@code fired}, {@code reminder}, {@code resolved}, {@code no_data} or {@code data_back}
 * @param lastValues the rule's values for the target in the last rounds, oldest first (null = no data)
 * @param since      when the incident opened (epoch ms)
 * @param rounds     rounds since it opened, this one included
 * @param runUrl     the run in the service ({@code PUBLIC_URL/runs/ID}), or null
 */
public record Notice(String kind, String schedule, String rule, String condition, String unit, Target target,
                     Double value, Double threshold, Double worst, List<Double> lastValues, long since, long at,
                     int rounds, String roundId, String runId, String runUrl) {
    public Notice {
        lastValues = java.util.Collections.unmodifiableList(new ArrayList<>(lastValues));
    }

    /** {@code [FIRING] slow-first-token · deepseek (deepseek-chat) · chat · concurrency 8}. */
    public String title() {
        String state = switch (kind) {
            case "fired" -> "FIRING";
            case "reminder" -> "STILL FIRING";
            case "resolved" -> "RESOLVED";
            case "no_data" -> "NO DATA";
            default -> "DATA BACK";
        };
        return "[" + state + "] " + rule + " · " + target.display();
    }

    /** Severity colour: red while firing, orange without data, green when resolved. */
    public String colour() {
        return switch (kind) {
            case "fired", "reminder" -> "red";
            case "no_data" -> "orange";
            default -> "green";
        };
    }

    /** The body: one fact a line, the same in every channel ({@code bold} marks the labels where it renders). */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add("Schedule: " + schedule);
        out.add("Rule: " + rule + " (" + condition + ")");
        out.add("Target: " + target.display());
        switch (kind) {
            case "no_data" -> out.add("No value for " + rounds + " round(s) in a row (round failed, point missing or "
                    + "too few successful requests)");
            case "data_back" -> out.add("Value: " + withUnit(value) + " (values are back after " + rounds + " round(s))");
            case "resolved" -> {
                out.add("Value: " + withUnit(value) + (threshold != null ? " (threshold " + withUnit(threshold) + ")" : ""));
                out.add("Fired " + Times.utc(since) + ", lasted " + Durations.format(java.time.Duration.ofMillis(
                        Math.max(0, at - since) / 60_000 * 60_000)) + " (" + rounds + " rounds); worst " + withUnit(worst));
            }
            default -> {
                out.add("Value: " + withUnit(value) + (threshold != null ? " (threshold " + withUnit(threshold) + ")" : ""));
                if (kind.equals("reminder")) out.add("Firing since " + Times.utc(since) + " (" + rounds + " rounds); worst "
                        + withUnit(worst));
            }
        }
        if (!lastValues.isEmpty()) {
            List<String> v = new ArrayList<>();
            for (Double d : lastValues) v.add(Numbers.format(d));
            out.add("Last rounds: " + String.join(", ", v) + " " + unit + " (oldest first)");
        }
        if (runUrl != null) out.add("Run: " + runUrl);
        else if (runId != null) out.add("Run: " + runId);
        return out;
    }

    private String withUnit(Double v) {
        return v == null ? "no data" : Numbers.format(v) + (unit.equals("%") ? "%" : " " + unit);
    }

    public String text() {
        return title() + "\n" + String.join("\n", lines());
    }

    @Override
    public String toString() {
        return kind.toUpperCase(Locale.ROOT) + " " + rule + " " + target.key();
    }
}
