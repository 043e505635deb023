package io.unibench.scrape;

/**
 * One scrape mapped to the common series; NaN where the engine does not expose one.
 *
 * @param epochMs        when the scrape's reply arrived
 * @param running        requests running (in the batch)
 * @param waiting        requests queued, not yet running
 * @param kvUse          KV-cache use, 0..1
 * @param prefixHits     counter: prompt tokens served from the prefix cache
 * @param prefixQueries  counter: prompt tokens looked up in the prefix cache
 * @param prefixHitRate  the engine's own hit-rate gauge, 0..1 (SGLang; old vLLM), when it has no counters
 * @param generated      counter: tokens generated
 * @param prompt         counter: prompt tokens processed
 */
public record ServerSample(long epochMs, double running, double waiting, double kvUse, double prefixHits,
                           double prefixQueries, double prefixHitRate, double generated, double prompt) {}
