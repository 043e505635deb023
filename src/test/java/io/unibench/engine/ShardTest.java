package io.unibench.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unibench.BadInputException;
import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.SplittableRandom;

/** Slicing is deterministic and disjoint: over many (N, total) pairs, no index twice, none lost, rates sum to λ. */
class ShardTest {
    @Test
    void slicesCoverEveryIndexExactlyOnceForManySpecs() {
        SplittableRandom rnd = new SplittableRandom(21);
        for (int trial = 0; trial < 2_000; trial++) {
            int n = 1 + rnd.nextInt(64);
            long total = trial < 200 ? trial : rnd.nextLong(1, 200_000);
            BitSet seen = new BitSet();
            long sum = 0;
            long expectedNext = 0;
            for (int i = 0; i < n; i++) {
                Shard s = new Shard(i, n);
                long first = s.first(total);
                long share = s.share(total);
                assertThat(first).as("shard %s of %d: contiguous", s, total).isEqualTo(expectedNext);
                assertThat(share).isBetween(total / n, total / n + 1);
                for (long k = first; k < first + share; k++) {
                    assertThat(seen.get((int) k)).as("index %d in two shards (N=%d, total=%d)", k, n, total).isFalse();
                    seen.set((int) k);
                }
                expectedNext = first + share;
                sum += share;
                // deterministic: the same spec gives the same slice
                assertThat(new Shard(i, n).first(total)).isEqualTo(first);
            }
            assertThat(sum).isEqualTo(total);
            assertThat(seen.cardinality()).as("none lost (N=%d, total=%d)", n, total).isEqualTo((int) total);
        }
    }

    @Test
    void ratesSumToLambda() {
        SplittableRandom rnd = new SplittableRandom(7);
        for (int trial = 0; trial < 1_000; trial++) {
            int n = 1 + rnd.nextInt(64);
            double lambda = rnd.nextDouble(0.01, 100_000);
            double sum = 0;
            for (int i = 0; i < n; i++) sum += new Shard(i, n).rate(lambda);
            assertThat(sum).isCloseTo(lambda, org.assertj.core.data.Offset.offset(lambda * 1e-12));
        }
    }

    @Test
    void wholeRunIsOneShard() {
        assertThat(Shard.WHOLE.share(1234)).isEqualTo(1234);
        assertThat(Shard.WHOLE.first(1234)).isZero();
        assertThat(Shard.WHOLE.rate(7.5)).isEqualTo(7.5);
    }

    @Test
    void parsesTheFlagAndRefusesBadValuesNamingIt() {
        assertThat(Shard.parse("--shard", "2/4")).isEqualTo(new Shard(2, 4));
        for (String bad : new String[] {"4/4", "-1/4", "1/0", "1", "a/b", "/4", "1/"}) {
            assertThatThrownBy(() -> Shard.parse("--shard", bad)).isInstanceOf(BadInputException.class)
                    .hasMessageStartingWith("--shard '" + bad + "': expected I/N");
        }
    }
}
