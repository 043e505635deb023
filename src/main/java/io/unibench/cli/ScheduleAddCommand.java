package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.schedule.AlertsDocument;
import io.unibench.schedule.Durations;
import io.unibench.schedule.Schedule;
import io.unibench.schedule.ScheduleDocument;
import io.unibench.schedule.ScheduleStore;
import io.unibench.schedule.Times;
import io.unibench.schedule.Trigger;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;

@Command(name = "add", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Add a schedule: a scenario file (checked as `unibench run --config --check` checks it, with its "
                + "alerts: and notify: sections) and when it runs. The file's text is stored with the schedule: "
                + "edit the file and add the schedule again to change it."})
final class ScheduleAddCommand extends ScheduleStoreCommand {
    @Parameters(paramLabel = "NAME", description = "the schedule's name (letters, digits, . _ -)")
    String name;

    @Option(names = {"-c", "--config"}, required = true, paramLabel = "FILE", description = "the scenario file (YAML or JSON)")
    Path config;

    @ArgGroup(exclusive = true, multiplicity = "1")
    When when;

    static final class When {
        @Option(names = "--cron", paramLabel = "EXPR", description = "five-field cron: minute hour day-of-month month "
                + "day-of-week, e.g. \"0 2 * * *\" for 02:00 every day")
        String cron;

        @Option(names = "--every", paramLabel = "DURATION", description = "a fixed interval from now: 30m, 6h, 1d, 1h30m "
                + "(at least 1m)")
        String every;
    }

    @Option(names = "--tz", paramLabel = "ZONE", description = "time zone of --cron (Asia/Shanghai, UTC, +08:00). "
            + "Default: this machine's.")
    String zone;

    @Option(names = "--jitter", paramLabel = "DURATION", description = "start each round a random 0 … DURATION after its "
            + "time (spreads schedules sharing an endpoint). Default: 0s.")
    String jitter;

    @Option(names = "--disabled", description = "add it disabled (schedule enable NAME starts it). Default: enabled.")
    boolean disabled;

    @Override
    boolean writes() {
        return true;
    }

    @Override
    int run(ScheduleStore store) throws Exception {
        if (!name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new BadInputException("NAME '" + name + "': use 1-64 letters, digits, '.', '_' or '-'");
        }
        if (zone != null && when.cron == null) throw new BadInputException("--tz: applies only to --cron");
        String text = io.unibench.workload.TextFiles.readUtf8(config.toString(), config.toString());
        String fileName = config.getFileName().toString();
        AlertsDocument alerts = ScheduleDocument.check(fileName, text, env());
        long now = System.currentTimeMillis();
        Trigger trigger = when.cron != null ? Trigger.cron(when.cron, zone, "--cron")
                : Trigger.every(Durations.parse(when.every, "--every"), now, "--every");
        Duration j = jitter == null ? Duration.ZERO : Durations.parse(jitter, "--jitter");
        store.add(new Schedule(name, text, fileName, trigger, j, !disabled, null, null, now, now));
        out().println("Schedule " + name + ": " + trigger.describe() + (j.isZero() ? "" : ", jitter " + Durations.format(j))
                + (disabled ? " (disabled)" : "") + "; " + alerts.rules().size() + " alert rule(s), "
                + alerts.channels().size() + " channel(s).");
        ZoneId shown = trigger instanceof Trigger.Cron c ? c.zone() : ZoneId.systemDefault();
        out().println("Next fire times:");
        for (long t : trigger.next(5, now)) out().println("  " + Times.in(t, shown));
        out().println("Runs when `unibench serve` runs (same --db), or from an external cron: unibench schedule run " + name);
        return 0;
    }
}
