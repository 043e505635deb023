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
            + "$UNIBENCH_HOME/unibench.db, else $HOME/.unibench/unibench.db. A file given here must exist for commands "
            + "that only read; a run may create it, in an existing folder.")
    String db;

    /** Opens the store for a command that only reads it ({@link #location}); see {@link #open(PrintWriter, boolean)}. */
    RunStore open(PrintWriter err) {
        return open(err, true);
    }

    /** Opens the store; runs abandoned by killed processes are marked interrupted first. */
    RunStore open(PrintWriter err, boolean reading) {
        StoreLocation location = location(db, System.getenv(), reading);
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

    /**
     * Where the run history is. A SQLite file named by {@code --db} is checked first, as opening it would make what
     * is missing: a command that only reads ({@code runs list}, {@code schedule show}, …) refuses a file that does
     * not exist (a typo would otherwise read an empty new store), and one that writes may create the file but not
     * its missing folders (a typo in a folder name would otherwise hide the runs there). The default place (and
     * {@code UNIBENCH_DB}) is made as needed.
     */
    static StoreLocation location(String db, java.util.Map<String, String> env, boolean reading) {
        StoreLocation location = StoreLocation.resolve(db, env);
        java.nio.file.Path file = location.file();
        if (db == null || file == null) return location;
        if (java.nio.file.Files.isDirectory(file)) {
            throw new BadInputException("--db '" + db + "': is a folder, not a run history file");
        }
        if (reading && !java.nio.file.Files.exists(file)) {
            throw new BadInputException("--db '" + db + "': no such file (this command only reads the run history; "
                    + "a run creates it)");
        }
        java.nio.file.Path folder = file.getParent();
        if (folder != null && !java.nio.file.Files.isDirectory(folder)) {
            throw new BadInputException("--db '" + db + "': folder " + folder + (java.nio.file.Files.exists(folder)
                    ? " is not a folder" : " does not exist (create it first)"));
        }
        return location;
    }
}
