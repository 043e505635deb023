package io.unibench.sim;

/** 64-bit hashing helpers shared by the prefix cache and the output RNG seeding. */
final class Mix {
    private Mix() {}

    /** SplitMix64's finalizer: a bijection on 64-bit values with full avalanche. */
    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /** Chains {@code value} into hash {@code h}. */
    static long combine(long h, long value) {
        return mix64(h ^ (value * 0x9E37_79B9_7F4A_7C15L) ^ 0x2545_F491_4F6C_DD1DL);
    }

    static long hashTokens(int[] tokens) {
        long h = 0x243F_6A88_85A3_08D3L;
        for (int t : tokens) h = combine(h, t & 0xFFFF_FFFFL);
        return combine(h, tokens.length);
    }
}
