package io.unibench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.unibench.metrics.RunResult;
import io.unibench.report.ServerMetricsReport;
import io.unibench.report.TerminalReport;
import io.unibench.store.RunStore;
import io.unibench.store.StoredPoint;
import io.unibench.store.StoredReports;
import io.unibench.store.StoredRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

@Command(name = "report", mixinStandardHelpOptions = true, description = "Re-prints the run's report tables, "
        + "recomputed from its stored requests (also for a run that was killed), and the Server table from the "
        + "target's stored /metrics series.")
final class RunsReportCommand extends RunsStoreCommand {
    @Parameters(paramLabel = "RUN")
    String run;

    @Override
    int run(RunStore store) throws Exception {
        StoredRun r = store.run(store.resolveId(run));
        List<RunResult> results = StoredReports.results(store, r);
        out().println(TerminalReport.render(results, StoredReports.basicInfo(r)));
        out().print(ServerMetricsReport.table(serverRows(store, r, results)));
        return 0;
    }

    /**
     * The Server table's rows as the run printed them: each point's stored series (its summary recomputed from the
     * samples) beside the client-side hit rate of the point's result recomputed from its stored requests.
     */
    private static List<ServerMetricsReport.Row> serverRows(RunStore store, StoredRun run, List<RunResult> results)
            throws SQLException {
        List<ServerMetricsReport.Row> rows = new ArrayList<>();
        for (StoredPoint p : run.points()) {
            JsonNode stored = store.pointServerMetrics(run.runId(), p.index());
            if (stored == null) continue;
            Double clientHit = results.stream().filter(x -> x.info().label().equals(p.label())).findFirst()
                    .map(x -> x.summary().cache().kvCacheHitRatePercent()).orElse(null);
            rows.add(new ServerMetricsReport.Row(p.label(), ServerMetricsReport.series(stored).summary(), clientHit));
        }
        return rows;
    }
}
