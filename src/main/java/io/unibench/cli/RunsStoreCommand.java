package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.concurrent.Callable;

/** Base of the {@code runs} subcommands: the store, the streams, and SQL errors as one line. */
abstract class RunsStoreCommand implements Callable<Integer> {
    @Mixin
    StoreOption storeOption;

    @Spec
    CommandSpec spec;

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    @Override
    public Integer call() throws Exception {
        try (RunStore store = storeOption.open(err(), !writes())) {
            return run(store);
        } catch (SQLException e) {
            throw new BadInputException("run history: " + StoreLocation.mask(String.valueOf(e.getMessage())));
        }
    }

    abstract int run(RunStore store) throws Exception;

    /** True for a subcommand that stores runs ({@code runs import}): the store's file may be made. */
    boolean writes() {
        return false;
    }
}
