package io.unibench.check;

import io.unibench.engine.ProbeSession;
import io.unibench.scrape.ServerSample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * queue-drains (load): a burst of {@code max(2 × limit, limit + 4)} streams (a closed-loop point of the check's
 * session); after {@link #ABANDON_AFTER} every other one still in flight is abandoned by its client (as real bursts have impatient users); once every reply ended, the
 * server's waiting and running gauges must return to their baseline within the settle time. Needs {@code /metrics}.
 */
final class QueueDrainsCheck implements Check {
    static final int MAX_TOKENS = 64;
    static final Duration ABANDON_AFTER = Duration.ofMillis(100);

    @Override public String id() { return "queue-drains"; }

    @Override public boolean load() { return true; }

    @Override public Verdict run(Target t) throws InterruptedException {
        if (!t.hasMetrics()) return Verdict.skip(id(), t.noMetrics());
        ServerSample before = t.gauges();
        if (before == null || Double.isNaN(before.running())) return Verdict.skip(id(), "no running-requests gauge");
        double running0 = before.running();
        double waiting0 = Double.isNaN(before.waiting()) ? 0 : before.waiting();
        int limit = t.concurrencyLimit();
        int n = Math.max(2 * limit, limit + 4);
        ProbeSession.Running run = t.startBurst(id() + "/burst of " + n, Ask.of(t.model(), Prompts.STORY, MAX_TOKENS), n);
        run.awaitSent();
        t.pause(ABANDON_AFTER);
        int abandoned = 0;
        int inFlight = 0;
        for (ProbeSession.Pending p : run.pending()) { // every other stream still in flight (refused ones ended at once)
            if (p.reply().isDone()) continue;
            if (inFlight++ % 2 == 0) {
                p.abandon().complete(null);
                abandoned++;
            }
        }
        ProbeSession.Point results = run.await();
        List<ServerSample> seen = new ArrayList<>();
        long drained = t.awaitGauges(t.settings.settle(), s -> s.running() <= running0
                && (Double.isNaN(s.waiting()) || s.waiting() <= waiting0), seen);
        String burst = "burst of " + n + " (" + abandoned + " abandoned after " + ABANDON_AFTER.toMillis() + " ms; "
                + Outcomes.of(results).served() + " served" + t.limitNote() + Target.clientNote(results) + ")";
        if (drained < 0) {
            ServerSample last = seen.getLast();
            return Verdict.fail(id(), burst + ": running " + CancellationCheck.fmt(last.running()) + ", waiting "
                    + CancellationCheck.fmt(last.waiting()) + " " + t.settings.settle().toMillis()
                    + " ms after the last reply (baseline " + CancellationCheck.fmt(running0) + "/"
                    + CancellationCheck.fmt(waiting0) + ")");
        }
        return Verdict.pass(id(), burst + ": running and waiting back to " + CancellationCheck.fmt(running0) + "/"
                + CancellationCheck.fmt(waiting0) + " within " + Target.millis(drained) + " ms of the last reply");
    }
}
