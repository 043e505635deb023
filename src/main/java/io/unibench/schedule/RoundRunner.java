package io.unibench.schedule;

import io.unibench.BadInputException;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Runs one queued round to its end: the launcher (running once its run starts) → finished or failed (with why and the runs it stored)
 * → its alert rules evaluated from the stored runs (the document's {@code alerts:} and the schedule's own rules)
 * → notices in the outbox. Delivering them is the {@link Notifier}'s job, so a webhook never holds up a round.
 */
public final class RoundRunner {
    private final ScheduleStore store;
    private final RunStore runs;
    private final RoundLauncher launcher;
    private final LongSupplier clock;
    private final String publicUrl;
    private final PrintWriter log;

    public RoundRunner(ScheduleStore store, RunStore runs, RoundLauncher launcher, LongSupplier clock,
                       String publicUrl, PrintWriter log) {
        this.store = store;
        this.runs = runs;
        this.launcher = launcher;
        this.clock = clock;
        this.publicUrl = publicUrl;
        this.log = log;
    }

    /** The round after its end, with the rules' outcomes. */
    public record Done(Round round, List<AlertEvaluator.Outcome> outcomes) {}

    public Done run(Schedule schedule, Round queued) throws SQLException, InterruptedException {
        RoundLauncher.Result r;
        try {
            r = launcher.launch(schedule, queued, () -> running(schedule, queued));
        } catch (RuntimeException e) { // a bug in a launcher must not leave the round running forever
            r = new RoundLauncher.Result(List.of(), "the round could not run: " + StoreLocation.mask(String.valueOf(e)));
        }
        store.roundEnded(queued.roundId(), r.problem() == null ? Round.FINISHED : Round.FAILED, r.problem(), r.runIds(),
                clock.getAsLong());
        Round ended = store.round(queued.roundId());
        return new Done(ended, evaluate(schedule, ended));
    }

    /** The round's run has started (it may have waited in the service's queue): the round is running since now. */
    private void running(Schedule schedule, Round queued) {
        try {
            store.roundRunning(queued.roundId(), clock.getAsLong());
        } catch (SQLException e) { // the round's end is stored all the same; only its start time is lost
            log.println("schedule " + schedule.name() + ": round " + queued.roundId() + ": run history: "
                    + StoreLocation.mask(String.valueOf(e.getMessage())));
            log.flush();
        }
    }

    /** The round's rules evaluated again from its stored runs (the same answer every time for the same store). */
    public List<AlertEvaluator.Outcome> evaluate(Schedule schedule, Round ended) throws SQLException {
        AlertsDocument alerts;
        try {
            alerts = ScheduleDocument.alerts(schedule, store.rules(schedule.name()));
        } catch (BadInputException e) {
            log.println("schedule " + schedule.name() + ": alerts not evaluated: " + e.getMessage());
            log.flush();
            return List.of();
        }
        return new AlertEvaluator(store, runs, publicUrl).evaluate(schedule, ended, alerts, clock.getAsLong());
    }
}
