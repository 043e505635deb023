package io.unibench.scenario;

import io.unibench.store.RunRecorder;

/**
 * Where a scenario run's measurements go in the run history: one stored run per provider (each is a target of its
 * own, with its model and URL), whose points are that provider's scenario × level runs.
 */
@FunctionalInterface
public interface ProviderRecorders {
    /** Nothing stored ({@code --no-db}). */
    ProviderRecorders NONE = (provider, url) -> RunRecorder.disabled();

    /** A started recorder for the provider's run (or a disabled one). */
    RunRecorder open(BenchConfig.Provider provider, String url);
}
