/**
 * Finding and opening the system's libzstd and libzmq: one mechanism that the codec and the
 * transport share, with one clear error when a library is missing.
 */
package io.zmqzstd.nativelib;
