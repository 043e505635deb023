package io.unibench.cli;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The bad-input table ({@code src/test/resources/bad-inputs/cases.txt}): every bad input the CLI is known to get,
 * run in-process, each ending with exit 2 and exactly one line on stderr that names the flag, FILE:LINE and key, or
 * value, never a stack trace and never accepted. The counts go to {@code target/bad-inputs-table.txt} (cases, exit
 * codes, the share with one line) for the closing note.
 */
class BadInputTableTest {
    static final Path RESOURCES = Path.of("src/test/resources/bad-inputs");
    private static final Map<String, String> OUTCOMES = new ConcurrentHashMap<>();

    @TempDir
    static Path tmp;
    static String runId;
    static ServerSocket taken;

    @BeforeAll
    static void scratch() throws IOException {
        Files.createFile(tmp.resolve("afile"));
        taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        // a run history holding one run, for the runs cases
        CliHarness.Run perf = CliHarness.main("perf", "--number", "1", "--max-tokens", "2", "--no-client-warmup",
                "--db", tmp.resolve("runs.db").toString(), "--outputs-dir", tmp.resolve("out").toString());
        assertThat(perf.exit()).as(perf.err()).isZero();
        runId = perf.err().lines().filter(l -> l.startsWith("Run history: run ")).findFirst().orElseThrow()
                .split(" ")[3];
    }

    @AfterAll
    static void table() throws IOException {
        taken.close();
        Map<String, Integer> byExit = new TreeMap<>();
        long oneLine = OUTCOMES.values().stream().filter(o -> o.endsWith("one line")).count();
        OUTCOMES.values().forEach(o -> byExit.merge(o.substring(0, o.indexOf(' ')), 1, Integer::sum));
        StringBuilder sb = new StringBuilder("bad-input table (BadInputTableTest, src/test/resources/bad-inputs/cases.txt)\n");
        sb.append("cases: ").append(OUTCOMES.size()).append('\n');
        byExit.forEach((exit, n) -> sb.append("exit ").append(exit).append(": ").append(n).append('\n'));
        sb.append("one line on stderr: ").append(oneLine).append(" of ").append(OUTCOMES.size()).append('\n');
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target/bad-inputs-table.txt"), sb.toString());
    }

    static Stream<Arguments> cases() throws IOException {
        List<Arguments> out = new ArrayList<>();
        List<String> lines = Files.readAllLines(RESOURCES.resolve("cases.txt"), StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) continue;
            int bar = line.indexOf(" | ");
            if (bar < 0) throw new IllegalStateException("cases.txt:" + (i + 1) + ": no ' | '");
            out.add(Arguments.of("cases.txt:" + (i + 1), line.substring(0, bar).strip(), line.substring(bar + 3).strip()));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}: {2}")
    @MethodSource("cases")
    void oneLineAndExit2(String where, String expected, String commandLine) {
        List<String> args = new ArrayList<>();
        for (String word : words(commandLine)) args.add(fill(word));
        if (args.getFirst().equals("perf")) {
            // as scripts/bad-inputs.sh: an input wrongly accepted runs one short request, not evalscope's 1000
            if (!args.contains("--number")) args.addAll(List.of("--number", "1"));
            if (!args.contains("--max-tokens") && !commandLine.contains("openai_embedding")
                    && !commandLine.contains("openai_rerank")) {
                args.addAll(List.of("--max-tokens", "2"));
            }
            if (!args.contains("--db")) args.add("--no-db");
            if (!args.contains("--outputs-dir")) args.addAll(List.of("--outputs-dir", tmp.resolve("out").toString()));
        }
        // a server or simulator that wrongly starts would run until stopped: bounded here
        CliHarness.Run run = assertTimeoutPreemptively(Duration.ofSeconds(120),
                () -> CliHarness.main(args.toArray(String[]::new)), where + " did not end: accepted?");
        String err = run.err().strip();
        long lines = err.lines().count();
        OUTCOMES.put(where, run.exit() + " " + (lines == 1 ? "one line" : lines + " lines"));
        String shown = where + " `" + commandLine + "` → exit " + run.exit() + ", stderr:\n" + run.err();
        assertThat(run.exit()).as(shown).isEqualTo(2);
        assertThat(lines).as(shown).isEqualTo(1);
        assertThat(err).as(shown).doesNotContain("Exception").doesNotContain("\tat ").contains(fill(expected));
    }

    private static String fill(String s) {
        return s.replace("{res}", RESOURCES.toString()).replace("{tmp}", tmp.toString())
                .replace("{db}", tmp.resolve("runs.db").toString()).replace("{run}", runId)
                .replace("{port}", Integer.toString(taken.getLocalPort()));
    }

    /** Words as a shell splits them: spaces separate, single quotes keep (and '' is an empty word). */
    static List<String> words(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean quoted = false;
        boolean any = false;
        for (char c : line.toCharArray()) {
            if (c == '\'') {
                quoted = !quoted;
                any = true;
            } else if (c == ' ' && !quoted) {
                if (any) out.add(word.toString());
                word.setLength(0);
                any = false;
            } else {
                word.append(c);
                any = true;
            }
        }
        if (any) out.add(word.toString());
        return out;
    }
}
