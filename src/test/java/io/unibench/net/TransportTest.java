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
    void anUnknownNameIsRefusedAsBadInputWithTheProperty() {
        assertThatThrownBy(() -> Transport.choose("uring"))
                .isInstanceOf(io.unibench.BadInputException.class)
                .hasMessage("-Dunibench.transport must be auto, epoll or nio, got uring");
    }

    /** The CLI reports it like any bad input: one line, exit 2, no stack trace. */
    @Test
    void theCliReportsABadTransportInOneLineWithExitTwo() {
        String before = System.getProperty(Transport.PROPERTY);
        System.setProperty(Transport.PROPERTY, "bogus");
        try {
            var out = new java.io.StringWriter();
            var err = new java.io.StringWriter();
            String[] args = {"perf", "--url", "http://127.0.0.1:9/v1/chat/completions", "--model", "m",
                    "--no-test-connection", "--no-db", "--number", "1", "--parallel", "1"};
            int exit = io.unibench.cli.Main.execute(args,
                    new java.io.PrintWriter(out, true), new java.io.PrintWriter(err, true));
            assertThat(exit).isEqualTo(2);
            assertThat(err.toString().strip())
                    .isEqualTo("unibench: -Dunibench.transport must be auto, epoll or nio, got bogus");
        } finally {
            if (before == null) System.clearProperty(Transport.PROPERTY);
            else System.setProperty(Transport.PROPERTY, before);
        }
    }
}
