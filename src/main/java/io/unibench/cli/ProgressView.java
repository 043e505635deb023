package io.unibench.cli;

import io.unibench.engine.live.PhaseStarted;
import io.unibench.engine.live.PointFinished;
import io.unibench.engine.live.PointStarted;
import io.unibench.engine.live.RunEvent;
import io.unibench.engine.live.RunFinished;
import io.unibench.engine.live.RunListener;
import io.unibench.engine.live.Snapshot;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * The live bar on a terminal, a subscriber of the run's events: redrawn in place on every snapshot (once a second),
 * ended with a line break when the point finishes. It runs on the event hub's thread, so a slow terminal never
 * slows the run. Multi-turn points count turns here (their {@code --number} counts conversations), so the bar
 * shows turns done without a fraction.
 */
final class ProgressView implements RunListener {
    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final boolean conversations;
    private PointStarted point; // only the hub's delivery thread touches it
    private boolean drawn;

    ProgressView(PrintWriter err, boolean conversations) {
        this.err = err;
        this.conversations = conversations;
    }

    @Override
    public void onEvent(RunEvent event) {
        switch (event) {
            case PhaseStarted p -> { } // the front end prints its own lines for these
            case PointStarted p -> point = p;
            case Snapshot s -> draw(s);
            case PointFinished f -> endLine();
            case RunFinished r -> endLine();
        }
    }

    private void draw(Snapshot s) {
        if (point == null || point.point() != s.point()) return;
        err.print("\r" + bar(s) + "  " + line(s));
        err.flush();
        drawn = true;
    }

    private void endLine() {
        if (drawn) err.println();
        err.flush();
        drawn = false;
    }

    private String bar(Snapshot s) {
        String label = "[" + point.label() + "] ";
        if (conversations) return label + s.completed() + " turns";
        int total = point.plan().number();
        int filled = total == 0 ? WIDTH : (int) Math.min(WIDTH, s.completed() * WIDTH / total);
        return label + "█".repeat(filled) + "░".repeat(WIDTH - filled) + " " + s.completed() + "/" + total;
    }

    private static String line(Snapshot s) {
        return String.format(Locale.ROOT, "ok %d fail %d  %.2f req/s  %.1f tok/s  TTFT p50/p99 %.1f/%.1f ms  %s"
                        + "in flight %d%s", s.succeeded(), s.failed(), s.requestsPerSecond(), s.outputTokensPerSecond(),
                s.ttftMs().p50(), s.ttftMs().p99(), !s.reasoning() ? "" : String.format(Locale.ROOT,
                        "TTFCT p50/p99 %.1f/%.1f ms  ", s.ttfctMs().p50(), s.ttfctMs().p99()), s.inFlight(),
                s.client().warning() == null ? "" : "  ! " + s.client().warning());
    }

    /** True when stderr is an interactive terminal (JDK 22+ tells exactly; JDK 21 by console presence). */
    static boolean stderrIsTerminal() {
        java.io.Console console = System.console();
        if (console == null) return false;
        try {
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }

}
