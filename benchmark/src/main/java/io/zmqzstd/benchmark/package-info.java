/** zmq-zstd benchmark. */
package io.zmqzstd.benchmark;
