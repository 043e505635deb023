package io.unibench.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

/** Runs the real CLI in-process and captures what it printed. */
final class CliHarness {
    record Run(int exit, String out, String err) {}

    private CliHarness() {}

    static Run main(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(exit, out.toString(), err.toString());
    }

    /** Runs {@code run} with an empty environment (no API keys from the test's shell). */
    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.configure(new picocli.CommandLine(new RunCommand().forTest(Map.of())), new PrintWriter(out, true),
                new PrintWriter(err, true)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** Runs {@code perf} through a command object the test keeps (to stop it), with an empty environment. */
    static Run perf(PerfCommand command, String... args) {
        return perf(command, Map.of(), args);
    }

    /** Runs {@code perf} with {@code env} as its environment ({@code UNIBENCH_HOME}, keys). */
    static Run perf(PerfCommand command, Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        command.forTest(env);
        int exit = Main.configure(new picocli.CommandLine(command), new PrintWriter(out, true),
                new PrintWriter(err, true)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }
}
