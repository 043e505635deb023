package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.schedule.ScheduleStore;
import io.unibench.store.StoreLocation;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.Callable;

/** What the {@code schedule} subcommands share: {@code --db}, the open schedule store, the streams. */
abstract class ScheduleStoreCommand implements Callable<Integer> {
    @Mixin
    StoreOption storeOption;

    @ParentCommand
    ScheduleCommand parent;

    @Spec
    CommandSpec spec;

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    Map<String, String> env() {
        return parent != null ? parent.env : System.getenv();
    }

    StoreLocation location() {
        return StoreOption.location(storeOption.db, env(), !writes());
    }

    /** Whether this subcommand adds to the store ({@code schedule add}), so it may create a {@code --db} file. */
    boolean writes() {
        return false;
    }

    @Override
    public Integer call() throws Exception {
        StoreLocation location = location();
        ScheduleStore store;
        try {
            store = ScheduleStore.open(location);
        } catch (SQLException e) {
            throw new BadInputException("--db " + location.display() + ": cannot open the run history ("
                    + StoreLocation.mask(String.valueOf(e.getMessage())) + ")");
        }
        try (store) {
            int code = run(store);
            out().flush();
            return code;
        }
    }

    abstract int run(ScheduleStore store) throws Exception;
}
