/*
 * The C ceiling for PipelineBenchmark: the same end-to-end pipeline written directly against libzmq and
 * libzstd, doing the same work per message as the Java contestants:
 *
 *   sender thread: writes the message's sequence number (8 bytes, little-endian) into the first bytes of
 *     its payload copy, compresses it with a reused ZSTD_CCtx (level L, Frame_Content_Size set, the
 *     trained dictionary loaded once when given) into a reused buffer, and zmq_send()s it on PUSH
 *     (libzmq copies the frame; blocks at the high-water mark, default 1000).
 *   main thread: zmq_msg_recv()s on PULL into a reused zmq_msg_t, reads the content size from the frame
 *     header, decompresses with a reused ZSTD_DCtx into a reused buffer, and checks every message on
 *     arrival: decompressed length equal to SIZE and sequence number equal to the expected one.
 *
 * The payload and dictionary are the Java benchmarks' own bytes, written by
 * `java -cp benchmarks.jar io.zmqzstd.benchmark.ExportPayload DIR` (see run.sh). The first 10% of the
 * messages are warm-up; the rest are timed. tcp is loopback (127.0.0.1, ephemeral port), one libzmq I/O
 * thread, as in the Java benchmarks.
 *
 * With PIPELINE_REF_FLOW=credit in the environment, the sender is held to PipelineBenchmark's stream
 * flow: it may send at most BATCH (500) + lead messages more than the receiver has taken in whole
 * batches, lead being 4 MiB of payload, at least 2 and at most 500 messages (PipelineBenchmark.lead);
 * the receiver grants 500 more after every 500 it has checked, and a sender out of credit waits on a
 * condition variable. Without it (PIPELINE_REF_FLOW=free, the default) the sender runs free: it is
 * held back only by libzmq's high-water marks (1000 each side) and the kernel's tcp buffers, which over
 * loopback let megabytes of frames queue in the receiving socket.
 *
 * With PIPELINE_REF_AFFINITY=split in the environment, the sender thread runs on CPU 0 and every other
 * thread (the receiving main thread, libzmq's I/O and reaper threads, which inherit the main thread's
 * mask) on CPU 1: PipelineBenchmark's -p affinity=split.
 *
 * Build: gcc -O2 -o pipeline_ref pipeline_ref.c -lzmq -lzstd -lpthread
 * Run:   [PIPELINE_REF_AFFINITY=split] ./pipeline_ref PAYLOAD_FILE SIZE LEVEL tcp|inproc MESSAGES [DICT_FILE]
 * Prints one line: size, level, transport, dictionary, msgs/s, payload MB/s (MB = 10^6 bytes), the
 * compression ratio over all messages, and the libzmq and libzstd versions.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>
#include <zstd.h>

static void *ctx;
static char endpoint[256];
static const char *payload;
static size_t size;
static int level;
static long messages;
static void *dict;
static size_t dict_size;
static size_t compressed_total; /* written by the sender, read after join */

static int split_affinity;

/* PIPELINE_REF_FLOW=credit: the messages the sender may have sent so far (see the comment above). */
#define BATCH 500
static int credit;
static long granted;
static pthread_mutex_t grant_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t grant_cond = PTHREAD_COND_INITIALIZER;

/* The sender, before message i: waits until the receiver has granted it. */
static void await_credit(long i) {
    if (i < __atomic_load_n(&granted, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&grant_lock);
    while (i >= __atomic_load_n(&granted, __ATOMIC_ACQUIRE)) pthread_cond_wait(&grant_cond, &grant_lock);
    pthread_mutex_unlock(&grant_lock);
}

/* The receiver: lets the sender send n more messages. */
static void grant(long n) {
    pthread_mutex_lock(&grant_lock);
    __atomic_store_n(&granted, granted + n, __ATOMIC_RELEASE);
    pthread_cond_signal(&grant_cond);
    pthread_mutex_unlock(&grant_lock);
}

/* Restricts the calling thread to one CPU. */
static void pin_self(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) { perror("sched_setaffinity"); exit(1); }
}

static void die(const char *what) { fprintf(stderr, "%s: %s\n", what, zmq_strerror(zmq_errno())); exit(1); }

/* The stamp of io.zmqzstd.benchmark.Stamp: the sequence number, little-endian, in the first 8 bytes. */
static void stamp_write(unsigned char *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (unsigned char) (v >> (8 * i)); }
static uint64_t stamp_read(const unsigned char *p) { uint64_t v = 0; for (int i = 7; i >= 0; i--) v = (v << 8) | p[i]; return v; }

static void *sender(void *arg) {
    (void) arg;
    if (split_affinity) pin_self(0);
    void *push = zmq_socket(ctx, ZMQ_PUSH);
    if (!push || zmq_connect(push, endpoint) != 0) die("connect");
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
    if (dict) ZSTD_CCtx_loadDictionary(cctx, dict, dict_size);
    unsigned char *message = malloc(size);
    memcpy(message, payload, size);
    size_t cap = ZSTD_compressBound(size);
    char *buf = malloc(cap);
    size_t total = 0;
    for (long i = 0; i < messages; i++) {
        if (credit) await_credit(i);
        stamp_write(message, (uint64_t) i);
        size_t n = ZSTD_compress2(cctx, buf, cap, message, size);
        if (ZSTD_isError(n)) { fprintf(stderr, "compress: %s\n", ZSTD_getErrorName(n)); exit(1); }
        if (zmq_send(push, buf, n, 0) < 0) die("send");
        total += n;
    }
    compressed_total = total;
    int linger = -1;
    zmq_setsockopt(push, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(push);
    ZSTD_freeCCtx(cctx);
    free(buf);
    free(message);
    return NULL;
}

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
    if (argc < 6) { fprintf(stderr, "usage: %s PAYLOAD_FILE SIZE LEVEL tcp|inproc MESSAGES [DICT_FILE]\n", argv[0]); return 2; }
    size = strtoul(argv[2], NULL, 10);
    level = atoi(argv[3]);
    const char *transport = argv[4];
    messages = atol(argv[5]);
    if (size < 8) { fprintf(stderr, "SIZE must be at least 8 (the sequence stamp)\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    char *p = malloc(size);
    size_t got = fread(p, 1, size, f);
    fclose(f);
    if (got != size) { fprintf(stderr, "%s: %zu bytes, SIZE=%zu: export the payload of this size\n", argv[1], got, size); return 2; }
    payload = p;
    if (argc > 6) {
        FILE *d = fopen(argv[6], "rb");
        if (!d) { perror(argv[6]); return 2; }
        fseek(d, 0, SEEK_END); dict_size = ftell(d); fseek(d, 0, SEEK_SET);
        dict = malloc(dict_size);
        if (fread(dict, 1, dict_size, d) != dict_size) { perror("dict"); return 2; }
        fclose(d);
    }

    const char *affinity = getenv("PIPELINE_REF_AFFINITY");
    split_affinity = affinity && strcmp(affinity, "split") == 0;
    const char *flow = getenv("PIPELINE_REF_FLOW");
    if (flow && strcmp(flow, "credit") != 0 && strcmp(flow, "free") != 0) {
        fprintf(stderr, "PIPELINE_REF_FLOW must be credit or free: %s\n", flow); return 2;
    }
    credit = flow && strcmp(flow, "credit") == 0;
    if (credit) {
        long lead = (4L << 20) / (long) size;
        granted = BATCH + (lead < 2 ? 2 : lead > BATCH ? BATCH : lead);
    }
    if (split_affinity) pin_self(1); /* before libzmq starts its threads: they inherit CPU 1 */
    ctx = zmq_ctx_new();
    void *pull = zmq_socket(ctx, ZMQ_PULL);
    if (strcmp(transport, "inproc") == 0) {
        strcpy(endpoint, "inproc://pipeline-ref");
        if (zmq_bind(pull, endpoint) != 0) die("bind");
    } else if (strcmp(transport, "tcp") == 0) {
        if (zmq_bind(pull, "tcp://127.0.0.1:*") != 0) die("bind");
        size_t len = sizeof endpoint;
        zmq_getsockopt(pull, ZMQ_LAST_ENDPOINT, endpoint, &len);
    } else {
        fprintf(stderr, "transport must be tcp or inproc: %s\n", transport); return 2;
    }
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    if (dict) ZSTD_DCtx_loadDictionary(dctx, dict, dict_size);
    unsigned char *out = malloc(size);
    zmq_msg_t msg;
    zmq_msg_init(&msg);

    pthread_t t;
    pthread_create(&t, NULL, sender, NULL);
    long warmup = messages / 10;
    double start = 0;
    for (long i = 0; i < messages; i++) {
        if (i == warmup) start = now();
        if (zmq_msg_recv(&msg, pull, 0) < 0) die("recv");
        const void *frame = zmq_msg_data(&msg);
        size_t frame_size = zmq_msg_size(&msg);
        /* As the Java receivers: size the output from the header, refuse what does not fit. */
        unsigned long long declared = ZSTD_getFrameContentSize(frame, frame_size);
        if (declared == ZSTD_CONTENTSIZE_UNKNOWN || declared == ZSTD_CONTENTSIZE_ERROR || declared > size) {
            fprintf(stderr, "message %ld: unusable content size %llu\n", i, declared); return 1;
        }
        size_t n = ZSTD_decompressDCtx(dctx, out, (size_t) declared, frame, frame_size);
        if (ZSTD_isError(n) || n != size || stamp_read(out) != (uint64_t) i) {
            fprintf(stderr, "bad message %ld: length=%zu, sequence=%llu\n", i, ZSTD_isError(n) ? 0 : n,
                    (unsigned long long) stamp_read(out));
            return 1;
        }
        if (credit && (i + 1) % BATCH == 0) grant(BATCH);
    }
    double secs = now() - start;
    pthread_join(t, NULL);
    long measured = messages - warmup;
    int major, minor, patch;
    zmq_version(&major, &minor, &patch);
    printf("flow=%s affinity=%s size=%zu level=%d transport=%s dictionary=%s msgs_per_s=%.0f payload_MB_per_s=%.1f ratio=%.3f libzmq=%d.%d.%d libzstd=%s\n",
           credit ? "credit" : "free", split_affinity ? "split" : "none", size, level, transport, dict ? "trained" : "none", measured / secs, measured * (double) size / secs / 1e6,
           (double) size * messages / (double) compressed_total, major, minor, patch, ZSTD_versionString());
    zmq_msg_close(&msg);
    zmq_close(pull);
    zmq_ctx_term(ctx);
    ZSTD_freeDCtx(dctx);
    return 0;
}
