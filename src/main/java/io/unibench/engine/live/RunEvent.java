package io.unibench.engine.live;

/**
 * What the session runner tells its subscribers (terminal progress, store, web live view) while a run goes on.
 * Events are immutable values; fields may be added at the end of a record later, never renamed or removed.
 */
public sealed interface RunEvent permits PhaseStarted, PointStarted, Snapshot, PointFinished, RunFinished {}
