package io.unibench.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;

/** Whether and where a run is recorded in the run history, and its tags: a picocli mixin of {@code perf} and {@code run}. */
public final class HistoryOptions {
    @Mixin
    StoreOption store = new StoreOption();

    @Option(names = "--no-db", description = "Do not record the run in the run history (the files are written as "
            + "usual). Default: recorded.")
    boolean noDb;

    @Option(names = "--tag", arity = "1..*", paramLabel = "TAG", description = "Tags of the run in the run history "
            + "(`unibench runs list --tag`); repeatable. Default: none.")
    List<String> tags = new ArrayList<>();
}
