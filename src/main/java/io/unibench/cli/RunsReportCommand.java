package io.unibench.cli;

import io.unibench.report.TerminalReport;
import io.unibench.store.RunStore;
import io.unibench.store.StoredReports;
import io.unibench.store.StoredRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "report", mixinStandardHelpOptions = true, description = "Re-prints the run's report tables, "
        + "recomputed from its stored requests (also for a run that was killed).")
final class RunsReportCommand extends RunsStoreCommand {
    @Parameters(paramLabel = "RUN")
    String run;

    @Override
    int run(RunStore store) throws Exception {
        StoredRun r = store.run(store.resolveId(run));
        out().println(TerminalReport.render(StoredReports.results(store, r), StoredReports.basicInfo(r)));
        return 0;
    }
}
