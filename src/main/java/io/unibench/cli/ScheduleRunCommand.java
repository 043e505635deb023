package io.unibench.cli;

import io.unibench.schedule.AlertEvaluator;
import io.unibench.schedule.AlertRule;
import io.unibench.schedule.AlertStore;
import io.unibench.schedule.Durations;
import io.unibench.schedule.Notifier;
import io.unibench.schedule.OutboxStore;
import io.unibench.schedule.Round;
import io.unibench.schedule.RoundRunner;
import io.unibench.schedule.Schedule;
import io.unibench.schedule.ScheduleDocument;
import io.unibench.schedule.ScheduleStore;
import io.unibench.store.RunStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;

@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Run one round of a schedule now, in the foreground, as `unibench run --config` runs its file; "
                + "then evaluate its alert rules from the stored runs and deliver the notifications (retrying for "
                + "up to --notify-wait). For an external cron: works without `unibench serve`.",
                "Exit codes: 0 the round ran; 1 it failed or was skipped (a round of the schedule is still running); "
                        + "2 bad input."})
final class ScheduleRunCommand extends ScheduleStoreCommand {
    static final String PUBLIC_URL_ENV = "UNIBENCH_PUBLIC_URL";

    @Parameters(paramLabel = "NAME")
    String name;

    @Option(names = "--outputs-dir", paramLabel = "DIR", description = "output root of the round's files "
            + "(default: ${DEFAULT-VALUE})")
    String outputsDir = "outputs";

    @Option(names = "--public-url", paramLabel = "URL", description = "the service's address for links to the run in "
            + "notifications (https://bench.example.com). Default: " + PUBLIC_URL_ENV + ", else no link.")
    String publicUrl;

    @Option(names = "--notify-wait", paramLabel = "DURATION", description = "how long to keep retrying undelivered "
            + "notifications before exiting (they stay in the outbox for the next round or the service). "
            + "Default: ${DEFAULT-VALUE}.")
    String notifyWait = "2m";

    @Override
    int run(ScheduleStore store) throws Exception {
        Duration wait = waitDuration();
        Schedule s = store.get(name);
        ScheduleDocument.check(s.documentName(), s.document(), env());
        PrintWriter o = out();
        store.recoverAbandoned(System.currentTimeMillis());
        long now = System.currentTimeMillis();
        Round queued = store.startRound(name, Round.MANUAL, now, now);
        if (queued.status().equals(Round.SKIPPED)) {
            err().println("unibench: schedule " + name + ": round skipped: " + queued.reason());
            return Main.EXIT_FAILED;
        }
        boolean foreground = parent == null || parent.env == System.getenv();
        RoundRunner.Done done;
        try (RunStore runs = RunStore.open(store.location())) {
            CliRoundLauncher launcher = new CliRoundLauncher(store.location(), env(), foreground, outputsDir, o, err());
            String url = publicUrl != null ? publicUrl : env().get(PUBLIC_URL_ENV);
            done = new RoundRunner(store, runs, launcher, System::currentTimeMillis, url, err()).run(s, queued);
        }
        Round r = done.round();
        o.println("Round " + r.roundId() + ": " + r.status() + (r.reason() != null ? " (" + r.reason() + ")" : "")
                + (r.runIds().isEmpty() ? "" : "; runs " + String.join(", ", r.runIds())));
        for (AlertEvaluator.Outcome a : done.outcomes()) o.println("Alert " + line(a));
        deliver(store, wait);
        return r.status().equals(Round.FINISHED) ? 0 : Main.EXIT_FAILED;
    }

    static String line(AlertEvaluator.Outcome a) {
        String value = a.observation().value() == null ? "no data (" + a.observation().note() + ")"
                : format(a.observation().value()) + " " + a.rule().metric().unit()
                + (a.interval() == null ? "" : " " + AlertEvaluator.intervalText(a.interval()))
                + (a.decision() == AlertRule.Decision.INCONCLUSIVE ? " (inconclusive: the interval straddles "
                        + format(a.rule().threshold()) + ")" : "");
        String changes = a.changes().isEmpty() ? "" : " [" + String.join(", ", a.changes().stream()
                .map(AlertStore.Change::event).map(e -> e.name().toLowerCase(Locale.ROOT)).toList()) + "]";
        return a.rule().name() + " · " + a.target().display() + ": " + value + " → "
                + a.state().status().name().toLowerCase(Locale.ROOT) + changes;
    }

    private static String format(double v) {
        return String.format(Locale.ROOT, "%.3f", v).replaceAll("0+$", "").replaceAll("\\.$", "");
    }

    private Duration waitDuration() {
        return notifyWait.strip().equals("0") ? Duration.ZERO : Durations.parse(notifyWait, "--notify-wait");
    }

    private void deliver(ScheduleStore store, Duration wait) throws Exception {
        Notifier n = new Notifier(store.outbox(), env(), System::currentTimeMillis, Notifier.http(Duration.ofSeconds(10)));
        n.drain(System.currentTimeMillis() + wait.toMillis(), until -> Thread.sleep(Math.max(0, until - System.currentTimeMillis())));
        for (OutboxStore.Message m : Notifier.undelivered(store.outbox(), name)) {
            if (m.createdAt() < System.currentTimeMillis() - Duration.ofDays(1).toMillis()) continue;
            err().println("Notification to " + m.channel().name() + " (" + m.notice().kind() + "): " + m.status()
                    + " after " + m.attempts() + " attempt(s): " + m.lastError());
        }
    }
}
