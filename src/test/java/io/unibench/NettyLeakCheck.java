package io.unibench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Makes a Netty buffer leak fail the test run instead of only logging it. Registered for every test class (service
 * file + {@code junit.jupiter.extensions.autodetection.enabled}); surefire runs the suite with
 * {@code -Dio.netty.leakDetection.level=paranoid}, so every buffer is tracked.
 *
 * <p>Its class initializer installs a leak detector factory before any test touches a buffer (Jupiter loads the
 * autodetected extensions before it runs the first class; Netty creates the {@code ByteBuf} detector when the
 * buffer classes initialize). The detectors it makes record every leak they report. Netty reports a leak only once
 * the garbage collector has collected the unreleased buffer and a later allocation polls the reference queue, so
 * after each class {@link #afterAll} asks for a collection, allocates and releases one buffer, and fails the class
 * if a leak was recorded (most likely its own; possibly an earlier class's that the collector only now reclaimed:
 * the message shows Netty's access records, which name the code).
 */
public final class NettyLeakCheck implements AfterAllCallback {
    private static final Queue<String> LEAKS = new ConcurrentLinkedQueue<>();

    static {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<String> leaks = collect(1);
        if (!leaks.isEmpty()) {
            throw new AssertionError("Netty buffer leak detected after " + context.getDisplayName() + " ("
                    + leaks.size() + "):\n" + String.join("\n", leaks));
        }
    }

    /**
     * Runs {@code rounds} collections (each followed by an allocation that makes the detectors report what was
     * collected) or fewer when a leak shows up, and returns the leaks recorded since the last call.
     */
    public static List<String> collect(int rounds) {
        for (int i = 0; i < rounds && LEAKS.isEmpty(); i++) {
            System.gc();
            ByteBuf probe = ByteBufAllocator.DEFAULT.buffer(1);
            probe.release();
        }
        List<String> out = new ArrayList<>();
        for (String leak; (leak = LEAKS.poll()) != null; ) out.add(leak);
        return out;
    }

    private static final class RecordingFactory extends ResourceLeakDetectorFactory {
        @Override
        @SuppressWarnings("deprecation") // the one abstract method; the non-deprecated ones delegate to it
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                   long maxActive) {
            return new Recording<>(resource, samplingInterval);
        }
    }

    /** Netty's detector, reporting whatever the logger's level, and remembering what it reported. */
    private static final class Recording<T> extends ResourceLeakDetector<T> {
        Recording(Class<?> resourceType, int samplingInterval) {
            super(resourceType, samplingInterval);
        }

        @Override
        protected boolean needReport() {
            return true;
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            LEAKS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected." + records);
            super.reportTracedLeak(resourceType, records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            LEAKS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected.");
            super.reportUntracedLeak(resourceType);
        }
    }
}
