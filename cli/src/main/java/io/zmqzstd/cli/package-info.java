/** zmq-zstd cli. */
package io.zmqzstd.cli;
