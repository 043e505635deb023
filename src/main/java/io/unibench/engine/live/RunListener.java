package io.unibench.engine.live;

/** Receives a run's events, on the hub's own delivery thread (never on an event loop or the recorder); may be slow. */
@FunctionalInterface
public interface RunListener {
    void onEvent(RunEvent event);
}
