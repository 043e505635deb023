package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.schedule.AlertRule;
import io.unibench.schedule.AlertState;
import io.unibench.schedule.AlertsDocument;
import io.unibench.schedule.Incident;
import io.unibench.schedule.OutboxStore;
import io.unibench.schedule.Round;
import io.unibench.schedule.Schedule;
import io.unibench.schedule.Target;
import io.unibench.schedule.ScheduleDocument;
import io.unibench.schedule.ScheduleStore;
import io.unibench.schedule.Times;
import io.unibench.schedule.Durations;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.Map;

@Command(name = "show", mixinStandardHelpOptions = true, description = "A schedule: when it runs and the next five fire "
        + "times, its alert rules and where each target stands, the last rounds, incidents and notifications.")
final class ScheduleShowCommand extends ScheduleStoreCommand {
    @Parameters(paramLabel = "NAME")
    String name;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "10", description = "rounds shown. Default: ${DEFAULT-VALUE}.")
    int rounds;

    @Override
    int run(ScheduleStore store) throws Exception {
        Schedule s = store.get(name);
        PrintWriter o = out();
        o.println("Schedule:  " + s.name() + (s.enabled() ? "" : " (disabled)"));
        o.println("When:      " + s.trigger().describe() + (s.jitter().isZero() ? "" : ", jitter " + Durations.format(s.jitter())));
        o.println("Document:  " + s.documentName() + " (stored " + Times.utc(s.updatedAt()) + ")");
        if (!s.enabled()) {
            o.println("Next fire times: none while disabled (schedule enable " + s.name() + ")");
        } else {
            o.println("Next fire times:");
            long from = s.nextFireAt() != null ? s.nextFireAt() - 1 : System.currentTimeMillis();
            for (long t : s.trigger().next(5, from)) o.println("  " + Times.utc(t));
        }
        o.println();
        try {
            AlertsDocument alerts = ScheduleDocument.alerts(s, store.rules(s.name()));
            o.println("Alert rules:");
            if (alerts.rules().isEmpty()) o.println("  (none)");
            for (AlertRule r : alerts.rules()) {
                o.println("  " + r.name() + ": " + r.condition() + " for " + r.forRounds() + " round(s)"
                        + (r.channels().isEmpty() ? "" : " → " + String.join(", ", r.channels())));
                for (Map.Entry<String, AlertState> e : store.alerts().states(s.name(), r.name()).entrySet()) {
                    AlertState st = e.getValue();
                    o.println("    " + Target.display(e.getKey()) + ": " + st.status().name().toLowerCase(java.util.Locale.ROOT)
                            + (st.breachStreak() > 0 ? " (" + st.breachStreak() + " round(s) in a row)" : "")
                            + (st.noDataStreak() > 0 ? ", " + st.noDataStreak() + " round(s) without data" : ""));
                }
            }
        } catch (BadInputException e) {
            o.println("Alert rules: cannot be read: " + e.getMessage());
        }
        o.println();
        o.println("Rounds (newest first):");
        for (Round r : store.rounds(s.name(), rounds)) {
            o.println("  " + Times.utc(r.dueAt()) + "  " + r.status() + "  " + r.trigger() + "  " + r.roundId()
                    + (r.runIds().isEmpty() ? "" : "  runs " + String.join(", ", r.runIds()))
                    + (r.reason() != null ? "  (" + r.reason() + ")" : ""));
        }
        o.println();
        o.println("Incidents (newest first):");
        for (Incident i : store.alerts().incidents(s.name(), 10)) {
            o.println("  " + i.rule() + " · " + Target.display(i.target()) + ": " + i.kind() + " from "
                    + Times.utc(i.openedAt()) + (i.open() ? " (open)" : " to " + Times.utc(i.resolvedAt())) + ", worst " + i.worstValue());
        }
        o.println();
        o.println("Notifications (newest first):");
        for (OutboxStore.Message m : store.outbox().messages(s.name(), 10)) {
            o.println("  " + Times.utc(m.createdAt()) + "  " + m.channel().name() + " (" + m.channel().type().id() + ")  "
                    + m.notice().kind() + "  " + m.status() + " after " + m.attempts() + " attempt(s)"
                    + (m.lastError() != null ? ": " + m.lastError() : ""));
        }
        return 0;
    }
}
