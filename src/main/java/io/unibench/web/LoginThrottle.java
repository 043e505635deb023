package io.unibench.web;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Failed sign-ins per client (its address): the first {@value #FREE} are free, then each further failure makes the
 * client wait 1 s, 2 s, 4 s … (at most {@value #MAX_WAIT_MS} ms) before its next attempt is even looked at. A
 * success, or {@value #FORGET_MS} ms without a failure, forgets the client. At most {@value #MAX_CLIENTS} clients
 * are remembered (the oldest are forgotten first), so a flood of addresses cannot grow the heap.
 */
final class LoginThrottle {
    static final int FREE = 5;
    static final long MAX_WAIT_MS = 300_000;
    static final long FORGET_MS = 900_000;
    static final int MAX_CLIENTS = 10_000;

    private record State(int failures, long last) {}

    private final LongSupplier clock;
    private final Map<String, State> clients = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, State> eldest) {
            return size() > MAX_CLIENTS;
        }
    };

    LoginThrottle(LongSupplier clock) {
        this.clock = clock;
    }

    /** Milliseconds the client must still wait before an attempt is looked at; 0 when it may try now. */
    synchronized long waitMs(String client) {
        State s = current(client);
        if (s == null || s.failures() < FREE) return 0;
        long wait = Math.min(MAX_WAIT_MS, 1000L << Math.min(30, s.failures() - FREE));
        return Math.max(0, s.last() + wait - clock.getAsLong());
    }

    synchronized void failed(String client) {
        State s = current(client);
        clients.put(client, new State(s == null ? 1 : s.failures() + 1, clock.getAsLong()));
    }

    synchronized void succeeded(String client) {
        clients.remove(client);
    }

    private State current(String client) {
        State s = clients.get(client);
        if (s != null && clock.getAsLong() - s.last() >= FORGET_MS) {
            clients.remove(client);
            return null;
        }
        return s;
    }
}
