package io.unibench.schedule;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Sliding-window send limits of one webhook, as the services publish them (a Feishu custom bot: 5 a second and
 * 100 a minute; DingTalk and WeCom: 20 a minute; Slack: about one a second). Not thread-safe: the notifier's one
 * delivery thread owns it. Per process: two processes sending to one bot share its real limit, which answers them
 * with an error that the outbox retries.
 */
final class RateLimit {
    private record Window(int count, long millis) {}

    private final Window[] windows;
    private final Deque<Long> sent = new ArrayDeque<>();
    private final long longest;

    private RateLimit(Window... windows) {
        this.windows = windows;
        long l = 0;
        for (Window w : windows) l = Math.max(l, w.millis);
        this.longest = l;
    }

    static RateLimit of(Channel.Type type) {
        return switch (type) {
            case FEISHU, LARK -> new RateLimit(new Window(5, 1000), new Window(100, 60_000));
            case DINGTALK, WECOM -> new RateLimit(new Window(20, 60_000));
            case SLACK -> new RateLimit(new Window(1, 1000));
            case WEBHOOK -> new RateLimit();
        };
    }

    /** The earliest moment a send is allowed ({@code nowMillis} when it is allowed now). */
    long allowedAt(long nowMillis) {
        while (!sent.isEmpty() && sent.peekFirst() <= nowMillis - longest) sent.removeFirst();
        long at = nowMillis;
        for (Window w : windows) {
            int inWindow = 0;
            Long oldestInWindow = null;
            // the sends of the last w.millis, newest first; the count-th newest decides when one more fits
            var it = sent.descendingIterator();
            while (it.hasNext()) {
                long t = it.next();
                if (t <= nowMillis - w.millis) break;
                inWindow++;
                if (inWindow == w.count) oldestInWindow = t;
            }
            if (inWindow >= w.count) at = Math.max(at, oldestInWindow + w.millis);
        }
        return at;
    }

    void record(long nowMillis) {
        sent.addLast(nowMillis);
    }
}
