package io.unibench.net;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TransportTest {

    @Test
    void nioIsChosenWhenAskedFor() {
        assertThat(Transport.choose("NIO")).isEqualTo(Transport.NIO);
        assertThat(Transport.NIO.socketChannel()).isEqualTo(NioSocketChannel.class);
        assertThat(Transport.NIO.serverSocketChannel()).isEqualTo(NioServerSocketChannel.class);
    }

    @Test
    void autoTakesEpollExactlyWhenItsNativeLibraryLoads() {
        assertThat(Transport.choose("auto")).isEqualTo(Epoll.isAvailable() ? Transport.EPOLL : Transport.NIO);
    }

    /** The Linux x86-64 build ships the native library: CI and the quick start run on epoll. */
    @Test
    void epollLoadsOnLinuxX86() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("os.name").equals("Linux")
                && System.getProperty("os.arch").equals("amd64"));
        assertThat(Epoll.isAvailable()).as("epoll unavailable: %s", Epoll.unavailabilityCause()).isTrue();
        assertThat(Transport.choose("epoll").socketChannel()).isEqualTo(EpollSocketChannel.class);
    }

    @Test
    void anUnknownNameIsRefusedWithTheProperty() {
        assertThatThrownBy(() -> Transport.choose("uring"))
                .hasMessage("-Dunibench.transport must be auto, epoll or nio, got uring");
    }
}
