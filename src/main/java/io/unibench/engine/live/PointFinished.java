package io.unibench.engine.live;

import io.unibench.metrics.RunResult;

/** A load point ended; {@code result} is its exact report (from the raw values, not the live histograms). */
public record PointFinished(int point, String label, RunResult result) implements RunEvent {}
