package io.unibench.web;

import io.unibench.schedule.Round;
import io.unibench.schedule.RoundLauncher;
import io.unibench.schedule.Schedule;
import io.unibench.store.Owner;
import io.unibench.store.RunRow;
import io.unibench.store.RunStart;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The service's rounds: each is an ordinary run of the service's {@link RunQueue}, created as {@code POST /api/runs}
 * creates one (the schedule's document, validated by the same rules) and tagged with its schedule and round, so it
 * waits behind other runs like any run, says why while it waits, and can be watched, cancelled and compared. The
 * round is running from the moment its run starts and ends when the run's end is stored; its runs are the queued
 * run and, for several providers, the runs linked to it.
 */
final class QueuedRoundLauncher implements RoundLauncher {
    private final RunStore store;
    private final RunQueue queue;
    private final RunService service;
    private final Owner owner = Owner.current();

    QueuedRoundLauncher(RunStore store, RunQueue queue, RunService service) {
        this.store = store;
        this.queue = queue;
        this.service = service;
    }

    @Override
    public Result launch(Schedule schedule, Round round, Runnable started) throws InterruptedException {
        ScenarioDocument doc;
        try {
            doc = ScenarioDocument.parse(schedule.documentName(), "application/yaml",
                    schedule.document().getBytes(StandardCharsets.UTF_8), service);
        } catch (ScenarioDocument.Invalid e) {
            return new Result(List.of(), "the schedule's document cannot run: " + e.getMessage());
        }
        try {
            var p = doc.config().providers().getFirst();
            List<String> tags = List.of(RoundLauncher.scheduleTag(schedule.name()), RoundLauncher.roundTag(round.roundId()));
            String id = store.createRun(new RunStart(doc.config().name(), tags, p.model(), p.historyUrl(), doc.tree(),
                    Map.of()), owner, System.currentTimeMillis(), RunRow.QUEUED);
            RunQueue.Entry entry = queue.submit(id, doc.config(), doc.tree(), started);
            entry.ended().await(); // interrupted: the scheduler stops; the run is the queue's to end or keep
            RunRow end = store.run(id).row();
            List<String> runs = new ArrayList<>(List.of(id));
            store.linkedRuns(id).forEach(r -> runs.add(r.runId()));
            return new Result(runs, problem(end));
        } catch (SQLException | ApiError e) {
            return new Result(List.of(), "the round could not be queued: " + StoreLocation.mask(String.valueOf(e.getMessage())));
        }
    }

    /** Null for a run that finished; else what became of it, as the run's page says. */
    private static String problem(RunRow end) {
        if (end.status().equals(RunRow.FINISHED)) return null;
        if (end.status().equals(RunRow.QUEUED)) return "the service stopped before the round's run " + end.runId()
                + " started (it stays queued and runs when the service starts again)";
        return "run " + end.runId() + " " + end.status() + (end.statusReason() != null ? ": " + end.statusReason() : "");
    }
}
