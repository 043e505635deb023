package io.unibench.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ByteBufArraysTest {

    /** Every byte, in order, as the sink saw it; and the size of each piece. */
    private static final class Collector implements ByteBufArrays.Sink {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final List<Integer> pieces = new ArrayList<>();

        @Override
        public void accept(byte[] b, int offset, int length) {
            bytes.write(b, offset, length);
            pieces.add(length);
        }
    }

    private static byte[] sample(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (i * 31 + 7);
        return b;
    }

    @Test
    void aDirectBufferLargerThanTheScratchArrayArrivesWholeInPiecesFromItsIndex() {
        byte[] all = sample(200_000);
        ByteBuf buf = ByteBufAllocator.DEFAULT.directBuffer(all.length).writeBytes(all);
        Collector c = new Collector();
        ByteBufArrays.forEachPiece(buf, 2, all.length - 2, c);
        assertThat(c.bytes.toByteArray()).isEqualTo(java.util.Arrays.copyOfRange(all, 2, all.length));
        assertThat(c.pieces).containsExactly(65536, 65536, 65536, 200_000 - 2 - 3 * 65536);
        assertThat(buf.readerIndex()).isZero(); // the caller's indices are left alone
        buf.release();
    }

    @Test
    void aHeapBufferIsHandedOverInPlaceFromItsArrayOffset() {
        byte[] all = "XXXdata: x\n\n".getBytes(StandardCharsets.US_ASCII);
        ByteBuf buf = Unpooled.wrappedBuffer(all).slice(1, all.length - 1);
        List<byte[]> arrays = new ArrayList<>();
        List<Integer> offsets = new ArrayList<>();
        ByteBufArrays.forEachPiece(buf, 2, buf.readableBytes() - 2, (b, offset, length) -> {
            arrays.add(b);
            offsets.add(offset);
        });
        assertThat(arrays).containsExactly(all);
        assertThat(offsets).containsExactly(3);
    }

    @Test
    void aCompositeBufferOfSeveralPartsIsCopiedToo() {
        CompositeByteBuf buf = Unpooled.compositeBuffer();
        buf.addComponent(true, Unpooled.directBuffer().writeBytes("data: a".getBytes(StandardCharsets.US_ASCII)));
        buf.addComponent(true, Unpooled.directBuffer().writeBytes("b\n\n".getBytes(StandardCharsets.US_ASCII)));
        Collector c = new Collector();
        ByteBufArrays.forEachPiece(buf, 0, buf.readableBytes(), c);
        assertThat(c.bytes.toString(StandardCharsets.US_ASCII)).isEqualTo("data: ab\n\n");
        buf.release();
    }

    @Test
    void aSinkCopyingAnotherBufferOnTheSameThreadDoesNotShareTheScratchArray() {
        List<String> outer = new ArrayList<>();
        List<String> inner = new ArrayList<>();
        ByteBuf nested = Unpooled.directBuffer().writeBytes("inner".getBytes(StandardCharsets.US_ASCII));
        ByteBuf buf = Unpooled.directBuffer().writeBytes("outer".getBytes(StandardCharsets.US_ASCII));
        ByteBufArrays.forEachPiece(buf, 0, 5, (b, offset, length) -> {
            ByteBufArrays.forEachPiece(nested, 0, 5, (b2, o2, l2) -> inner.add(new String(b2, o2, l2, StandardCharsets.US_ASCII)));
            outer.add(new String(b, offset, length, StandardCharsets.US_ASCII)); // still intact after the nested copy
        });
        assertThat(outer).containsExactly("outer");
        assertThat(inner).containsExactly("inner");
        buf.release();
        nested.release();
    }

    @Test
    void aStreamFedOneByteAtATimeThroughDirectBuffersGivesEveryEvent() {
        byte[] all = ("data: {\"a\":\"héllo\"}\r\n\r\ndata: 日本語 🎉\n\n").getBytes(StandardCharsets.UTF_8);
        List<String> events = new ArrayList<>();
        SseParser parser = new SseParser(events::add);
        for (byte b : all) {
            ByteBuf buf = Unpooled.directBuffer(1).writeByte(b);
            ByteBufArrays.forEachPiece(buf, 0, 1, parser::feed);
            buf.release();
        }
        parser.finish();
        assertThat(events).containsExactly("{\"a\":\"héllo\"}", "日本語 🎉");
    }
}
