package io.unibench.cli;

import io.unibench.BadInputException;
import io.unibench.OutputFailedException;
import io.unibench.Secrets;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

/**
 * Entry point: {@code unibench <subcommand>}. Exit codes: 0 done; 2 bad input (one line on stderr); 3 the run
 * completed but no request succeeded, or a point's error rate passed {@code --max-error-rate}; 5 an output file
 * could not be written (the run stopped; the report of what was measured, then one line); 130 interrupted.
 */
@Command(name = "unibench",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Uni LLM Bench: latency, throughput, success and prefix-cache benchmarks of "
                + "OpenAI-compatible LLM endpoints. Flags of `evalscope perf` work unchanged.",
        exitCodeListHeading = Main.EXIT_CODES_HEADING,
        exitCodeList = {Main.EXIT_CODE_0, Main.EXIT_CODE_1, Main.EXIT_CODE_2, Main.EXIT_CODE_3, Main.EXIT_CODE_5,
                Main.EXIT_CODE_130},
        subcommands = {PerfCommand.class, RunCommand.class, CheckCommand.class, CalibrateCommand.class, SimCommand.class,
                RunsCommand.class,
                ServeCommand.class, ScheduleCommand.class,
                DatasetCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    /** An internal error (a bug) ended the run; the partial report was printed before the one-line cause. */
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_BAD_INPUT = 2;
    // the exit codes as --help lists them (perf and run too)
    static final String EXIT_CODES_HEADING = "%nExit codes:%n";
    static final String EXIT_CODE_0 = "0:done";
    static final String EXIT_CODE_1 = "1:internal error: a bug in a worker, sink or hook stopped the run (the partial "
            + "report, then one line with the cause)";
    static final String EXIT_CODE_2 = "2:bad input (one line on stderr naming the flag, file, line or field)";
    static final String EXIT_CODE_3 = "3:the run completed, but no request succeeded or a run point's error rate "
            + "passed --max-error-rate";
    static final String EXIT_CODE_130 = "130:interrupted (the partial report is written)";
    public static final int EXIT_INTERRUPTED = 130;
    /** An output file could not be written (disk full, permissions): the run stopped; (4 is {@code check}'s). */
    public static final int EXIT_OUTPUT_FAILED = 5;
    static final String EXIT_CODE_5 = "5:an output file could not be written (disk full, permissions): the run "
            + "stopped, the report of what was measured is printed, then one line naming the file and the cause";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        disableLeakDetectionUnlessAsked();
        honourHome();
        System.exit(execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /**
     * Netty's buffer leak detector (default level SIMPLE) records a stack trace for a sample of buffers: in a
     * benchmark run it is pure overhead on the event loops that timestamp every chunk (bench/HISTORY.md, third
     * round). Off for the CLI, unless the user asks for a level with {@code -Dio.netty.leakDetection.level}.
     * Only here, not in {@link #execute}: tests run in-process with the level Maven gives them, so leaks still show.
     */
    private static void disableLeakDetectionUnlessAsked() {
        if (System.getProperty("io.netty.leakDetection.level") == null
                && System.getProperty("io.netty.leakDetectionLevel") == null) {
            io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
        }
    }

    /**
     * Java takes {@code user.home} from the password database, so {@code HOME=/tmp/x unibench …} would still write
     * to the real home (DJL's tokenizer cache in {@code ~/.djl.ai}); every Unix tool reads {@code $HOME}, so this
     * one does too. (The run history reads the variable itself: store.StoreLocation.)
     */
    private static void honourHome() {
        String home = System.getenv("HOME");
        if (home != null && !home.isBlank()) System.setProperty("user.home", home);
    }

    /** Runs the CLI with the given streams and returns the exit code (tests call this). */
    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        return configure(new CommandLine(new Main()), out, err).execute(args);
    }

    /** Streams and error handling shared by every entry point: one line and exit 2 for bad input. */
    static CommandLine configure(CommandLine cli, PrintWriter out, PrintWriter err) {
        cli.setOut(out);
        cli.setErr(err);
        // picocli would replace any argument starting with '@' by the words of that file: --prompt @FILE and
        // --query-template @FILE name files our code reads whole (evalscope's syntax), so no expansion
        cli.setExpandAtFiles(false);
        cli.setParameterExceptionHandler((ex, a) -> {
            err.println("unibench: " + oneLine(parseError(ex)) + " (see --help)");
            return EXIT_BAD_INPUT;
        });
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof BadInputException) {
                err.println("unibench: " + oneLine(ex.getMessage()));
                return EXIT_BAD_INPUT;
            }
            if (ex instanceof OutputFailedException) { // before anything was measured, or after the report
                err.println("unibench: " + oneLine(ex.getMessage()));
                return EXIT_OUTPUT_FAILED;
            }
            throw ex;
        });
        return cli;
    }

    /** What ended a run early ({@code perf}, {@code run}): 5 for a file that could not be written, else 1 (a bug). */
    static int exitCode(RuntimeException failure) {
        return failure instanceof OutputFailedException ? EXIT_OUTPUT_FAILED : EXIT_FAILED;
    }

    /** The one line after the partial report of a run that {@code failure} ended. */
    static String failureLine(RuntimeException failure) {
        if (failure instanceof OutputFailedException) {
            return "unibench: " + oneLine(failure.getMessage()) + "; the run stopped there, the report above is what "
                    + "was measured";
        }
        return "unibench: " + failure.getMessage() + "; the report above is partial";
    }

    /** Runs {@code write}; returns {@code failure}, or the write's failure when it is the first. */
    static RuntimeException firstFailure(RuntimeException failure, Runnable write) {
        try {
            write.run();
        } catch (OutputFailedException e) {
            if (failure == null) return e;
        }
        return failure;
    }

    /**
     * picocli's message, except for a word where a subcommand was expected ({@code dataset frobnicate}): that is
     * an unknown subcommand, named with the ones there are, not an "unmatched argument".
     */
    private static String parseError(CommandLine.ParameterException ex) {
        CommandLine at = ex.getCommandLine();
        if (ex instanceof CommandLine.UnmatchedArgumentException u && at != null && !u.getUnmatched().isEmpty()
                && !u.getUnmatched().getFirst().startsWith("-")) {
            java.util.List<String> names = at.getSubcommands().keySet().stream().filter(n -> !n.equals("help")).toList();
            if (!names.isEmpty()) {
                return at.getCommandName() + " " + u.getUnmatched().getFirst() + ": unknown subcommand (one of: "
                        + String.join(", ", names) + ")";
            }
        }
        return ex.getMessage();
    }

    /** A message as the one line bad input gets (a parser's message may span lines), credentials masked. */
    static String oneLine(String message) {
        return Secrets.redact(String.valueOf(message).strip().replaceAll("\\s*\\R\\s*", " "));
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
