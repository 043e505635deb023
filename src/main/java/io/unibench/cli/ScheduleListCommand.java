package io.unibench.cli;

import io.unibench.report.TextTable;
import io.unibench.schedule.Round;
import io.unibench.schedule.Schedule;
import io.unibench.schedule.ScheduleStore;
import io.unibench.schedule.Times;
import picocli.CommandLine.Command;

import java.util.List;

@Command(name = "list", mixinStandardHelpOptions = true, description = "The schedules: when they run, the next fire "
        + "time and the last round.")
final class ScheduleListCommand extends ScheduleStoreCommand {
    @Override
    int run(ScheduleStore store) throws Exception {
        List<Schedule> all = store.list();
        if (all.isEmpty()) {
            out().println("No schedules (unibench schedule add NAME --config FILE --cron EXPR).");
            return 0;
        }
        TextTable t = new TextTable(List.of("Name", "When", "Enabled", "Next fire", "Last round"),
                TextTable.Align.LEFT, TextTable.Align.LEFT, TextTable.Align.LEFT, TextTable.Align.LEFT, TextTable.Align.LEFT);
        long now = System.currentTimeMillis();
        for (Schedule s : all) {
            List<Round> last = store.rounds(s.name(), 1);
            String next = !s.enabled() ? "-" : Times.utc(s.nextFireAt() != null ? s.nextFireAt() : s.trigger().nextAfter(now));
            t.row(s.name(), s.trigger().describe(), s.enabled() ? "yes" : "no", next,
                    last.isEmpty() ? "-" : last.getFirst().status() + " " + Times.utc(last.getFirst().dueAt()));
        }
        out().print(t.render());
        return 0;
    }
}
