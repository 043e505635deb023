package io.unibench.engine.live;

/** The run ended; always the last event a subscriber sees. {@code reason} is null when {@link RunStatus#FINISHED}. */
public record RunFinished(RunStatus status, String reason) implements RunEvent {}
