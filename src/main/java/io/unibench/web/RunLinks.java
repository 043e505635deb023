package io.unibench.web;

import io.unibench.store.RunRow;

import java.util.List;

/**
 * The runs of one service run of several providers: the queued run holds the first provider's results and links the
 * other providers' runs (one stored run per provider, as {@code unibench run --config} stores them); each of those
 * names the queued run it is part of.
 *
 * @param partOf the queued run this one is part of, or null
 * @param linked the other providers' runs of this queued run, in the order they started (empty for the others)
 */
public record RunLinks(String partOf, List<RunRow> linked) {
    public RunLinks {
        linked = List.copyOf(linked);
    }
}
