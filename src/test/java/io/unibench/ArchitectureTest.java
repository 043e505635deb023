package io.unibench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The import arrows of {@code src/main/java} against the package table of {@code ARCHITECTURE.md}, which is the one
 * place the allowed arrows are written: every {@code import} line and fully qualified {@code io.unibench.x.Y}
 * reference (comments included: a {@code {@link}} is a dependency too) must point into the file's own room, the
 * root package, or a room its row's "may use" column names.
 */
class ArchitectureTest {
    private static final Path ROOT = Path.of("src/main/java");
    private static final String EVERYTHING = "*";
    /** A reference into a named package of ours: {@code io.unibench.engine.selfcheck.CpuMonitor} → engine.selfcheck. */
    private static final Pattern REFERENCE = Pattern.compile("\\bio\\.unibench\\.([a-z][a-z0-9]*(?:\\.[a-z][a-z0-9]*)*)\\.[A-Z]");
    private static final Pattern PACKAGE = Pattern.compile("^package io\\.unibench(?:\\.([a-z0-9.]+))?;");
    private static final Pattern ROW = Pattern.compile("^\\|\\s*`([a-z0-9.]+)`\\s*\\|.*\\|([^|]*)\\|\\s*$");
    private static final Pattern NAME = Pattern.compile("`([a-z0-9.]+)`");

    @Test
    void everyMainFileKeepsToTheTable() throws IOException {
        Map<String, Set<String>> table = table(Files.readString(Path.of("ARCHITECTURE.md")));
        List<String> violations = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(f -> f.toString().endsWith(".java")).sorted()
                    .forEach(f -> violations.addAll(violations(table, f.toString(), read(f))));
        }
        assertThat(violations).as("arrows ARCHITECTURE.md does not allow").isEmpty();
    }

    /**
     * Where an HTTP client is made, by kind, and the rooms that may make one. The benchmark's client
     * ({@code new LlmClient(}) is made by {@code client} itself and by {@code engine} alone (a run's one client per
     * target, check's probes through {@code engine.ProbeRunner}, a connection test outside a run, the server's
     * {@code /tokenize} in {@code engine.ServerTokenize}); Netty's client bootstrap only inside {@code client}. The
     * JDK's {@code HttpClient} serves only what is not the benchmarked server: {@code scrape} reads a server's
     * Prometheus {@code /metrics} (a room of its own that every front end may use), {@code schedule} delivers notices
     * to webhooks. {@code sim} and {@code web} are servers and make no client; neither do {@code check}, {@code cli}
     * or {@code scenario}. {@code URL.openConnection()} nowhere.
     */
    static final Map<Pattern, Set<String>> HTTP_CLIENTS = Map.of(
            Pattern.compile("\\bnew\\s+(?:io\\.unibench\\.client\\.)?LlmClient\\s*\\("), Set.of("client", "engine"),
            Pattern.compile("\\bnew\\s+(?:io\\.netty\\.bootstrap\\.)?Bootstrap\\s*\\("), Set.of("client"),
            Pattern.compile("\\bHttpClient\\s*\\.\\s*new(?:Builder|HttpClient)\\s*\\("), Set.of("scrape", "schedule"),
            Pattern.compile("\\.openConnection\\s*\\(\\s*\\)"), Set.of());

    @Test
    void onlyTheRoomsThatMayMakeAnHttpClientMakeOne() throws IOException {
        Map<String, Set<String>> table = table(Files.readString(Path.of("ARCHITECTURE.md")));
        List<String> violations = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(f -> f.toString().endsWith(".java")).sorted()
                    .forEach(f -> violations.addAll(httpClients(table, f.toString(), read(f))));
        }
        assertThat(violations).as("HTTP clients made outside the rooms that may make one").isEmpty();
    }

    @Test
    void anHttpClientMadeElsewhereIsNamedWithItsFileAndLine() {
        Map<String, Set<String>> table = Map.of("check", Set.of("client", "engine"), "engine", Set.of("client"),
                "client", Set.of(), "web", Set.of("engine"));
        String check = """
                package io.unibench.check;
                /** Not {@code new LlmClient(config)} in a comment. */
                class Target {
                    LlmClient c = new LlmClient(config);
                    java.net.http.HttpClient raw = java.net.http.HttpClient.newBuilder().build();
                }
                """;
        assertThat(httpClients(table, "check/Target.java", check)).containsExactly(
                "check/Target.java:4: check may not make an HTTP client (LlmClient c = new LlmClient(config);)",
                "check/Target.java:5: check may not make an HTTP client (java.net.http.HttpClient raw = "
                        + "java.net.http.HttpClient.newBuilder().build();)");
        String engine = "package io.unibench.engine.sub;\nclass A { Object c = new LlmClient(config); }\n";
        assertThat(httpClients(table, "A.java", engine)).isEmpty();
        String web = "package io.unibench.web;\nclass W { Object c = HttpClient.newHttpClient(); }\n";
        assertThat(httpClients(table, "W.java", web)).singleElement().asString().startsWith("W.java:2: web may not");
    }

    /** One line per HTTP client {@code source} makes where its room may not; comment lines do not count. */
    static List<String> httpClients(Map<String, Set<String>> table, String file, String source) {
        String[] lines = source.split("\n", -1);
        String own = null;
        List<String> out = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            Matcher pkg = PACKAGE.matcher(lines[i]);
            if (pkg.find()) {
                String room = pkg.group(1) == null ? null : room(table, pkg.group(1));
                own = room != null ? room : pkg.group(1) == null ? "io.unibench" : pkg.group(1);
                continue;
            }
            String code = lines[i].strip();
            if (code.startsWith("*") || code.startsWith("/*") || code.startsWith("//")) continue;
            for (Map.Entry<Pattern, Set<String>> kind : HTTP_CLIENTS.entrySet()) {
                if (kind.getKey().matcher(code).find() && !kind.getValue().contains(own)) {
                    out.add(file + ":" + (i + 1) + ": " + own + " may not make an HTTP client (" + lines[i].strip() + ")");
                    break;
                }
            }
        }
        return out;
    }

    @Test
    void everyPackageHasARow() throws IOException {
        Map<String, Set<String>> table = table(Files.readString(Path.of("ARCHITECTURE.md")));
        try (Stream<Path> dirs = Files.list(ROOT.resolve("io/unibench"))) {
            List<String> packages = dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString()).toList();
            assertThat(packages).isNotEmpty();
            assertThat(table.keySet()).containsAll(packages);
        }
    }

    @Test
    void theTableIsReadAsWritten() throws IOException {
        Map<String, Set<String>> table = table(Files.readString(Path.of("ARCHITECTURE.md")));
        assertThat(table.get("cli")).containsExactly(EVERYTHING);
        assertThat(table.get("metrics")).isEmpty();
        assertThat(table.get("store")).containsExactly("metrics");
        assertThat(table.get("engine")).contains("client", "metrics").doesNotContain("store", "report", "cli");
    }

    @Test
    void theTableHasNoCycle() throws IOException {
        Map<String, Set<String>> table = table(Files.readString(Path.of("ARCHITECTURE.md")));
        for (String room : table.keySet()) {
            assertThat(reachable(table, room)).as("rooms %s reaches through its arrows", room).doesNotContain(room);
        }
    }

    @Test
    void aForbiddenImportIsNamedWithItsFileAndLine() {
        Map<String, Set<String>> table = Map.of("store", Set.of("metrics"), "metrics", Set.of(),
                "report", Set.of("metrics"));
        String source = """
                package io.unibench.store;

                import io.unibench.BadInputException;
                import io.unibench.metrics.RunResult;
                import io.unibench.report.TextTable;
                """;
        assertThat(violations(table, "store/RunComparison.java", source)).containsExactly(
                "store/RunComparison.java:5: store may not use report (import io.unibench.report.TextTable;)");
    }

    @Test
    void aFullyQualifiedReferenceCountsAndSubPackagesBelongToTheirParent() {
        Map<String, Set<String>> table = Map.of("engine", Set.of("client"), "client", Set.of(), "store", Set.of());
        String ok = """
                package io.unibench.engine.selfcheck;
                import io.unibench.engine.LoadPlan;
                import io.unibench.client.LlmClient;
                """;
        assertThat(violations(table, "A.java", ok)).isEmpty();
        String bad = """
                package io.unibench.engine.selfcheck;
                class A { Object o = new io.unibench.store.RunStore(); }
                """;
        assertThat(violations(table, "A.java", bad)).singleElement().asString()
                .startsWith("A.java:2: engine may not use store");
    }

    @Test
    void aPackageWithoutARowIsAViolation() {
        String source = "package io.unibench.newroom;\nimport io.unibench.store.RunStore;\n";
        assertThat(violations(Map.of("store", Set.of()), "N.java", source)).singleElement().asString()
                .contains("io.unibench.newroom has no row");
        String target = "package io.unibench.store;\nimport io.unibench.newroom.X;\n";
        assertThat(violations(Map.of("store", Set.of()), "S.java", target)).singleElement().asString()
                .contains("io.unibench.newroom has no row");
    }

    /** Room → the rooms it may use ({@value #EVERYTHING} for "everything"), from the table's rows. */
    static Map<String, Set<String>> table(String markdown) {
        Map<String, Set<String>> table = new LinkedHashMap<>();
        for (String line : markdown.split("\n")) {
            Matcher row = ROW.matcher(line);
            if (!row.matches()) continue;
            String mayUse = row.group(2).trim();
            Set<String> rooms = new LinkedHashSet<>();
            if (mayUse.equals("everything")) {
                rooms.add(EVERYTHING);
            } else {
                Matcher name = NAME.matcher(mayUse);
                while (name.find()) rooms.add(name.group(1));
            }
            table.put(row.group(1), rooms);
        }
        return table;
    }

    /** One line per reference of {@code source} that its room may not make: {@code file:line: why (the line)}. */
    static List<String> violations(Map<String, Set<String>> table, String file, String source) {
        String[] lines = source.split("\n", -1);
        String own = null;
        List<String> out = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            Matcher pkg = PACKAGE.matcher(lines[i]);
            if (pkg.find()) {
                if (pkg.group(1) == null) return out; // the root package (BadInputException) uses nothing of ours
                own = room(table, pkg.group(1));
                if (own == null) {
                    out.add(file + ":" + (i + 1) + ": io.unibench." + pkg.group(1) + " has no row in ARCHITECTURE.md");
                    return out;
                }
                continue;
            }
            Matcher ref = REFERENCE.matcher(lines[i]);
            while (ref.find()) {
                String target = room(table, ref.group(1));
                String where = file + ":" + (i + 1) + ": ";
                if (target == null) {
                    out.add(where + "io.unibench." + ref.group(1) + " has no row in ARCHITECTURE.md ("
                            + lines[i].trim() + ")");
                } else if (own != null && !target.equals(own) && !table.get(own).contains(EVERYTHING)
                        && !table.get(own).contains(target)) {
                    out.add(where + own + " may not use " + target + " (" + lines[i].trim() + ")");
                }
            }
        }
        return out;
    }

    /** Every room {@code from} uses directly or through others ("everything" is a front end's: no room uses it). */
    private static Set<String> reachable(Map<String, Set<String>> table, String from) {
        Set<String> seen = new LinkedHashSet<>();
        List<String> todo = new ArrayList<>(table.getOrDefault(from, Set.of()));
        while (!todo.isEmpty()) {
            String r = todo.removeLast();
            if (!r.equals(EVERYTHING) && seen.add(r)) todo.addAll(table.getOrDefault(r, Set.of()));
        }
        return seen;
    }

    /** The longest row name that is {@code pkg} or a parent of it. */
    private static String room(Map<String, Set<String>> table, String pkg) {
        String best = null;
        for (String name : table.keySet()) {
            boolean covers = pkg.equals(name) || pkg.startsWith(name + ".");
            if (covers && (best == null || name.length() > best.length())) best = name;
        }
        return best;
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
