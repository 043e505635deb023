package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.store.Owner;
import io.unibench.store.RunStore;
import io.unibench.store.StoreLocation;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.sql.SQLException;

/** {@code --db}: which run history; a picocli mixin of every command that reads or writes it. */
public final class StoreOption {
    @Option(names = "--db", paramLabel = "URL", description = "Run history store: a SQLite file path, "
            + "jdbc:sqlite:PATH or jdbc:postgresql://HOST[:PORT]/DB (credentials in the URL or "
            + "UNIBENCH_DB_USER/UNIBENCH_DB_PASSWORD, else PGUSER/PGPASSWORD). Default: UNIBENCH_DB, else "
            + "$UNIBENCH_HOME/unibench.db, else $HOME/.unibench/unibench.db.")
    String db;

    /** Opens the store; runs abandoned by killed processes are marked interrupted first. */
    RunStore open(PrintWriter err) {
        StoreLocation location = StoreLocation.resolve(db, System.getenv());
        try {
            RunStore store = RunStore.open(location);
            for (String id : store.recoverAbandoned(Owner.current(), System.currentTimeMillis())) {
                err.println("Run " + id + " was left running by a process that is gone; marked interrupted.");
            }
            return store;
        } catch (SQLException e) {
            throw new BadInputException("--db " + location.display() + ": cannot open the run history ("
                    + StoreLocation.mask(String.valueOf(e.getMessage())) + ")");
        }
    }
}
