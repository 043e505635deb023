package io.unibench.cli;

import io.unibench.schedule.ScheduleStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "remove", mixinStandardHelpOptions = true, description = "Remove a schedule with its rounds and alert state (its runs stay in the run history).")
final class ScheduleRemoveCommand extends ScheduleStoreCommand {
    @Parameters(paramLabel = "NAME")
    String name;

    @Override
    int run(ScheduleStore store) throws Exception {
        store.remove(name);
        out().println("Schedule " + name + " removed; its runs stay in the run history (tag schedule:" + name + ").");
        return 0;
    }
}
