package io.unibench.cli;

import io.unibench.schedule.ScheduleStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "disable", mixinStandardHelpOptions = true, description = "Disable a schedule: no rounds until it is enabled again.")
final class ScheduleDisableCommand extends ScheduleStoreCommand {
    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    int run(ScheduleStore store) throws Exception {
        store.setEnabled(name, false, System.currentTimeMillis());
        out().println("Schedule " + name + " disabled.");
        return 0;
    }
}
