package io.unibench.cli;

import io.unibench.schedule.ScheduleStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "enable", mixinStandardHelpOptions = true, description = "Enable a schedule: its next fire time is computed from now (no catch-up for the time it was disabled).")
final class ScheduleEnableCommand extends ScheduleStoreCommand {
    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    int run(ScheduleStore store) throws Exception {
        store.setEnabled(name, true, System.currentTimeMillis());
        out().println("Schedule " + name + " enabled.");
        return 0;
    }
}
