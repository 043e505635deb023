package io.unibench.client;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Thread CPU per reply of the event loop's parse path alone (SseParser with the claimer, ChunkInterpreter, one
 * ChunkScanner per "connection" kept across replies, as Exchange wires them) over static reply bodies fed in 16 KiB
 * reads, single-threaded. In the client's package to reach its package-private classes, so it is not run by the
 * source launcher (another class loader) but compiled onto the classpath: see run.sh beside it.
 * Usage: ReplyParseBench FILE:API[,FILE:API...] SECONDS (API: CHAT, RESPONSES, ANTHROPIC), three rounds each.
 */
public class ReplyParseBench {
    public static void main(String[] args) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        var threads = ManagementFactory.getThreadMXBean();
        long seconds = Long.parseLong(args[1]);
        for (int round = 0; round < 3; round++) {
            for (String spec : args[0].split(",")) {
                String[] parts = spec.split(":");
                byte[] body = Files.readAllBytes(Path.of(parts[0]));
                ApiFormat api = ApiFormat.valueOf(parts[1]);
                ChunkScanner scanner = new ChunkScanner();
                long cpu0 = threads.getCurrentThreadCpuTime();
                long start = System.nanoTime();
                long replies = 0;
                while (System.nanoTime() - start < seconds * 1_000_000_000L) {
                    for (int k = 0; k < 100; k++, replies++) {
                        ChunkInterpreter in = new ChunkInterpreter(mapper, scanner, api);
                        SseParser sse = new SseParser((byte[] b, int framing, int off, int len) -> in.onEvent(b, framing, off, len, 1),
                                (byte[] b, int off, int limit) -> in.claim(b, off, limit, 1));
                        for (int from = 0; from < body.length; from += 16384) {
                            sse.feed(body, from, Math.min(16384, body.length - from));
                        }
                        sse.finish();
                        if (in.onEndOfStream() != ChunkInterpreter.Outcome.DONE || in.usage() == null) {
                            throw new AssertionError(spec + ": " + in.failureMessage());
                        }
                    }
                }
                double us = (threads.getCurrentThreadCpuTime() - cpu0) / 1000.0 / replies;
                System.out.printf("round %d  %-10s %-40s %7.2f µs/reply%n", round, api, parts[0], us);
            }
        }
    }
}
