package io.unibench.engine.spec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A spec of several targets or workloads as runs of one target and one workload each, as {@code cli.PerfRun} runs
 * them ({@code unibench run FILE}, and {@code POST /api/runs} through {@code cli.ScenarioLauncher}: one code for
 * both): each run of consecutive points of one target × workload is a part, in the spec's order (targets one after
 * another, as a scenario file's providers), its files under {@code ROOT/TARGET/WORKLOAD/} and each point's in its
 * folder there (a label {@code TARGET/WORKLOAD/LEVEL}, a scenario file's, is {@code LEVEL} there), the same files as
 * a one-target spec's point; each part is a run in the run history. A spec of one target and one workload is its own
 * one part, its files under its root as {@code perf} writes them; each of several SLA searches is a part too. A spec
 * in the {@link RunSpec.Layout#series} layout keeps its root and labels: its points' folders are {@code
 * ROOT/TARGET/WORKLOAD/LEVEL} already.
 */
public final class SpecParts {
    private SpecParts() {}

    /** The spec's parts in the order they run; the spec itself when it has one target and one workload. */
    public static List<RunSpec> of(RunSpec spec) {
        if (spec.targets().size() == 1 && spec.workloads().size() == 1 && spec.sla().size() <= 1) return List.of(spec);
        List<RunSpec> parts = new ArrayList<>();
        for (Sla sla : spec.sla()) parts.add(part(spec, List.of(), sla)); // each search its target × workload's part
        List<RunSpec.Point> run = new ArrayList<>();
        for (RunSpec.Point p : spec.points()) {
            if (!run.isEmpty() && (run.getFirst().target() != p.target() || run.getFirst().workload() != p.workload())) {
                parts.add(part(spec, run, null));
                run = new ArrayList<>();
            }
            run.add(p);
        }
        if (!run.isEmpty()) parts.add(part(spec, run, null));
        return parts;
    }

    /** The part of {@code points} (one target × workload's), or of {@code sla}'s search when it is not null. */
    private static RunSpec part(RunSpec spec, List<RunSpec.Point> points, Sla sla) {
        int t = sla != null ? sla.target() : points.getFirst().target();
        int w = sla != null ? sla.workload() : points.getFirst().workload();
        List<Sla> search = sla == null ? List.of() : List.of(sla.at(0, 0));
        RunSpec.Target target = spec.targets().get(t);
        RunSpec.Workload workload = spec.workloads().get(w);
        if (spec.outputs().layout() == RunSpec.Layout.series) { // its folders are already ROOT/TARGET/WORKLOAD/LEVEL
            return new RunSpec(spec.name(), List.of(target), List.of(workload), points.stream().map(p -> new RunSpec.Point(
                    p.label(), 0, 0, p.plan(), p.pauseAfter(), p.slice())).toList(), search, spec.shard(), spec.goodput(),
                    spec.cancels(), spec.outputs(), spec.history(), spec.seed(), spec.limits());
        }
        // a scenario file's label is TARGET/WORKLOAD/LEVEL: under the part's folder, LEVEL is the point's folder
        String prefix = target.name() + "/" + workload.name() + "/";
        List<RunSpec.Point> mine = points.stream().map(p -> new RunSpec.Point(p.label().startsWith(prefix)
                && p.label().length() > prefix.length() ? p.label().substring(prefix.length()) : p.label(), 0, 0,
                p.plan(), p.pauseAfter(), p.slice())).toList();
        Path root = spec.outputs().root().resolve(safe(target.name())).resolve(safe(workload.name()));
        return new RunSpec(spec.name(), List.of(target), List.of(workload), mine, search, spec.shard(), spec.goodput(),
                spec.cancels(), spec.outputs(), spec.history(), spec.seed(), spec.limits()).withRoot(root);
    }

    /** A name as one folder: what is not a letter, digit, {@code .}, {@code _} or {@code -} becomes {@code _}. */
    public static String safe(String name) {
        return name == null || name.isBlank() ? "_" : name.replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
