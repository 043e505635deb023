package io.unibench.cli;

import io.unibench.schedule.Round;
import io.unibench.schedule.RoundLauncher;
import io.unibench.schedule.Schedule;
import io.unibench.store.RunFilter;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A round run the way {@code unibench run --config} runs: the schedule's document written to a private temporary
 * folder under its own file name (the runs' names come from it) and given to {@link RunCommand} with the round's
 * tags and the same run history; the runs are then found by the round's tag. What {@code run} prints goes to the
 * caller's streams ({@code schedule run}: the terminal). The service queues its rounds instead
 * ({@code web.QueuedRoundLauncher}).
 */
final class CliRoundLauncher implements RoundLauncher {
    private final StoreLocation location;
    private final Map<String, String> env;
    private final boolean foreground;
    private final String outputsDir;
    private final PrintWriter out;
    private final PrintWriter err;

    /**
     * @param foreground Ctrl-C stops the round's run as it stops {@code unibench run} (false in
     *                   tests, where the environment is the one given)
     */
    CliRoundLauncher(StoreLocation location, Map<String, String> env, boolean foreground, String outputsDir,
                     PrintWriter out, PrintWriter err) {
        this.location = location;
        this.env = env;
        this.foreground = foreground;
        this.outputsDir = outputsDir;
        this.out = out;
        this.err = err;
    }

    @Override
    public Result launch(Schedule schedule, Round round, Runnable started) {
        started.run(); // in the foreground: nothing to wait for
        Path dir = null;
        try {
            dir = Files.createTempDirectory("unibench-round-");
            Path file = dir.resolve(Path.of(schedule.documentName()).getFileName().toString());
            Files.writeString(file, schedule.document());
            RunCommand run = foreground ? new RunCommand() : new RunCommand().forTest(env);
            StringWriter errText = new StringWriter();
            PrintWriter errBoth = new PrintWriter(new TeeWriter(err, errText), true);
            int exit = Main.configure(new picocli.CommandLine(run), out, errBoth).execute("--config", file.toString(),
                    "--db", location.jdbcUrl(), "--outputs-dir", outputsDir,
                    "--tag", RoundLauncher.scheduleTag(schedule.name()), "--tag", RoundLauncher.roundTag(round.roundId()));
            List<String> runs = runsOf(round);
            // exit 3 is a measured round whose error rate passed the document's limit: its figures are data
            String problem = exit == 0 || exit == 3 ? null : "unibench run exited " + exit + lastLine(errText.toString());
            return new Result(runs, problem);
        } catch (IOException | SQLException e) {
            return new Result(List.of(), "the round could not run: " + StoreLocation.mask(String.valueOf(e.getMessage())));
        } finally {
            deleteQuietly(dir);
        }
    }

    private List<String> runsOf(Round round) throws SQLException {
        try (RunStore store = RunStore.open(location)) {
            List<String> ids = new ArrayList<>();
            for (RunRow r : store.list(new RunFilter(null, null, null, List.of(RoundLauncher.roundTag(round.roundId())),
                    null, null, null, 1000))) {
                ids.add(r.runId());
            }
            return ids;
        }
    }

    private static String lastLine(String text) {
        List<String> lines = text.lines().filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? "" : ": " + lines.getLast().replaceFirst("^unibench: ", "");
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) return;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a temporary folder left behind holds only the schedule's document, which the store has too
        }
    }

    /** Writes to the caller's stream and keeps a copy (the last line names why a round failed). */
    private static final class TeeWriter extends java.io.Writer {
        private final java.io.Writer a;
        private final java.io.Writer b;

        TeeWriter(java.io.Writer a, java.io.Writer b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(char[] buf, int off, int len) throws IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }

        @Override
        public void flush() throws IOException {
            a.flush();
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}
