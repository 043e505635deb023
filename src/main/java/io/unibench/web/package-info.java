/**
 * The self-hosted platform ({@code unibench serve}): REST API and server-rendered pages over the run history
 * ({@code io.unibench.store}). Pages are JTE templates under {@code src/main/jte}, compiled at build time; charts
 * are uPlot from its WebJar; everything is served from the jar. Every figure shown comes from what the store kept
 * for a run (its points' summaries, percentile rows, tables and down-sampled timeline), so a page of a run of a
 * million requests reads a few kilobytes, never the requests.
 */
package io.unibench.web;
