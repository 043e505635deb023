package io.unibench.engine;

/** When each request of an open-loop phase is due: offsets from the phase's start, non-decreasing. */
public interface ArrivalSchedule {
    /** Offset of arrival i from the schedule's start, in nanoseconds. */
    long offsetNanos(int i);

    int size();
}
