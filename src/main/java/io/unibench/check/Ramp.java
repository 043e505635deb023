package io.unibench.check;

import io.unibench.client.ClientResult;
import io.unibench.client.ErrorClass;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds a server's concurrency limit when {@code --concurrency-limit} does not give it: 1, 2, 4, … concurrent short
 * streams until a level is refused (429/503) or its median time to first token passes three times the lone
 * request's plus 50 ms (requests queue instead of running). The limit is the last level below that; {@link #CAP}
 * when none was reached (an estimate: the server may take more).
 */
final class Ramp {
    static final int CAP = 256;
    private static final int MAX_TOKENS = 16;

    private Ramp() {}

    static int find(Target target) {
        double base = Double.NaN;
        int last = 1;
        for (int level = 1; level <= CAP; level *= 2) {
            List<Ask> asks = new ArrayList<>();
            for (int i = 0; i < level; i++) asks.add(Ask.of(target.model(), Prompts.SHORT + " #" + i, MAX_TOKENS));
            List<ClientResult> results = target.burst(asks);
            if (refused(results)) return last;
            double ttft = medianTtft(results);
            if (level == 1) base = ttft;
            else if (ttft > 3 * base + 0.05) return last;
            last = level;
        }
        return CAP;
    }

    static boolean refused(List<ClientResult> results) {
        for (ClientResult r : results) {
            if (r.errorClass() == ErrorClass.HTTP_429 || r.httpStatus() == 503) return true;
        }
        return false;
    }

    private static double medianTtft(List<ClientResult> results) {
        double[] t = results.stream().filter(r -> r.success() && r.firstTokenNanos() != io.unibench.Moments.ABSENT)
                .mapToDouble(r -> (r.firstTokenNanos() - r.startNanos()) / 1e9).sorted().toArray();
        return t.length == 0 ? Double.NaN : t[t.length / 2];
    }
}
