package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.unibench.scenario.ScenarioFile;
import io.unibench.schedule.ScheduleDocument;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guide's examples work: every {@code unibench} command in a fenced shell block of README.md, README.zh-CN.md
 * and docs/ runs in-process against the embedded simulator (counts bounded, outputs and run history in a temporary
 * folder; otherwise the command as documented), every YAML example passes the validator of its kind, and every
 * relative link and anchor resolves. A block preceded by {@code <!-- not-run: REASON -->} needs a real endpoint, a
 * cluster or runs until Ctrl-C: its commands are parsed against the CLI's model (the command and its flags must
 * exist), not run.
 */
class DocExamplesTest {
    private static final Pattern NOT_RUN = Pattern.compile("<!--\\s*not-run:\\s*(.+?)\\s*-->");
    private static final Set<String> SHELL = Set.of("bash", "sh", "shell", "console");
    /** The commands that write output folders and runs. */
    private static final Set<String> OUTPUT_FLAGS_OF = Set.of("perf", "run");

    @TempDir
    static Path tmp;

    record Block(Path file, int line, String lang, String text, String notRun) {}

    record Command(Path file, int line, List<String> args, String notRun) {
        @Override
        public String toString() {
            return file + ":" + line + ": unibench " + String.join(" ", args);
        }
    }

    static List<Path> documents() {
        List<Path> files = new ArrayList<>(List.of(Path.of("README.md"), Path.of("README.zh-CN.md")));
        try (Stream<Path> walk = Files.walk(Path.of("docs"))) {
            walk.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** The fenced blocks of a Markdown file, with the language and the not-run marker just above them. */
    static List<Block> blocks(Path file) {
        List<Block> out = new ArrayList<>();
        List<String> lines = read(file).lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String open = lines.get(i).strip();
            if (!open.startsWith("```")) continue;
            String lang = open.substring(3).strip().toLowerCase(Locale.ROOT);
            String marker = null;
            for (int k = i - 1; k >= 0; k--) {
                if (lines.get(k).isBlank()) continue;
                Matcher m = NOT_RUN.matcher(lines.get(k));
                if (m.find()) marker = m.group(1);
                break;
            }
            StringBuilder text = new StringBuilder();
            int j = i + 1;
            while (j < lines.size() && !lines.get(j).strip().startsWith("```")) text.append(lines.get(j++)).append('\n');
            out.add(new Block(file, i + 2, lang, text.toString(), marker));
            i = j;
        }
        return out;
    }

    /** Every {@code unibench} command of the shell blocks of every document. */
    static List<Command> commands() {
        List<Command> out = new ArrayList<>();
        for (Path file : documents()) {
            for (Block b : blocks(file)) {
                if (!SHELL.contains(b.lang())) continue;
                List<String> lines = b.text().lines().toList();
                for (int k = 0; k < lines.size(); k++) {
                    int first = k;
                    StringBuilder logical = new StringBuilder(lines.get(k));
                    while (logical.toString().endsWith("\\") && k + 1 < lines.size()) {
                        logical.setLength(logical.length() - 1);
                        logical.append(' ').append(lines.get(++k));
                    }
                    String line = logical.toString().strip().replaceFirst("^\\$ ", "");
                    if (!line.matches("^(\\./)?unibench(\\s.*)?$")) continue;
                    List<String> words = words(line);
                    out.add(new Command(file, b.line() + first, words.subList(1, words.size()), b.notRun()));
                }
            }
        }
        return out;
    }

    /** A shell line's words: quotes, backslash escapes, and a comment from a {@code #} that starts a word. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder w = null;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == ' ' || c == '\t') {
                if (w != null) words.add(w.toString());
                w = null;
            } else if (c == '#' && w == null) {
                break;
            } else if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                if (end < 0) throw new AssertionError("unbalanced ' in: " + line);
                if (w == null) w = new StringBuilder();
                w.append(line, i + 1, end);
                i = end;
            } else if (c == '"') {
                if (w == null) w = new StringBuilder();
                int j = i + 1;
                for (; j < line.length() && line.charAt(j) != '"'; j++) {
                    if (line.charAt(j) == '\\' && j + 1 < line.length() && "\"\\$`".indexOf(line.charAt(j + 1)) >= 0) j++;
                    w.append(line.charAt(j));
                }
                i = j;
            } else if (c == '\\' && i + 1 < line.length()) {
                if (w == null) w = new StringBuilder();
                w.append(line.charAt(++i));
            } else if (c == ';' || c == '|' || c == '&' || c == '>') {
                if (w != null) words.add(w.toString());
                return words; // what follows is another command or a redirection
            } else {
                if (w == null) w = new StringBuilder();
                w.append(c);
            }
        }
        if (w != null) words.add(w.toString());
        return words;
    }

    @Test
    void theGuideHasCommandsToRun() {
        List<Command> all = commands();
        long run = all.stream().filter(c -> c.notRun() == null).count();
        long distinct = all.stream().filter(c -> c.notRun() == null).map(Command::args).distinct().count();
        System.out.println("documented unibench commands: " + all.size() + ", run: " + run + " (" + distinct
                + " distinct), parsed only: " + (all.size() - run));
        assertThat(run).as("documented commands that run").isGreaterThanOrEqualTo(20);
    }

    @TestFactory
    Stream<DynamicTest> documentedCommandsRunAgainstTheSimulator() {
        // a command documented twice word for word (the Chinese pages repeat the English ones) runs once
        Map<List<String>, Command> distinct = new java.util.LinkedHashMap<>();
        commands().stream().filter(c -> c.notRun() == null).forEach(c -> distinct.putIfAbsent(c.args(), c));
        return distinct.values().stream().map(c -> DynamicTest.dynamicTest(c.toString(), () -> {
            List<String> args = bounded(c.args(), tmp.resolve("run-" + Math.abs(c.toString().hashCode())),
                    tmp.resolve(c.file().toString().replace('/', '_') + ".db"));
            CliHarness.Run r = CliHarness.main(args.toArray(String[]::new));
            assertThat(r.exit()).as("%s%n(ran as: unibench %s)%nstdout:%n%s%nstderr:%n%s", c, String.join(" ", args),
                    tail(r.out()), r.err()).isZero();
        }));
    }

    @TestFactory
    Stream<DynamicTest> commandsNotRunStillParse() {
        return commands().stream().filter(c -> c.notRun() != null).map(c -> DynamicTest.dynamicTest(c.toString(), () -> {
            CommandLine cli = Main.configure(new CommandLine(new Main()), new java.io.PrintWriter(Writer.NULL),
                    new java.io.PrintWriter(Writer.NULL));
            try {
                cli.parseArgs(c.args().toArray(String[]::new));
            } catch (CommandLine.ParameterException e) {
                throw new AssertionError(c + ": does not parse: " + e.getMessage(), e);
            }
        }));
    }

    private static final class Writer {
        static final java.io.Writer NULL = java.io.Writer.nullWriter();
    }

    /**
     * The documented command with bounded counts: at most 4 requests per point, 2 in flight, 8 tokens, one SLA run,
     * two turns a conversation, no tool pauses;
     * no {@code --url}, so the embedded simulator answers; outputs, datasets written and the run history in
     * {@code dir}. A scenario file is copied there with its counts bounded the same way.
     */
    static List<String> bounded(List<String> documented, Path dir, Path db) throws IOException {
        Files.createDirectories(dir);
        List<String> a = new ArrayList<>(documented);
        String command = a.isEmpty() ? "" : a.getFirst();
        for (int i = 0; i < a.size(); i++) {
            String flag = a.get(i);
            switch (flag) {
                case "--url", "--api-key", "--api-key-env" -> {
                    if (command.equals("perf")) {
                        a.remove(i + 1);
                        a.remove(i--);
                    }
                }
                case "-n", "--number" -> cap(a, i, 4);
                case "--parallel" -> cap(a, i, 2);
                case "--max-tokens" -> cap(a, i, 8);
                case "--sla-num-runs" -> cap(a, i, 1);
                case "--sla-upper-bound" -> cap(a, i, 4);
                case "--duration" -> cap(a, i, 2);
                case "--tool-latency-scale" -> cap(a, i, 0); // the agent traces' recorded tool pauses: none
                case "--min-turns", "--max-turns" -> cap(a, i, 2);
                case "-o", "--output", "--dataset-path" -> {
                    Path p = Path.of(a.get(i + 1));
                    // a file an earlier example wrote (datasets are shared by the examples, in order)
                    if (!Files.exists(p) && p.getParent() == null) a.set(i + 1, tmp.resolve(p).toString());
                }
                case "-c", "--config" -> {
                    if (command.equals("run") || command.equals("schedule")) {
                        a.set(i + 1, boundedScenario(Path.of(a.get(i + 1)), dir).toString());
                    }
                }
                default -> { }
            }
        }
        if (OUTPUT_FLAGS_OF.contains(command)) {
            if (!a.contains("--outputs-dir")) a.addAll(List.of("--outputs-dir", dir.resolve("outputs").toString()));
            if (!a.contains("--no-db") && !a.contains("--db")) a.addAll(List.of("--db", db.toString()));
        }
        if (command.equals("perf")) {
            if (!a.contains("--number") && !a.contains("-n")) a.addAll(List.of("--number", "4"));
            if (!a.contains("--max-tokens")) a.addAll(List.of("--max-tokens", "8"));
            // a trace's turns carry their own output lengths: two turns a conversation
            if (a.contains("--multi-turn") && !a.contains("--max-turns")) a.addAll(List.of("--max-turns", "2"));
        }
        // one run history per document: its commands see what its earlier commands stored
        if (command.equals("runs") || command.equals("schedule")) a.addAll(List.of("--db", db.toString()));
        if (command.equals("schedule") && a.size() > 1 && a.get(1).equals("run")) {
            a.addAll(List.of("--outputs-dir", dir.resolve("outputs").toString()));
        }
        return a;
    }

    private static void cap(List<String> a, int flag, int max) {
        for (int i = flag + 1; i < a.size() && !a.get(i).startsWith("-"); i++) {
            try {
                if (Double.parseDouble(a.get(i)) > max) a.set(i, Integer.toString(max));
            } catch (NumberFormatException e) {
                return;
            }
        }
    }

    private static Path boundedScenario(Path file, Path dir) throws IOException {
        String text = read(file)
                .replaceAll("(requests_per_level|rounds|max_tokens|num_runs|upper_bound):\\s*\\d+", "$1: 4")
                .replaceAll("(duration_sec|duration_per_level_sec):\\s*\\d+", "$1: 2");
        Path copy = dir.resolve(file.getFileName());
        Files.writeString(copy, text);
        return copy;
    }

    /** Every YAML example passes the validator of its kind: a scenario, a schedule, a simulator config. */
    @TestFactory
    Stream<DynamicTest> yamlExamplesAreValid() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path file : documents()) {
            for (Block b : blocks(file)) {
                if (!b.lang().equals("yaml") && !b.lang().equals("yml")) continue;
                String name = file + ":" + b.line();
                tests.add(DynamicTest.dynamicTest(name, () -> validateYaml(name, b.text())));
            }
        }
        assertThat(tests).as("YAML examples in the guide").isNotEmpty();
        return tests.stream();
    }

    private static void validateYaml(String name, String text) throws Exception {
        JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(text);
        if (doc == null) throw new AssertionError(name + ": empty YAML");
        if (doc.isObject() && (doc.has("provider") || doc.has("providers"))) {
            if (doc.has("alerts") || doc.has("notify")) ScheduleDocument.check(name, text, ANY_ENV);
            else assertThat(ScenarioFile.parse(name, text, ANY_ENV)).isNotNull();
        } else if (text.contains("unibench sim --config")) {
            Path f = tmp.resolve("sim-" + Math.abs(name.hashCode()) + ".yaml");
            Files.writeString(f, text);
            SimCommand sim = new SimCommand();
            new CommandLine(sim).parseArgs("--config", f.toString());
            assertThat(sim.resolve()).isNotNull();
        }
        // else: CI, Compose or Kubernetes snippets; well-formed YAML is all this test can say
    }

    /** Every variable a document names has a value (the examples' keys and webhooks are placeholders). */
    private static final Map<String, String> ANY_ENV = new AbstractMap<>() {
        @Override
        public String get(Object key) {
            return String.valueOf(key).contains("URL") ? "http://127.0.0.1:9/hook" : "sk-test-1234";
        }

        @Override
        public boolean containsKey(Object key) {
            return true;
        }

        @Override
        public Set<Entry<String, String>> entrySet() {
            return Set.of();
        }
    };

    /** Relative links point at files that exist, and their anchors at headings of the file. */
    @Test
    void internalLinksResolve() {
        Pattern link = Pattern.compile("\\[[^\\]]*]\\(([^)\\s]+)\\)");
        List<String> broken = new ArrayList<>();
        for (Path file : documents()) {
            String text = withoutCode(read(file), true);
            Matcher m = link.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*")) continue; // http:, https:, mailto:
                String path = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
                Path resolved = path.isEmpty() ? file : file.toAbsolutePath().getParent().resolve(path).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(file + ": " + target + " (no such file)");
                } else if (anchor != null && resolved.toString().endsWith(".md") && !anchors(resolved).contains(anchor)) {
                    broken.add(file + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    /** GitHub's anchors of a file's headings: lower case, punctuation dropped, spaces to hyphens, -1 … for repeats. */
    static Set<String> anchors(Path file) {
        Set<String> out = new HashSet<>();
        for (String line : withoutCode(read(file), false).lines().toList()) {
            if (!line.startsWith("#")) continue;
            String base = line.replaceFirst("^#+\\s*", "").strip().toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            String a = base;
            for (int n = 1; !out.add(a); n++) a = base + "-" + n;
        }
        return out;
    }

    /** The text outside fenced blocks; without inline code spans too when {@code spans}, else their backticks only. */
    private static String withoutCode(String markdown, boolean spans) {
        StringBuilder out = new StringBuilder();
        boolean code = false;
        for (String line : markdown.lines().toList()) {
            if (line.strip().startsWith("```")) {
                code = !code;
                continue;
            }
            if (!code) out.append(spans ? line.replaceAll("`[^`]*`", "") : line.replace("`", "")).append('\n');
        }
        return out.toString();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": " + e.getMessage(), e);
        }
    }

    private static String tail(String s) {
        return s.length() <= 4000 ? s : "…" + s.substring(s.length() - 4000);
    }
}
