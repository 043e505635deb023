/**
 * Aggregation of {@link io.unibench.metrics.RequestRecord}s into what {@code unibench perf} reports.
 *
 * <p>Compatible with {@code evalscope perf}: the same summary keys, percentile columns and labels, the same
 * nearest-rank percentile method ({@link io.unibench.metrics.Percentiles#nearestRankHigh}), the same workload
 * windows. Deliberate differences, each fixing a known evalscope defect:
 * <ul>
 *   <li>No NaN anywhere: an undefined value is {@code null}.</li>
 *   <li>TPOT leaves out replies of ≤ 1 token (evalscope averages in a 0 for them).</li>
 *   <li>TTFT is the first chunk carrying content or reasoning text; evalscope's "first chunk of any kind" is
 *       reported separately as {@code Avg First Chunk (ms)} / {@code First Chunk (ms)}.</li>
 *   <li>ITL is reported per chunk ({@code Avg ITL (ms)}, {@code ITL (ms)}, as evalscope) and per token
 *       ({@code Avg ITL per Token (ms)}, {@code ITL per Token (ms)}): every interval between two text-carrying
 *       chunks divided by its request's tokens per chunk, (completion − 1) / (chunks − 1). With one token per
 *       chunk both are equal; with speculative decoding or chunked streaming, per-chunk ITL overstates the time
 *       per token by the tokens-per-chunk factor.</li>
 *   <li>With a schedule (--rate), latency and TTFT are also measured from the scheduled send time, so queueing
 *       in the client (coordinated omission) is visible: {@code Avg Queue Delay (ms)},
 *       {@code Avg Latency incl. Queue (s)}, {@code Avg TTFT incl. Queue (ms)} and matching percentile columns.</li>
 *   <li>Incremental aggregation: O(1) per record plus its chunks, percentiles only at the end (evalscope
 *       recomputes its whole snapshot per request).</li>
 *   <li>Percentile columns in seconds keep 4 decimals instead of 2.</li>
 * </ul>
 */
package io.unibench.metrics;
