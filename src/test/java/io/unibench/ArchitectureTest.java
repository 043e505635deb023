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
 * The import arrows of {@code src/main/java}. The allowed arrows are frozen here, in {@link #MATRIX} (room → the rooms
 * it may use; a room is a top-level folder under {@code io/unibench}, its sub-packages included), so that widening an
 * arrow is a visible change to this test; {@code ARCHITECTURE.md}'s package table documents them and must agree
 * ({@link #theMarkdownTableIsTheMatrix}). Every {@code import} line and fully qualified {@code io.unibench.x.Y}
 * reference (comments included: a {@code {@link}} is a dependency too) must point into the file's own room, the
 * root package, or a room its row allows; and the arrows the files actually make between rooms must form no cycle.
 */
class ArchitectureTest {
    private static final Path ROOT = Path.of("src/main/java");
    private static final String EVERYTHING = "*";
    /** A reference into a named package of ours: {@code io.unibench.engine.selfcheck.CpuMonitor} → engine.selfcheck. */
    private static final Pattern REFERENCE = Pattern.compile("\\bio\\.unibench\\.([a-z][a-z0-9]*(?:\\.[a-z][a-z0-9]*)*)\\.[A-Z]");
    private static final Pattern PACKAGE = Pattern.compile("^package io\\.unibench(?:\\.([a-z0-9.]+))?;");
    private static final Pattern ROW = Pattern.compile("^\\|\\s*`([a-z0-9.]+)`\\s*\\|.*\\|([^|]*)\\|\\s*$");
    private static final Pattern NAME = Pattern.compile("`([a-z0-9.]+)`");

    /**
     * Room → the rooms it may use ({@value #EVERYTHING}: every room; a front end's, and no room may use it back). The
     * one place an arrow is allowed: change it here and in ARCHITECTURE.md's table in the same commit, and say why.
     */
    static final Map<String, Set<String>> MATRIX = matrix(
            "cli", Set.of(EVERYTHING),
            "workload", Set.of("tokenizer"),
            "tokenizer", Set.of(),
            "engine", Set.of("client", "metrics", "output", "tokenizer", "workload"),
            "client", Set.of("net"),
            "net", Set.of(),
            "metrics", Set.of(),
            "output", Set.of("metrics"),
            "report", Set.of("metrics", "output", "scrape"),
            "store", Set.of("metrics"),
            "sim", Set.of("net", "tokenizer"),
            "scenario", Set.of("client", "engine", "metrics", "workload"),
            "web", Set.of("engine", "importer", "metrics", "report", "scenario", "schedule", "store"),
            "schedule", Set.of("metrics", "scenario", "store"),
            "check", Set.of("client", "engine", "metrics", "scrape"),
            "importer", Set.of("metrics", "store"),
            "scrape", Set.of());

    @Test
    void everyMainFileKeepsToTheMatrix() throws IOException {
        List<String> violations = new ArrayList<>();
        for (Map.Entry<String, String> f : mainSources().entrySet()) {
            violations.addAll(violations(MATRIX, f.getKey(), f.getValue()));
        }
        assertThat(violations).as("arrows ArchitectureTest.MATRIX does not allow").isEmpty();
    }

    /**
     * The matrix is the code's arrows, not a wider allowance: every arrow it allows (but a front end's "everything")
     * is made by some file, so an arrow the code stopped making is narrowed here visibly, not left open.
     */
    @Test
    void everyArrowTheMatrixAllowsIsMade() throws IOException {
        Map<String, Map<String, String>> arrows = new LinkedHashMap<>();
        for (Map.Entry<String, String> f : mainSources().entrySet()) arrows(arrows, f.getKey(), f.getValue());
        assertThat(unmade(MATRIX, arrows)).as("arrows ArchitectureTest.MATRIX allows that no file makes: narrow it "
                + "and ARCHITECTURE.md's table").isEmpty();
    }

    @Test
    void anArrowNoFileMakesIsNamed() {
        Map<String, Map<String, String>> arrows = new LinkedHashMap<>();
        arrows(arrows, "report/scenario/Comparison.java", "package io.unibench.report.scenario;\n"
                + "import io.unibench.metrics.RunResult;\n");
        Map<String, Set<String>> matrix = Map.of("report", Set.of("metrics", "scenario"), "cli", Set.of(EVERYTHING),
                "metrics", Set.of());
        assertThat(unmade(matrix, arrows)).containsExactly("report → scenario");
    }

    /** "room → target" for each arrow {@code matrix} allows that {@code arrows} does not make, in name order. */
    static List<String> unmade(Map<String, Set<String>> matrix, Map<String, Map<String, String>> arrows) {
        List<String> out = new ArrayList<>();
        for (String room : new java.util.TreeSet<>(matrix.keySet())) {
            for (String target : new java.util.TreeSet<>(matrix.get(room))) {
                if (target.equals(EVERYTHING)) continue;
                if (!arrows.getOrDefault(room, Map.of()).containsKey(target)) out.add(room + " → " + target);
            }
        }
        return out;
    }

    /** An HTTP client's kind: the code that makes or uses it, the rooms that may, and what the others may not do. */
    record HttpRule(Pattern code, Set<String> rooms, String what) {}

    /**
     * Where an HTTP client is made or used, by kind, and the rooms that may (in this order: a line names its first
     * broken rule). The benchmark's client ({@code new LlmClient(}) is made by {@code client} itself and by
     * {@code engine} alone (a run's one client per target, check's probes through {@code engine.ProbeRunner}, a
     * connection test outside a run, the server's {@code /tokenize} in {@code engine.ServerTokenize}); Netty's client
     * bootstrap only inside {@code client}. The JDK's client ({@code java.net.http}) serves only two readers that are
     * not the benchmark's traffic, for the reasons ARCHITECTURE.md's "One HTTP client" gives: {@code scrape} reads a
     * server's Prometheus {@code /metrics} once a second off the measured client's event loops, {@code schedule}
     * posts notices to webhooks; nothing else imports it. {@code sim} and {@code web} are servers and make no client;
     * neither do {@code check}, {@code cli} or {@code scenario}. {@code URL.openConnection()} and
     * {@code HttpURLConnection} nowhere.
     */
    static final List<HttpRule> HTTP_CLIENTS = List.of(
            new HttpRule(Pattern.compile("\\bnew\\s+(?:io\\.unibench\\.client\\.)?LlmClient\\s*\\("), Set.of("client", "engine"),
                    "make an HTTP client"),
            new HttpRule(Pattern.compile("\\bnew\\s+(?:io\\.netty\\.bootstrap\\.)?Bootstrap\\s*\\("), Set.of("client"),
                    "make an HTTP client"),
            new HttpRule(Pattern.compile("\\bHttpClient\\s*\\.\\s*new(?:Builder|HttpClient)\\s*\\("), Set.of("scrape", "schedule"),
                    "make an HTTP client"),
            new HttpRule(Pattern.compile("\\.openConnection\\s*\\(\\s*\\)|\\bHttpURLConnection\\b"), Set.of(),
                    "make an HTTP client"),
            new HttpRule(Pattern.compile("\\bjava\\s*\\.\\s*net\\s*\\.\\s*http\\b"), Set.of("scrape", "schedule"),
                    "use the JDK's HTTP client"));

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
        String engineJdk = "package io.unibench.engine;\nimport java.net.http.HttpResponse;\n";
        assertThat(httpClients(table, "E.java", engineJdk)).containsExactly(
                "E.java:2: engine may not use the JDK's HTTP client (import java.net.http.HttpResponse;)");
        String scrape = "package io.unibench.scrape;\nimport java.net.http.HttpClient;\n"
                + "class S { Object c = HttpClient.newBuilder().build(); }\n";
        assertThat(httpClients(Map.of("scrape", Set.of()), "S.java", scrape)).isEmpty();
        String url = "package io.unibench.web;\nclass U { Object c = new java.net.URL(u).openConnection(); }\n";
        assertThat(httpClients(table, "U.java", url)).singleElement().asString().startsWith("U.java:2: web may not make");
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
            for (HttpRule kind : HTTP_CLIENTS) {
                if (kind.code().matcher(code).find() && !kind.rooms().contains(own)) {
                    out.add(file + ":" + (i + 1) + ": " + own + " may not " + kind.what() + " (" + lines[i].strip() + ")");
                    break;
                }
            }
        }
        return out;
    }

    @Test
    void noCycleBetweenTopLevelFoldersInTheActualImports() throws IOException {
        Map<String, Map<String, String>> arrows = new LinkedHashMap<>();
        for (Map.Entry<String, String> f : mainSources().entrySet()) arrows(arrows, f.getKey(), f.getValue());
        assertThat(arrows).as("rooms seen").containsKeys("engine", "report", "scenario");
        assertThat(cycle(arrows)).as("a cycle between top-level folders, each arrow with a file that makes it")
                .isEmpty();
    }

    @Test
    void everyFolderHasARowAndEveryRowAFolder() throws IOException {
        try (Stream<Path> dirs = Files.list(ROOT.resolve("io/unibench"))) {
            List<String> packages = dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString()).toList();
            assertThat(MATRIX.keySet()).containsExactlyInAnyOrderElementsOf(packages);
        }
    }

    @Test
    void theMarkdownTableIsTheMatrix() throws IOException {
        Map<String, Set<String>> table = table(Files.readString(Path.of("ARCHITECTURE.md")));
        List<String> differences = new ArrayList<>();
        Set<String> rooms = new java.util.TreeSet<>(MATRIX.keySet());
        rooms.addAll(table.keySet());
        for (String room : rooms) {
            Set<String> written = table.get(room), frozen = MATRIX.get(room);
            if (written == null || !written.equals(frozen)) {
                differences.add(room + ": ARCHITECTURE.md says " + (written == null ? "no row" : new java.util.TreeSet<>(written))
                        + ", ArchitectureTest.MATRIX " + (frozen == null ? "no row" : new java.util.TreeSet<>(frozen)));
            }
        }
        assertThat(differences).as("ARCHITECTURE.md's package table (its \"may use\" column) against MATRIX")
                .isEmpty();
    }

    @Test
    void theMatrixIsReadAsWritten() {
        assertThat(MATRIX.get("cli")).containsExactly(EVERYTHING);
        assertThat(MATRIX.get("metrics")).isEmpty();
        assertThat(MATRIX.get("store")).containsExactly("metrics");
        assertThat(MATRIX.get("engine")).contains("client", "metrics").doesNotContain("store", "report", "cli");
        assertThat(MATRIX.get("scenario")).as("scenario writes no view").doesNotContain("report");
        assertThat(MATRIX.get("report")).as("report reads no scenario file: its results are plain values")
                .doesNotContain("scenario");
        assertThat(table("| `a` | exists | x | `b`, `c` |\n| `d` | exists | y | everything |\n| `e` | exists | z | — |"))
                .isEqualTo(Map.of("a", Set.of("b", "c"), "d", Set.of(EVERYTHING), "e", Set.of()));
    }

    @Test
    void theMatrixHasNoCycle() {
        for (String room : MATRIX.keySet()) {
            assertThat(reachable(MATRIX, room)).as("rooms %s reaches through its arrows", room).doesNotContain(room);
        }
    }

    @Test
    void aCycleIsNamedWithItsPathAndTheFilesThatMakeIt() {
        Map<String, Map<String, String>> arrows = new LinkedHashMap<>();
        arrows(arrows, "scenario/ScenarioRunner.java", """
                package io.unibench.scenario;
                import io.unibench.metrics.RunResult;
                import io.unibench.report.EvalscopeFiles;
                """);
        arrows(arrows, "report/scenario/Comparison.java", """
                package io.unibench.report.scenario;
                import io.unibench.scenario.BenchConfig;
                """);
        arrows(arrows, "metrics/RunResult.java", "package io.unibench.metrics;\nimport io.unibench.Moments;\n");
        assertThat(cycle(arrows)).isEqualTo("report → scenario (report/scenario/Comparison.java:2)"
                + " → report (scenario/ScenarioRunner.java:3)");
        arrows.get("scenario").remove("report");
        assertThat(cycle(arrows)).isEmpty();
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
                    out.add(file + ":" + (i + 1) + ": io.unibench." + pkg.group(1) + " has no row in ArchitectureTest.MATRIX");
                    return out;
                }
                continue;
            }
            Matcher ref = REFERENCE.matcher(lines[i]);
            while (ref.find()) {
                String target = room(table, ref.group(1));
                String where = file + ":" + (i + 1) + ": ";
                if (target == null) {
                    out.add(where + "io.unibench." + ref.group(1) + " has no row in ArchitectureTest.MATRIX ("
                            + lines[i].trim() + ")");
                } else if (own != null && !target.equals(own) && !table.get(own).contains(EVERYTHING)
                        && !table.get(own).contains(target)) {
                    out.add(where + own + " may not use " + target + " (" + lines[i].trim() + ")");
                }
            }
        }
        return out;
    }

    /** Every main source file by its path relative to {@link #ROOT}'s parent, in path order. */
    private static Map<String, String> mainSources() throws IOException {
        Map<String, String> sources = new java.util.TreeMap<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> sources.put(f.toString(), read(f)));
        }
        assertThat(sources).isNotEmpty();
        return sources;
    }

    /**
     * Adds the arrows between top-level folders that {@code source} makes to {@code arrows} (folder → folder it uses →
     * the first {@code file:line} making that arrow). The root package is no room (everyone may use it).
     */
    static void arrows(Map<String, Map<String, String>> arrows, String file, String source) {
        String[] lines = source.split("\n", -1);
        String own = null;
        for (int i = 0; i < lines.length; i++) {
            Matcher pkg = PACKAGE.matcher(lines[i]);
            if (pkg.find()) {
                if (pkg.group(1) == null) return;
                own = folder(pkg.group(1));
                arrows.computeIfAbsent(own, k -> new java.util.TreeMap<>());
                continue;
            }
            if (own == null) continue;
            Matcher ref = REFERENCE.matcher(lines[i]);
            while (ref.find()) {
                String target = folder(ref.group(1));
                if (!target.equals(own)) arrows.get(own).putIfAbsent(target, file + ":" + (i + 1));
            }
        }
    }

    /**
     * The first cycle of {@code arrows} (depth first, rooms in name order) as {@code a → b (file:line) → a (file:line)},
     * or "" when there is none.
     */
    static String cycle(Map<String, Map<String, String>> arrows) {
        Set<String> done = new java.util.HashSet<>();
        for (String start : new java.util.TreeSet<>(arrows.keySet())) {
            List<String> path = new ArrayList<>();
            String found = cycleFrom(arrows, start, path, done);
            if (found != null) return found;
        }
        return "";
    }

    private static String cycleFrom(Map<String, Map<String, String>> arrows, String room, List<String> path,
                                    Set<String> done) {
        int at = path.indexOf(room);
        if (at >= 0) {
            List<String> loop = new ArrayList<>(path.subList(at, path.size()));
            loop.add(room);
            StringBuilder out = new StringBuilder(loop.getFirst());
            for (int i = 1; i < loop.size(); i++) {
                out.append(" → ").append(loop.get(i)).append(" (")
                        .append(arrows.get(loop.get(i - 1)).get(loop.get(i))).append(")");
            }
            return out.toString();
        }
        if (done.contains(room)) return null;
        path.add(room);
        for (String next : arrows.getOrDefault(room, Map.of()).keySet()) {
            String found = cycleFrom(arrows, next, path, done);
            if (found != null) return found;
        }
        path.removeLast();
        done.add(room);
        return null;
    }

    private static String folder(String pkg) {
        int dot = pkg.indexOf('.');
        return dot < 0 ? pkg : pkg.substring(0, dot);
    }

    private static Map<String, Set<String>> matrix(Object... roomsAndUses) {
        Map<String, Set<String>> m = new LinkedHashMap<>();
        for (int i = 0; i < roomsAndUses.length; i += 2) {
            @SuppressWarnings("unchecked")
            Set<String> uses = (Set<String>) roomsAndUses[i + 1];
            if (m.put((String) roomsAndUses[i], uses) != null) throw new IllegalStateException("two rows " + roomsAndUses[i]);
        }
        return java.util.Collections.unmodifiableMap(m);
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
