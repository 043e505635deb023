package io.unibench.cli;

import io.unibench.schedule.Round;
import io.unibench.schedule.RoundLauncher;
import io.unibench.schedule.Schedule;
import io.unibench.store.RunFilter;
import io.unibench.store.RunRow;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;

import io.unibench.BadInputException;
import io.unibench.OutputFailedException;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A round run the way {@code unibench run --config} runs, in this process: the schedule's document given to
 * {@link RunCommand#round} under its own file name (the runs' names come from it), with the round's tags and the same
 * run history; the runs are then found by the round's tag. A failed round's reason is its exception's message (bad
 * input, an output that could not be written, what ended the run early), never a line scraped from the output. What
 * {@code run} prints goes to the caller's streams ({@code schedule run}: the terminal). The service queues its rounds
 * instead ({@code web.QueuedRoundLauncher}).
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
    public Result launch(Schedule schedule, Round round, Runnable started) throws InterruptedException {
        started.run(); // in the foreground: nothing to wait for
        RunCommand run = foreground ? new RunCommand() : new RunCommand().forTest(env);
        String problem;
        try {
            int exit = run.round(Path.of(schedule.documentName()).getFileName().toString(), schedule.document(),
                    location.jdbcUrl(), List.of(RoundLauncher.scheduleTag(schedule.name()),
                            RoundLauncher.roundTag(round.roundId())), outputsDir, out, err);
            // exit 3 is a measured round whose error rate passed the document's limit: its figures are data
            RuntimeException failure = run.lastFailure();
            problem = exit == 0 || exit == 3 ? null : failure != null ? Main.oneLine(failure.getMessage())
                    : "unibench run exited " + exit;
        } catch (BadInputException | OutputFailedException e) {
            problem = Main.oneLine(e.getMessage());
            err.println("unibench: " + problem); // as run --config says it
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            problem = "the round could not run: " + StoreLocation.mask(String.valueOf(e.getMessage()));
        }
        try {
            return new Result(runsOf(round), problem == null ? null : StoreLocation.mask(problem));
        } catch (SQLException e) {
            return new Result(List.of(), "the round could not run: " + StoreLocation.mask(String.valueOf(e.getMessage())));
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
}
