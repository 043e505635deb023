package io.unibench.engine.live;

import io.unibench.engine.LoadPlan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(30) // a hang guard only: nothing here waits on the clock
class EventHubTest {
    static final LoadPlan PLAN = new LoadPlan(8, 100, 0, null, 0);

    static PointStarted started(int point) {
        return new PointStarted(point, 3, "parallel_8_number_100", PLAN);
    }

    static Snapshot snapshot(int point, long completed) {
        return new Snapshot(point, completed, completed, completed, 0, Map.of(), 0, 1, 1,
                Snapshot.Quantiles.NONE, Snapshot.Quantiles.NONE, Snapshot.ClientLoad.UNKNOWN);
    }

    static class Collecting implements RunListener {
        final List<RunEvent> events = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(RunEvent event) {
            events.add(event);
        }
    }

    @Test
    void everySubscriberGetsEveryEventInOrderAndCloseDrainsThem() {
        EventHub hub = new EventHub();
        Collecting a = new Collecting();
        Collecting b = new Collecting();
        hub.subscribe(a);
        hub.subscribe(b);
        List<RunEvent> sent = List.of(started(0), snapshot(0, 1), snapshot(0, 2),
                new PointFinished(0, "p", null), new RunFinished(RunStatus.FINISHED, null));
        sent.forEach(hub::publish);
        hub.close();
        assertThat(a.events).containsExactlyElementsOf(sent);
        assertThat(b.events).containsExactlyElementsOf(sent);
    }

    @Test
    void aSlowSubscriberLosesOnlySnapshotsAndNeverStallsPublish() throws Exception {
        EventHub hub = new EventHub(4, Duration.ofSeconds(10));
        CountDownLatch release = new CountDownLatch(1);
        Collecting slow = new Collecting() {
            @Override
            public void onEvent(RunEvent event) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                super.onEvent(event);
            }
        };
        Collecting fast = new Collecting();
        hub.subscribe(slow);
        hub.subscribe(fast);
        hub.publish(started(0));
        for (int i = 1; i <= 100; i++) hub.publish(snapshot(0, i)); // returns although "slow" takes nothing
        hub.publish(new PointFinished(0, "p", null));
        hub.publish(new RunFinished(RunStatus.STOPPED, "cancelled"));
        release.countDown();
        hub.close();

        for (Collecting c : List.of(slow, fast)) {
            assertThat(c.events.getFirst()).isEqualTo(started(0));
            assertThat(c.events.subList(c.events.size() - 2, c.events.size())).containsExactly(
                    new PointFinished(0, "p", null), new RunFinished(RunStatus.STOPPED, "cancelled"));
            assertThat(snapshotsOf(c)).isSorted().endsWith(100L); // the newest state always gets through
        }
        assertThat(snapshotsOf(slow)).hasSizeLessThanOrEqualTo(4);
    }

    private static List<Long> snapshotsOf(Collecting c) {
        return c.events.stream().filter(e -> e instanceof Snapshot).map(e -> ((Snapshot) e).completed()).toList();
    }

    @Test
    void aLateSubscriberSeesTheCurrentPointAndItsLatestSnapshotFirst() {
        EventHub hub = new EventHub();
        hub.publish(started(0));
        hub.publish(snapshot(0, 5));
        hub.publish(new PointFinished(0, "p0", null));
        hub.publish(started(1));
        hub.publish(snapshot(1, 1));
        hub.publish(snapshot(1, 2));
        Collecting late = new Collecting();
        hub.subscribe(late);
        hub.publish(snapshot(1, 3));
        hub.close();
        assertThat(late.events).containsExactly(started(1), snapshot(1, 2), snapshot(1, 3));
    }

    @Test
    void aSubscriberAfterTheEndGetsTheFinalStateAndItsSubscriptionEnds() {
        EventHub hub = new EventHub();
        hub.publish(started(2));
        hub.publish(snapshot(2, 9));
        hub.publish(new PointFinished(2, "p2", null));
        hub.publish(new RunFinished(RunStatus.FAILED, "connection refused"));
        hub.close();
        Collecting late = new Collecting();
        CountDownLatch last = new CountDownLatch(1);
        hub.subscribe(e -> {
            late.onEvent(e);
            if (e instanceof RunFinished) last.countDown();
        });
        await(last);
        assertThat(late.events).containsExactly(started(2), snapshot(2, 9), new PointFinished(2, "p2", null),
                new RunFinished(RunStatus.FAILED, "connection refused"));
        assertThatThrownBy(() -> hub.publish(snapshot(2, 10))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anUnsubscribedListenerGetsNothingMore() throws Exception {
        EventHub hub = new EventHub();
        Collecting gone = new Collecting();
        CountDownLatch first = new CountDownLatch(1);
        AutoCloseable sub = hub.subscribe(e -> {
            gone.onEvent(e);
            first.countDown();
        });
        hub.publish(started(0));
        await(first);
        sub.close();
        hub.publish(snapshot(0, 1));
        hub.close();
        assertThat(gone.events).containsExactly(started(0));
    }

    @Test
    void aFailingListenerKeepsReceivingAndDoesNotDisturbOthers() {
        EventHub hub = new EventHub();
        Collecting failing = new Collecting() {
            @Override
            public void onEvent(RunEvent event) {
                super.onEvent(event);
                if (event instanceof PointStarted) throw new IllegalStateException("listener bug");
            }
        };
        Collecting other = new Collecting();
        hub.subscribe(failing);
        hub.subscribe(other);
        hub.publish(started(0));
        hub.publish(new RunFinished(RunStatus.FINISHED, null));
        hub.close();
        assertThat(failing.events).hasSize(2);
        assertThat(other.events).hasSize(2);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
