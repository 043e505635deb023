package io.unibench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The leak check can fail: a buffer leaked on purpose is caught, and named by its touch hint. */
class NettyLeakCheckTest {

    @Test
    void aLeakedBufferIsCaught() {
        NettyLeakCheck.collect(1); // start clean
        String hint = "deliberate-leak-" + UUID.randomUUID();
        leak(hint);
        // the collector reclaims the buffer at a time of its choosing: a bounded number of rounds
        List<String> leaks = NettyLeakCheck.collect(50);
        assertThat(leaks).as("the deliberate leak was not reported").anyMatch(l -> l.contains(hint));
        // collect() drained it: the after-class check of this class sees no leak
        assertThat(leaks).allMatch(l -> l.contains(hint));
    }

    private static void leak(String hint) {
        ByteBuf buf = ByteBufAllocator.DEFAULT.buffer(16);
        buf.writeInt(42);
        buf.touch(hint); // never released
    }
}
