/**
 * Sockets shared by the client and the simulator: which Netty transport and TLS provider this machine runs on, and the
 * certificate a TLS server presents (the simulator's, the client warm-up's loopback responder's).
 */
package io.unibench.net;
