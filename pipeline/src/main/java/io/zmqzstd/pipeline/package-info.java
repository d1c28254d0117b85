/** zmq-zstd pipeline. */
package io.zmqzstd.pipeline;
