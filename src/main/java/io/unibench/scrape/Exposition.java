package io.unibench.scrape;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scrape of a Prometheus endpoint, parsed: every sample, the declared type of every metric family and the
 * lines that could not be read (with their line numbers; they are skipped, the rest is kept, as Prometheus itself
 * drops only the bad series).
 *
 * <p>The parser follows the text exposition format 0.0.4 and the OpenMetrics text format where they agree:
 * {@code # HELP}/{@code # TYPE} lines, other comments, {@code name{label="value",…} value [timestamp]} samples,
 * label values with the escapes {@code \\}, {@code \"} and {@code \n}, values {@code NaN}, {@code +Inf},
 * {@code -Inf} and any Java-readable float, an optional trailing timestamp, an OpenMetrics {@code # EOF}.
 * Metric names may contain colons (vLLM's {@code vllm:…}). Exemplars ({@code # {…} v} after a value) are ignored.
 *
 * @param samples  in the order of the text
 * @param types    family name → {@code counter}, {@code gauge}, {@code histogram}, {@code summary}, {@code untyped}
 * @param problems "line N: why" for each line skipped
 */
public record Exposition(List<Sample> samples, Map<String, String> types, List<String> problems) {

    /** One sample: its metric name (with a histogram's {@code _bucket}/{@code _sum}/{@code _count} suffix). */
    public record Sample(String name, Map<String, String> labels, double value) {}

    public Exposition {
        samples = List.copyOf(samples);
        types = Map.copyOf(types);
        problems = List.copyOf(problems);
    }

    /** The samples of one metric name, any labels. */
    public List<Sample> named(String name) {
        List<Sample> out = new ArrayList<>();
        for (Sample s : samples) if (s.name.equals(name)) out.add(s);
        return out;
    }

    public boolean has(String name) {
        for (Sample s : samples) if (s.name.equals(name)) return true;
        return false;
    }

    public static Exposition parse(String text) {
        List<Sample> samples = new ArrayList<>();
        Map<String, String> types = new HashMap<>();
        List<String> problems = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) continue;
            if (line.startsWith("#")) {
                comment(line, types);
                continue;
            }
            try {
                samples.add(sample(line));
            } catch (IllegalArgumentException e) {
                problems.add("line " + (i + 1) + ": " + e.getMessage());
            }
        }
        return new Exposition(samples, types, problems);
    }

    private static void comment(String line, Map<String, String> types) {
        String[] parts = line.substring(1).strip().split("\\s+", 3);
        if (parts.length == 3 && parts[0].equals("TYPE")) types.put(parts[1], parts[2].strip());
    }

    private static Sample sample(String line) {
        int i = 0;
        int n = line.length();
        while (i < n && nameChar(line.charAt(i), i == 0)) i++;
        if (i == 0) throw new IllegalArgumentException("no metric name");
        String name = line.substring(0, i);
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < n && line.charAt(i) == '{') i = labels(line, i + 1, labels);
        String rest = line.substring(i).strip();
        int exemplar = rest.indexOf(" #");
        if (exemplar >= 0) rest = rest.substring(0, exemplar).strip();
        if (rest.isEmpty()) throw new IllegalArgumentException("no value for " + name);
        String[] fields = rest.split("\\s+");
        if (fields.length > 2) throw new IllegalArgumentException("unexpected text after the value of " + name);
        return new Sample(name, labels, value(fields[0], name));
    }

    /** Reads {@code label="value",…}} from {@code i}; returns the index after the closing brace. */
    private static int labels(String line, int i, Map<String, String> labels) {
        int n = line.length();
        while (true) {
            while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == ',')) i++;
            if (i < n && line.charAt(i) == '}') return i + 1;
            int start = i;
            while (i < n && nameChar(line.charAt(i), i == start) && line.charAt(i) != ':') i++;
            if (i == start) throw new IllegalArgumentException("bad label name at column " + (i + 1));
            String label = line.substring(start, i);
            while (i < n && line.charAt(i) == ' ') i++;
            if (i + 1 >= n || line.charAt(i) != '=' || line.charAt(i + 1) != '"') {
                throw new IllegalArgumentException("label " + label + " has no quoted value");
            }
            i += 2;
            StringBuilder value = new StringBuilder();
            while (true) {
                if (i >= n) throw new IllegalArgumentException("label " + label + ": unterminated value");
                char c = line.charAt(i++);
                if (c == '"') break;
                if (c == '\\' && i < n) {
                    char e = line.charAt(i++);
                    value.append(e == 'n' ? '\n' : e);
                } else {
                    value.append(c);
                }
            }
            labels.put(label, value.toString());
        }
    }

    private static double value(String text, String name) {
        switch (text) {
            case "NaN": return Double.NaN;
            case "+Inf", "Inf": return Double.POSITIVE_INFINITY;
            case "-Inf": return Double.NEGATIVE_INFINITY;
            default:
                try {
                    return Double.parseDouble(text);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("value of " + name + " is not a number: '" + text + "'");
                }
        }
    }

    private static boolean nameChar(char c, boolean first) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || !first && c >= '0' && c <= '9';
    }
}
