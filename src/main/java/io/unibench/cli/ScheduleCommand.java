package io.unibench.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.Map;

/**
 * {@code unibench schedule}: scheduled rounds of a scenario document with alert rules (one class per subcommand,
 * {@code ScheduleAddCommand} …). Schedules live in the run history's database; {@code unibench serve} runs the
 * enabled ones, {@code schedule run} runs one round now (from an external cron).
 */
@Command(name = "schedule", mixinStandardHelpOptions = true,
        description = {"Scheduled rounds of a scenario file, with alerts (the file's alerts: and notify: sections).",
                "`unibench serve` runs the enabled schedules; `schedule run NAME` runs one round now (external cron)."},
        subcommands = {ScheduleAddCommand.class, ScheduleListCommand.class, ScheduleShowCommand.class,
                ScheduleRemoveCommand.class, ScheduleEnableCommand.class, ScheduleDisableCommand.class,
                ScheduleRunCommand.class})
public final class ScheduleCommand implements Runnable {
    @Spec
    CommandSpec spec;

    /** Where API keys, webhook URLs and signing secrets are read from (tests give their own). */
    Map<String, String> env = System.getenv();

    ScheduleCommand withEnvironment(Map<String, String> env) {
        this.env = env;
        return this;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
