#!/usr/bin/env python3
"""Recompute figures BENCHMARKS.md quotes from the committed raw results and report every mismatch.

Each check names a passage of BENCHMARKS.md (text that must appear in it verbatim; or of README.md, where
README.md repeats a figure) and builds the same text from the files under benchmark/results/ that the passage
cites (JMH JSON and text logs, async-profiler's collapsed stacks through flame-summary.py, schedstat.py,
iothread.sh, cpu-budget.sh, cpu-by-library.sh and soak outputs, the outputs of the run.sh scripts beside an
experiment's results, interleaved.py's rows of interleaved.sh runs, and the tables that tables.py, verdict.py,
hop-table.py and alloc-floor.py make from the JSON, through their own code). A check fails when the passage
is no longer in the document (reworded: update the check) or when the data give other figures. Reads files
only; runs no benchmark.

    python3 benchmark/scripts/check-figures.py [REPOSITORY_ROOT]   # exit status 1 on any mismatch
"""
import collections
import decimal
import functools
import glob
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
RESULTS = os.path.join(ROOT, 'benchmark', 'results')


def rows(path):
    """The rows of one JMH JSON file under benchmark/results/."""
    with open(os.path.join(RESULTS, path)) as f:
        return json.load(f)


def matching(path, method, **params):
    """The rows of a JMH JSON file with this method and these parameters."""
    return [r for r in rows(path) if r['benchmark'].endswith('.' + method)
            and all(r.get('params', {}).get(k) == str(v) for k, v in params.items())]


def score(path, method, **params):
    """The primary score of the one row of a JMH JSON file with this method and these parameters.

    Throughput comes back as ops/s; an average time (avgt) as its reciprocal, so that every ratio of
    two scores reads 'how many times as fast'."""
    found = matching(path, method, **params)
    if len(found) != 1:
        raise ValueError('%s: %d rows for %s %s' % (path, len(found), method, params))
    s = found[0]['primaryMetric']['score']
    return 1.0 / s if found[0]['mode'] == 'avgt' else s


def ratios(paths_a, paths_b, method, **params):
    """Per-round ratios score(a) / score(b), the rounds paired in order."""
    return [score(a, method, **params) / score(b, method, **params) for a, b in zip(paths_a, paths_b)]


def fmt(values, digits=2):
    return ', '.join('%.*f' % (digits, v) for v in values)


def med(values, digits=3):
    return '%.*f' % (digits, statistics.median(values))


def span(values, digits=2):
    """'lowest\u2013highest' of VALUES."""
    return '%.*f\u2013%.*f' % (digits, min(values), digits, max(values))


CHECKS = []


def old_new(folder, prefix, rounds):
    """The JSON paths of an alternated old/new experiment: ([FOLDER PREFIX-rN-old.json], [... -new.json])."""
    return tuple([folder + '%s-r%d-%s.json' % (prefix, i, kind) for i in rounds] for kind in ('old', 'new'))


def ns_range(paths, method):
    """'lowest–highest' nanoseconds per operation of an average-time METHOD over PATHS."""
    ns = [1.0 / score(path, method) for path in paths]
    return '%s–%s' % (thousands(min(ns)), thousands(max(ns)))


def check(section, build):
    """Register a check: build() returns the passages (strings) BENCHMARKS.md must contain, or a pair of lists:
    those and the passages README.md must contain."""
    CHECKS.append((section, build))


# --- "What the codec's call guard costs" (2026-11-27) ----------------------------------------------

GUARD = 'experiments/2026-11-27-codec-guard-and-array-payloads/'


def codec_guard():
    new = [GUARD + 'codec-r%d-new.json' % i for i in range(1, 6)]
    old = [GUARD + 'codec-r%d-old.json' % i for i in range(1, 6)]
    out = []
    for method in ('compress', 'decompress'):
        r64 = ratios(new, old, method, contestant='zmqzstd-segment', size=64)
        r1k = ratios(new, old, method, contestant='zmqzstd-segment', size=1024)
        out.append('| %s | %s (median **%s**) | %s (**%s**) |' % (method, fmt(r64), med(r64), fmt(r1k), med(r1k)))
    peers = []
    for i in range(1, 4):
        p = GUARD + 'peers-r%d.json' % i
        peers.append(score(p, 'decompress', contestant='zmqzstd-segment', size=64)
                     / score(p, 'decompress', contestant='aircompressor-native', size=64))
    out.append('%s and %sx aircompressor' % (', '.join('%.2fx' % v for v in sorted(peers)[:-1]), '%.2f' % sorted(peers)[-1]))
    return out


check("What the codec's call guard costs", codec_guard)


# --- "Array and ByteBuffer payloads": raw frames straight from arrays (2026-11-27) ---------------

RAW = 'experiments/2026-11-27-raw-frames-from-arrays/'


def alloc_range(paths, method, **params):
    """'min–max' of gc.alloc.rate.norm (B/msg, three decimals) over the rows of PATHS with this method and parameters."""
    values = [row['secondaryMetrics']['gc.alloc.rate.norm']['score'] for path in paths
              for row in matching(path, method, **params)]
    return '%.3f–%.3f' % (min(values), max(values))


def ab_row(label, folder, prefix, rounds, method, **params):
    """One row of an old/new table of alternated forks: 'label | old range | new range | ratios, median | B/msg'."""
    old_paths = [folder + '%s-r%d-old.json' % (prefix, i) for i in rounds]
    new_paths = [folder + '%s-r%d-new.json' % (prefix, i) for i in rounds]
    old = [score(path, method, **params) for path in old_paths]
    new = [score(path, method, **params) for path in new_paths]
    r = [n / o for n, o in zip(new, old)]
    return '| %s | %s–%s | %s–%s | %.3f–%.3f, median **%s** | %s / %s |' % (
        label, thousands(min(old)), thousands(max(old)), thousands(min(new)), thousands(max(new)), min(r), max(r),
        med(r), alloc_range(old_paths, method, **params), alloc_range(new_paths, method, **params))


def raw_frames_from_arrays():
    return [ab_row(transport, RAW, 'raw64', range(1, 12), 'transfer', transport=transport)
            for transport in ('inproc', 'tcp')]


check('Array and ByteBuffer payloads: raw frames from arrays', raw_frames_from_arrays)


# --- "Receiving into your own memory" (2026-11-27) ---------------------------------------------------

RECEIVE_INTO = 'experiments/2026-11-27-receive-into-check/'


def receive_into_check():
    def median(folder, **params):  # the median of new / old over a folder's rounds, as ab-summary.py prints it
        rounds = range(1, len(glob.glob(os.path.join(RESULTS, RECEIVE_INTO, folder, 'into-r*-new.json'))) + 1)
        return med([score(RECEIVE_INTO + folder + 'into-r%d-new.json' % i, 'transfer', **params)
                    / score(RECEIVE_INTO + folder + 'into-r%d-old.json' % i, 'transfer', **params) for i in rounds])
    return [ab_row('1 KiB, tcp', RECEIVE_INTO + 'quiet-tcp/', 'into', range(1, 13), 'transfer', size=1024, transport='tcp'),
            '(inproc 1 KiB median %s, tcp 1 KiB %s with rounds' % (median('busy-both/', transport='inproc'),
                                                                   median('busy-both/', transport='tcp')),
            'inproc 64 B %s and 1 KiB %s with rounds' % (median('busy-small/', size=64), median('busy-small/', size=1024))]


check('Receiving into your own memory', receive_into_check)


# --- "What the XSUB subscription check costs" (2026-11-27) -------------------------------------------

XSUB_CHECK = 'experiments/2026-11-27-xsub-subscription-check/'


def xsub_subscription_check():
    rounds = range(1, 11)
    old_paths, new_paths = old_new(XSUB_CHECK, 'call', rounds)
    speed = ratios(new_paths, old_paths, 'sendReceive64')
    return ['| `SocketCallBenchmark.sendReceive64`, ns | %s | %s | %.3f–%.3f, median **%s** | %s / %s |' % (
        ns_range(old_paths, 'sendReceive64'), ns_range(new_paths, 'sendReceive64'), min(speed), max(speed),
        med(speed), alloc_range(old_paths, 'sendReceive64'), alloc_range(new_paths, 'sendReceive64'))] + [
        ab_row('`TransportBenchmark` %s 64 B inproc, msg/s' % strategy, XSUB_CHECK, 'xfer', rounds, 'sendReceive',
               strategy=strategy) for strategy in ('zeroCopyPooled', 'message')]


check('What the XSUB subscription check costs', xsub_subscription_check)


# --- "What the flag checks and the fault wrappers cost" (2026-11-28) ----------------------------------

FLAG_CHECKS = 'experiments/2026-11-28-flag-checks/quiet/'


def flag_checks():
    old_paths, new_paths = old_new(FLAG_CHECKS, 'call', range(1, 11))
    out = []
    for method in ('sendReceive64', 'receiveWouldBlock'):
        speed = ratios(new_paths, old_paths, method)
        out.append('| %s | %s | %s | **%s** | %s / %s |' % (
            ns_range(old_paths, method), ns_range(new_paths, method), fmt(speed, 3), med(speed),
            alloc_range(old_paths, method), alloc_range(new_paths, method)))
    return out


check('What the flag checks and the fault wrappers cost', flag_checks)


# --- "Publishing with a topic": the parallel sender's failure paths (2026-11-27) -------------------

PARALLEL_PUBLISH = 'experiments/2026-11-27-parallel-publish-failure-paths/'


def parallel_publish_failure_paths():
    return [ab_row(label, PARALLEL_PUBLISH, 'pub', range(1, 9), 'publish', size=size, compressionThreads=3)
            for label, size in (('1 KiB', 1024), ('64 KiB', 65536))]


check('Publishing with a topic: the parallel sender\'s failure paths', parallel_publish_failure_paths)


def low_high(values, digits=2):
    """VALUES' lowest and highest at DIGITS decimals, 'lowest–highest', or one figure where the two print alike."""
    low, high = '%.*f' % (digits, min(values)), '%.*f' % (digits, max(values))
    return low if low == high else '%s–%s' % (low, high)


TOPICS = 'experiments/2026-11-27-publish-topics/'


def publish_topics():
    """The main table: PublishBenchmark's msg/s per topic form over PipelineBenchmark's zmqzstd (no topic), round by round."""
    tables = script('tables')
    out, costs = [], []
    for size in (1024, 65536):
        for transport in ('inproc', 'tcp'):
            for form, label in (('bytes', '`byte[]`'), ('segment', 'segment')):
                publish = [TOPICS + 'publish-r%d.json' % i for i in (1, 2, 3)]
                pipeline = [TOPICS + 'pipeline-r%d.json' % i for i in (1, 2, 3)]
                with_topic = [score(path, 'publish', size=size, transport=transport, topicForm=form) for path in publish]
                r = [w / score(path, 'transfer', size=size, transport=transport) for w, path in zip(with_topic, pipeline)]
                alloc = [[tables.alloc(row) for path in paths for row in rows(path) if row['params'].get('size') == str(size)
                          and row['params']['transport'] == transport and row['params'].get('topicForm', form) == form]
                         for paths in (publish, pipeline)]
                out.append('| %s %s | %s | %s K | %s (%s**%s**) | %s | %s |' % (
                    tables.size_label(size), transport, label, low_high([w / 1000 for w in with_topic], 1), fmt(r),
                    '' if out else 'median ', med(r), low_high(alloc[0]), low_high(alloc[1])))
                if size == 1024:
                    costs.append(1 - statistics.median(r))
    out.append('The topic part costs a 1 KiB message %.0f–%.0f %%' % (100 * min(costs), 100 * max(costs)))
    return out


check('Publishing with a topic: the topic forms against no topic', publish_topics)


SEGMENT_TOPIC = 'experiments/2026-11-27-segment-topic-paths/'


def segment_topic_paths():
    """The builds before and after the segment topic's own publish, fork by fork: new / old per round, medians, their scatter."""
    def per_round(kind, method, **params):
        files = [SEGMENT_TOPIC + '%s-r%d-%%s.json' % (kind, i) for i in range(1, 5)]
        return ratios([f % 'new' for f in files], [f % 'old' for f in files], method, **params)

    cells = [per_round('pipeline', 'transfer', size=size, compressionThreads=threads) for threads in (0, 3) for size in (64, 1024)]
    cells.append(per_round('publish', 'publish', topicForm='bytes', size=1024, transport='tcp'))
    alloc = [script('tables').alloc(r) for path in glob.glob(os.path.join(RESULTS, SEGMENT_TOPIC, '*-r*-*.json'))
             for r in rows(os.path.relpath(path, RESULTS))]
    return ['64 B / 1 KiB on one compressing thread %sx / %sx, with 3 workers (`-p compressionThreads=3`) %sx / %sx; '
            '`PublishBenchmark -p topicForm=bytes -p size=1024 -p transport=tcp` %sx (medians of the per-round ratios, which scatter '
            '%s); %s B/msg either way' % tuple([med(r) for r in cells] + [span([v for r in cells for v in r]), span(alloc)])]


check('Publishing with a topic: the segment topic\'s own publish, before and after', segment_topic_paths)


# --- "Dictionaries for small messages": the prose under tables.py's trained-dictionary table ----------

def key_values(path):
    """The key=value lines of a text file under benchmark/results/ (pipeline-ratios.txt, c/pipeline_ref.txt), as dicts."""
    with open(os.path.join(RESULTS, path)) as f:
        return [dict(w.rstrip(',').split('=', 1) for w in line.split() if '=' in w) for line in f]


def dictionaries():
    tables = script('tables')

    def measured(path, **fields):  # the lines of pipeline-ratios.txt or c/pipeline_ref.txt with a ratio and these fields
        return [kv for kv in key_values(path) if 'ratio' in kv and all(kv.get(k) == str(v) for k, v in fields.items())]

    def ratio(path, **fields):  # the one ratio those lines give
        found = {kv['ratio'] for kv in measured(path, **fields)}
        if len(found) != 1:
            raise ValueError('%s: ratios %s for %s' % (path, sorted(found), fields))
        return found.pop()

    def tcp3(size, contestant, dictionary):  # a line of pipeline-ratios.txt: tcp, level 3, compressing every size
        return measured('pipeline-ratios.txt', contestant=contestant, size=size, transport='tcp', level=3, dictionary=dictionary,
                        rawFrameBelowBytes=0)[0]

    def ours(size, contestant, dictionary):
        return tcp3(size, contestant, dictionary)['ratio']

    def exact(size, dictionary):  # zmqzstd's ratio from the byte counts, for the figures given to two digits
        kv = tcp3(size, 'zmqzstd', dictionary)
        return float(kv['uncompressedBytes']) / float(kv['compressedBytes'])

    def c(size):
        return ratio('c/pipeline_ref.txt', library='system', size=size, transport='tcp', dictionary='trained')

    def frame(contestant):  # compressed bytes per 1 KiB frame with the dictionary
        kv = tcp3(1024, contestant, 'trained')
        return float(kv['compressedBytes']) / float(kv['messages'])

    def msg_s(name, contestant, affinity, size):
        return [r['primaryMetric']['score'] for r in rows(name + '.json') if r['params']['contestant'] == contestant
                and r['params']['affinity'] == affinity and r['params']['transport'] == 'tcp' and r['params']['size'] == str(size)][0]

    c_ref = tables.load_c(os.path.join(RESULTS, 'c', 'pipeline_ref.txt'), 'system')
    against_c = {size: ['%.2f' % (msg_s('pipeline-trained', 'zmqzstd', a, size) / c_ref[(a, str(size), '3', 'tcp', 'trained')])
                        for a in ('none', 'split')] for size in (64, 1024)}
    against_libzmq = ['%.2fx' % (msg_s('pipeline-trained', 'zmqzstd', a, 64) / msg_s('pipeline-trained', 'libzmqBytes', a, 64))
                      for a in ('none', 'split')]
    before_after = [tables.fmt_rate(msg_s(name, 'zmqzstd', a, 1024)) for a in ('none', 'split')
                    for name in ('pipeline', 'pipeline-trained')]
    return ['turns the 64-byte event from expanding (ratio %s) to shrinking (%s zmqzstd, %s zstd-jni, %s the C program' % (
                ours(64, 'zmqzstd', 'none'), ours(64, 'zmqzstd', 'trained'), ours(64, 'jeromqZstdjni', 'trained'), c(64)),
            'and 1 KiB from %.2f to %.2f (zmqzstd) / %.2f (zstd-jni) / %.2f (C)' % (
                exact(1024, 'none'), exact(1024, 'trained'), float(ours(1024, 'jeromqZstdjni', 'trained')), float(c(1024))),
            'zmqzstd at 1 KiB over tcp goes from %s to %s msg/s (`affinity=none`) and from %s to %s (`split`)' % tuple(before_after),
            '(%s–%sx at 64 B, %s–%sx at 1 KiB; runs made apart)' % tuple(sorted(against_c[64]) + sorted(against_c[1024])),
            'behind `libzmqBytes` on the same libzmq (%s, %s)' % tuple(against_libzmq),
            '(1 KiB: %.1f B per frame for zmqzstd, %.1f B for zstd-jni' % (frame('zmqzstd'), frame('jeromqZstdjni')),
            # "Findings and recommendations"
            '64 B from ratio %s to %.2f and 1 KiB from %.2f to %.2f, and twice the messages per second at 1 KiB over tcp '
            '(%s \u2192 %s msg/s)' % (ours(64, 'zmqzstd', 'none'), exact(64, 'trained'), exact(1024, 'none'), exact(1024, 'trained'),
                                     before_after[0], before_after[1])], [
            'A trained dictionary turns a 64-byte JSON event from ratio %.2f into %.2f' % (exact(64, 'none'), exact(64, 'trained'))]


check('Dictionaries for small messages: ratios, speeds and frame sizes', dictionaries)


# --- "Incompressible payloads": summary.py's per-JVM figures of experiments/incompressible/ -----------

@functools.lru_cache(maxsize=None)
def incompressible_runs():
    """summary.py's output (run in its folder, as it is written): (kind, size) -> way -> (x per JVM, msg/s per JVM)."""
    folder = os.path.join(RESULTS, 'experiments', 'incompressible')
    text = subprocess.run([sys.executable, 'summary.py'], cwd=folder, capture_output=True, text=True, check=True).stdout
    found, cell = {}, None
    for line in text.splitlines():
        fields = line.replace(',', '').replace('[', ' ').replace(']', ' ').split()
        if not line.startswith(' ') and 'JVMs:' in fields:
            cell = found.setdefault((fields[0], int(fields[1])), {})
        elif line.startswith('  ') and len(fields) > 2 and fields[1] == 'x':
            x = [float(v) for v in fields[2:fields.index('median')]]
            cell[fields[0]] = (x, [float(v) for v in fields[fields.index('msg/s') + 1:]])
    return found


def incompressible():
    runs = incompressible_runs()

    def raw_over_compressed(kind, size, way):  # per JVM, the way's x over the same way's with the option off
        return [a / b for a, b in zip(runs[(kind, size)][way][0], runs[(kind, size)][way + '~'][0])]

    def cell(kind, size, way, digits=2):
        r = raw_over_compressed(kind, size, way)
        lower = ', lower in %d of %d' % (sum(v < 1 for v in r), len(r)) if digits == 3 else ''
        return '%.*fx (%.2f–%.2f%s)' % (digits, statistics.median(r), min(r), max(r), lower)

    out = []
    for kind, size in sorted(runs, key=lambda k: (k[0], k[1])):
        one = runs[(kind, size)]
        out.append('| %s, %s | %s | %s | %d | %.2fx / %.2fx |' % (
            kind, script('tables').size_label(size), cell(kind, size, 'zmqzstd', 3 if (kind, size) == ('random', 65536) else 2),
            cell(kind, size, 'zmqzstd@3'), len(one['zmqzstd'][0]), statistics.median(one['zmqzstd'][0]),
            statistics.median(one['zmqzstd~'][0])))
    rates = [runs[('random', 1024)][way][1] for way in ('zmqzstd', 'zmqzstd~')]
    out.append('twice the random messages (%.0f–%.0f K msg/s against %.0f–%.0f K)' % (
        min(rates[0]) / 1000, max(rates[0]) / 1000, min(rates[1]) / 1000, max(rates[1]) / 1000))
    telemetry = ['%.2f' % statistics.median(raw_over_compressed('telemetry', size, way))
                 for size in (1024, 65536) for way in ('zmqzstd', 'zmqzstd@3')]
    level = '%s–%sx' % (min(telemetry), max(telemetry))
    out.append('(%s medians), as they should be' % level)
    random = {(size, way): statistics.median(raw_over_compressed('random', size, way))
              for size in (1024, 4096) for way in ('zmqzstd', 'zmqzstd@3')}
    # "Findings and recommendations"
    out.append('one compressing thread moves %.1fx the messages of compressing them (3 workers %.2fx), 4 KiB %.2fx' % (
        random[(1024, 'zmqzstd')], random[(1024, 'zmqzstd@3')], random[(4096, 'zmqzstd')]))
    out.append('on telemetry the check never looks (level, %s)' % level)
    return out, ['%.1fx the messages of compressing them at 1 KiB on one compressing thread, %.2fx at 4 KiB' % (
        random[(1024, 'zmqzstd')], random[(4096, 'zmqzstd')])]


check('Incompressible payloads: raw frames against compressing', incompressible)


# --- "What the shared call guard costs" (2026-11-27) -----------------------------------------------

SHARED = 'experiments/2026-11-27-shared-call-guard/'


def shared_rounds(run, kind, rounds, method, **params):
    files = [SHARED + run + '/%s-r%d-%%s.json' % (kind, i) for i in range(1, rounds + 1)]
    return ratios([f % 'new' for f in files], [f % 'old' for f in files], method, **params)


def shared_call_guard():
    single, four, ids = 'run3-single-thread', 'run1-four-benchmarks', 'run2-thread-id-variant'
    out = []
    d64 = shared_rounds(single, 'codec', 5, 'decompress', size=64)
    out.append('| %s | **%s** |' % (fmt(d64), med(d64)))
    for method in ('sendReceive64', 'receiveWouldBlock'):
        r = shared_rounds(single, 'socket', 5, method)
        out.append('| %s | **%s** |' % (fmt(r), med(r)))
    c64 = shared_rounds(four, 'codec', 4, 'compress', size=64)
    c1k = shared_rounds(four, 'codec', 4, 'compress', size=1024)
    out.append('| %s / %s | **%s** / **%s** |' % (fmt(c64), fmt(c1k), med(c64), med(c1k)))
    d1k = shared_rounds(four, 'codec', 4, 'decompress', size=1024)
    out.append('| %s | **%s** |' % (fmt(d1k), med(d1k)))
    for size in (64, 1024):
        inproc = shared_rounds(four, 'pipeline', 4, 'transfer', size=size, transport='inproc')
        tcp = shared_rounds(four, 'pipeline', 4, 'transfer', size=size, transport='tcp')
        out.append('| %s / %s | **%s** / **%s** |' % (fmt(inproc), fmt(tcp), med(inproc), med(tcp)))
    for transport in ('inproc', 'tcp'):
        first = shared_rounds(four, 'transport', 4, 'sendReceive', strategy='zeroCopyPooled', transport=transport)
        second = shared_rounds(ids, 'transport', 4, 'sendReceive', strategy='zeroCopyPooled', transport=transport)
        out.append('| %s; %s | **%s** |' % (fmt(first), fmt(second), med(first + second)))
    both = [shared_rounds(four, 'transport', 4, 'sendReceive', strategy='byteArray', transport=t)
            + shared_rounds(ids, 'transport', 4, 'sendReceive', strategy='byteArray', transport=t) for t in ('inproc', 'tcp')]
    out.append('| %s / %s | **%s** / **%s** |' % (fmt(both[0]), fmt(both[1]), med(both[0]), med(both[1])))
    # the single-thread times, median of five forks, ns: three guards, shared guard, the thread-id variant
    ns = {v: [statistics.median(1e9 / score(SHARED + single + '/%s-r%d-%s.json' % (kind, i, v), method, **params) / 1e9
                                for i in range(1, 6)) for kind, method, params in
              (('codec', 'decompress', {'size': 64}), ('socket', 'sendReceive64', {}), ('socket', 'receiveWouldBlock', {}))]
          for v in ('old', 'new', 'id')}
    out.append('64 B (%.1f ns before, %.1f ns after)' % (ns['old'][0], ns['new'][0]))
    out.append('`SocketCallBenchmark.sendReceive64` (%.1f ns, %.1f ns)' % (ns['old'][1], ns['new'][1]))
    out.append('`SocketCallBenchmark.receiveWouldBlock` (%.0f ns, %.0f ns)' % (ns['old'][2], ns['new'][2]))
    out.append('64 B decompression %.1f ns (against %.1f and %.1f), `sendReceive64` %.0f ns, `receiveWouldBlock` %.0f ns'
               % (ns['id'][0], ns['old'][0], ns['new'][0], ns['id'][1], ns['id'][2]))
    return out


check('What the shared call guard costs', shared_call_guard)


# --- Summary, "Codec" row and "The summary in detail": the codec verdicts ------------------------

CODEC_SIZES = (64, 1024, 65536, 1048576)
PEERS = ('zstdjni-direct', 'aircompressor-native')


def codec_verdict(folder, check_name, method, size, rounds=3):
    """Median over the rounds of zmqzstd-segment's ops/s over the faster peer's, as verdict.sh does."""
    per_round = []
    for i in range(1, rounds + 1):
        path = '%s/%s-r%d.json' % (folder, check_name, i)
        ours = score(path, method, contestant='zmqzstd-segment', size=size)
        per_round.append(ours / max(score(path, method, contestant=p, size=size) for p in PEERS))
    return per_round


def codec_medians(folder, small_check, large_check, large_folder=None):
    """The five medians (64 B to 64 MiB) of compress and of decompress, two digits each."""
    out = {}
    for method in ('compress', 'decompress'):
        values = [statistics.median(codec_verdict(folder, small_check, method, s)) for s in CODEC_SIZES]
        values.append(statistics.median(codec_verdict(large_folder or folder, large_check, method, 67108864)))
        out[method] = ['%.2f' % v for v in values]
    return out


def codec_summary():
    lib157 = codec_medians('verdict-codec-lib157', 'codec-lib', 'codec-lib-64m', 'verdict-codec-lib157-64m')
    lib154 = codec_medians('verdict-codec-lib157', 'codec', 'codec-64m', 'verdict-codec-lib157-64m')
    samelib = codec_medians('verdict', 'codec-samelib', 'codec-samelib-64m')
    earlier = codec_medians('verdict', 'codec', 'codec-64m')
    out = []
    for m in (lib157, lib154):
        out.append('compress %sx, decompress %sx' % (' / '.join(m['compress']), ' / '.join(m['decompress'])))
    for m in (lib157, lib154, samelib, earlier):
        for method in ('compress', 'decompress'):
            out.append('| %s | %s |' % (method, ' | '.join(m[method])))
    above_64 = [float(v) for method in ('compress', 'decompress') for v in samelib[method][1:]]
    out.append('On the very file aircompressor bundles: %.2f\u2013%.2fx from 1 KiB up' % (min(above_64), max(above_64)))
    # README.md: the 1.5.7 medians but 64 B decompression as a range, and the two cells where 1.5.4 falls behind
    rest = [float(v) for v in lib157['compress'] + lib157['decompress'][1:]]
    readme = ['64 MiB (verdict medians %.2f\u2013%.2fx, %sx at 64-byte decompression)' % (min(rest), max(rest), lib157['decompress'][0]),
              "Debian 12's 1.5.4 it decompresses 1 KiB frames at %sx and compresses 1 MiB at %sx" % (
                  lib154['decompress'][1], lib154['compress'][3])]
    return out, readme


check('Summary: codec', codec_summary)


# --- Summary, "Pipeline speed" row and "The summary in detail": the pipeline verdicts ------------

PIPELINE_SIZES = (1024, 65536, 1048576)


def verdict_rounds(folder, check_name, method, key, ours, theirs, **params):
    """Per round of a verdict.sh check, the msg/s of ours over the fastest of theirs in the same JMH run."""
    per_round, i = [], 1
    while os.path.exists(os.path.join(RESULTS, '%s/%s-r%d.json' % (folder, check_name, i))):
        path = '%s/%s-r%d.json' % (folder, check_name, i)
        per_round.append(score(path, method, **{key: ours}, **params)
                         / max(score(path, method, **{key: p}, **params) for p in theirs))
        i += 1
    return per_round


def pipeline_rounds(folder, check_name, size, transport='tcp', ours='zmqzstd', theirs=('jeromqZstdjni',), **params):
    """Per round, zmqzstd's msg/s over the fastest of the named peers in the same JMH run."""
    return verdict_rounds(folder, check_name, 'transfer', 'contestant', ours, theirs, size=size, transport=transport, **params)


def with_range(values):
    return '%.2fx (%.2f\u2013%.2f)' % (statistics.median(values), min(values), max(values))


def pipeline_medians(folder, check_name, sizes=PIPELINE_SIZES, **kwargs):
    return ['%.2f' % statistics.median(pipeline_rounds(folder, check_name, s, **kwargs)) for s in sizes]


def pipeline_summary():
    out = []
    parallel = [pipeline_medians('verdict-parallel-2026-11-25', 'pipeline-parallel'),
                pipeline_medians('verdict-pipeline-io2', 'pipeline-parallel-tcp'),
                pipeline_medians('verdict-pipeline-2026-11-26d', 'pipeline-parallel-tcp')]
    out.append('%s / %s / %sx (5 rounds, 2026-11-25), %s / %s / %sx (4 rounds, 2026-11-26 morning), '
               '%s / %s / %sx (3 rounds, 2026-11-26 10:19 UTC)' % tuple(parallel[0] + parallel[1] + parallel[2]))
    peer = pipeline_medians('verdict-parallel-peer', 'pipeline-parallel-peer', theirs=('jeromqZstdjni', 'jeromqZstdjniParallel'))
    out.append('(or on one, where faster): %s / %s / %sx' % tuple(peer))
    one = [pipeline_medians('verdict-pipeline-2026-11-26c', 'pipeline'),
           pipeline_medians('verdict-pipeline-2026-11-26d', 'pipeline'),
           pipeline_medians('verdict-2026-11-26e', 'pipeline')]
    out.append('One compressing thread: %s / %s / %sx, %s / %s / %sx and %s / %s / %sx (three runs of 2026-11-26)'
               % tuple(one[0] + one[1] + one[2]))
    # the detail's rerun of 2026-11-25 at 39c85cc, with its 1 KiB range, and the same rounds at 64 B and inproc
    rerun = pipeline_rounds('verdict-parallel-2026-11-25', 'pipeline-parallel', 1024)
    small = pipeline_medians('verdict-parallel-2026-11-25', 'pipeline-parallel', sizes=(64,))
    inproc = pipeline_medians('verdict-parallel-2026-11-25', 'pipeline-parallel', sizes=(1024, 65536, 1048576, 64), transport='inproc')
    out.append('(5 rounds): tcp 1 KiB %.2fx (%.2f\u2013%.2f), 64 KiB %sx, 1 MiB %sx, 64 B %sx; inproc %sx, %sx, %sx, 64 B %sx'
               % ((statistics.median(rerun), min(rerun), max(rerun)) + tuple(parallel[0][1:] + small + inproc)))
    # the level-3 rounds that took turns with level 1, and those on libzstd 1.5.7
    level3 = pipeline_medians('verdict-parallel-l1', 'pipeline-parallel-tcp')
    level1 = pipeline_medians('verdict-parallel-l1', 'pipeline-parallel-l1')
    over = ' and '.join('%.2fx' % r for r in pipeline_rounds('verdict-parallel-l1', 'pipeline-parallel-l1', 65536) if r >= 2)
    out.append('1 KiB %sx, 64 KiB %sx (two rounds %s)' % (tuple(level1[:2]) + (over,)))
    out.append('1 MiB %sx, against %sx, %sx, %sx at level 3 in the same rounds' % tuple(level1[2:] + level3))

    def ranges(runs):  # per size, 'x' or 'lowest\u2013highest' over the runs, as README.md gives them
        return ' / '.join('%sx' % lo if lo == hi else '%s\u2013%sx' % (lo, hi)
                          for lo, hi in ((min(r[i] for r in runs), max(r[i] for r in runs)) for i in range(3)))

    batch = {cells[1]: cells[4] for cells, _ in verdict_rows('verdict', 'pipeline-batch')}
    readme = ['compressing thread %s (three runs of 2026-11-26); `ParallelCompressingSender` with 3 workers %s (two of those runs; '
              '%sx / %sx / %sx in 5 rounds the day before), and %sx / %sx / %sx against the peer compressing on three executor '
              'threads' % ((ranges(one), ranges(parallel[1:])) + tuple(parallel[0]) + tuple(peer)),
              'it is %sx at 1 KiB, %sx at 64 KiB and %sx at 1 MiB ("Scheduling")' % (batch['1 KiB'], batch['64 KiB'], batch['1 MiB'])]
    return out, readme


check('Summary: pipeline speed', pipeline_summary)


def like_for_like():
    """The like-for-like table of the pipeline target (verdicts of 2026-11-26)."""
    peer = [with_range(pipeline_rounds('verdict-parallel-peer', 'pipeline-parallel-peer', s,
                                       theirs=('jeromqZstdjni', 'jeromqZstdjniParallel'))) for s in PIPELINE_SIZES]
    reused = [with_range(pipeline_rounds('verdict-reused-read', 'pipeline-reused', s, theirs=('jeromqZstdjniReused',),
                                         compressionThreads=3)) for s in PIPELINE_SIZES]
    one = ['%.2fx' % statistics.median(pipeline_rounds('verdict-reused-read', 'pipeline-reused', s,
                                                         theirs=('jeromqZstdjniReused',), compressionThreads=0))
           for s in PIPELINE_SIZES]
    return ['| %s | %s | %s |' % tuple(peer), '| %s | %s | %s |' % tuple(reused), '| one thread | the same | the same | %s | %s | %s |' % tuple(one)]


check('The summary in detail: pipeline, like for like', like_for_like)


def transport_read():
    """Receivers that read every byte, JMH verdict transport-read (2026-11-26)."""
    def rounds(size, transport, read):
        return verdict_rounds('verdict-reused-read', 'transport-read', 'sendReceive', 'strategy', 'zeroCopyPooled',
                              ('byteArray',), size=size, transport=transport, read=read)

    inproc = ['%.2fx' % statistics.median(rounds(s, 'inproc', 'all')) for s in (1024, 65536, 262144)]
    stamp = ['%.2fx' % statistics.median(rounds(s, 'inproc', 'stamp')) for s in (65536, 262144)]
    tcp = ['%.2fx' % statistics.median(rounds(s, 'tcp', 'all')) for s in (1024, 65536, 262144)]
    tcp64 = rounds(65536, 'tcp', 'all')
    return ['JMH verdict (3 rounds): inproc 1 KiB %s, 64 KiB %s, 256 KiB %s (%s and %s with 8-byte receivers in the '
            'same rounds); tcp %s, %s, %s (%.2f\u2013%.2f at 64 KiB)' % tuple(inproc + stamp + tcp + [min(tcp64), max(tcp64)])]


check('The summary in detail: transport, receivers reading every byte', transport_read)


# --- Summary, "Pipeline within 10 % of C" row and its detail: benchmark/c/interleave.sh's output ----

def c_rounds(name):
    """The per-round zmqzstd/C ratios of a results/c/*.txt file, by (size, transport)."""
    found = {}
    with open(os.path.join(RESULTS, 'c', name)) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 6 and not line.startswith('#'):
                c, ours = float(fields[3]), float(fields[4])
                found.setdefault((int(fields[0]), fields[1]), []).append(ours / c)
    return found


def c_summary():
    credit, cubic, free = c_rounds('interleaved-credit.txt'), c_rounds('interleaved-credit-cubic.txt'), c_rounds('interleaved.txt')

    def m(rounds, size, transport):
        return '%.2fx' % statistics.median(rounds[(size, transport)])

    def min_max(rounds):
        ratios = sorted(statistics.median(rounds[(size, 'tcp')]) for size in (1024, 65536, 1048576))
        return '%.2f' % ratios[0], '%.2fx' % ratios[-1]

    tcp64 = credit[(64, 'tcp')]
    cubic64 = cubic[(64, 'tcp')]
    return (['tcp: 1 KiB %s, 64 KiB %s, 1 MiB %s; 64 B %s under' % (m(credit, 1024, 'tcp'), m(credit, 65536, 'tcp'),
                                                                 m(credit, 1048576, 'tcp'), m(credit, 64, 'tcp')),
            '(%s under `cubic`); inproc 64 B %s, 1 KiB %s' % (m(cubic, 64, 'tcp'), m(credit, 64, 'inproc'), m(credit, 1024, 'inproc')),
            'tcp: 64 B %s (%.2f\u2013%.2f), 1 KiB %s, 64 KiB %s, 1 MiB %s; inproc: 64 B %s, 1 KiB %s' % (
                m(credit, 64, 'tcp'), min(tcp64), max(tcp64), m(credit, 1024, 'tcp'), m(credit, 65536, 'tcp'),
                m(credit, 1048576, 'tcp'), m(credit, 64, 'inproc'), m(credit, 1024, 'inproc')),
            'the run before: tcp %s, %s, %s, %s, inproc %s, %s)' % tuple(
                m(free, s, t) for s, t in ((64, 'tcp'), (1024, 'tcp'), (65536, 'tcp'), (1048576, 'tcp'),
                                           (64, 'inproc'), (1024, 'inproc'))),
            'zmqzstd / C is %s at 64 B (%.2f\u2013%.2f) and %s at 1 KiB' % (m(cubic, 64, 'tcp'), min(cubic64), max(cubic64),
                                                                            m(cubic, 1024, 'tcp')),
            # Findings: the range over 1 KiB, 64 KiB and 1 MiB, held to the same flow control and running free
            'same pipeline written in C (%s\u2013%s over tcp, %s over inproc at 1 KiB, with the C sender held to the same flow '
            'control; %s\u2013%s and %s with it running free)' % (
                min_max(credit) + (m(credit, 1024, 'inproc'),) + min_max(free) + (m(free, 1024, 'inproc'),))], [
            'End to end over tcp zmqzstd moves %s, %s and %s the messages of the same pipeline written in C at 1 KiB, 64 KiB and '
            '1 MiB (same flow control, alternated runs); over inproc %s at 64 B and %s at 1 KiB; over tcp at 64 B %s under this '
            "machine's `bbr` congestion control and %s under Linux's default `cubic`" % (
                m(credit, 1024, 'tcp'), m(credit, 65536, 'tcp'), m(credit, 1048576, 'tcp'), m(credit, 64, 'inproc'),
                m(credit, 1024, 'inproc'), m(credit, 64, 'tcp'), m(cubic, 64, 'tcp'))])


check('Summary: pipeline within 10 % of C', c_summary)


# --- Summary, "Transport" row: the interleaved runs, summarised by interleaved.py from the raw JVM files ---

@functools.lru_cache(maxsize=None)
def interleaved_rows(folder, *pairs):
    """interleaved.py's rows for one results folder: (kind, transport or method, size, way) -> its cells from the JVMs
    on (JVMs, median, 95 % interval, min\u2013max, JVMs above 1, sign test p), without '**'."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'interleaved.py')
    text = subprocess.run([sys.executable, script, os.path.join(RESULTS, folder)] + list(pairs),
                          capture_output=True, text=True, check=True).stdout
    found = {}
    for line in text.splitlines():
        cells = [c.strip().strip('*') for c in line.strip().strip('|').split('|')]
        if len(cells) == 10 and cells[0] in ('transport', 'codec', 'pipeline'):
            found[tuple(cells[:4])] = cells[4:]
    return found


def interleaved(folder, *pairs):
    """The transport rows of interleaved_rows: way text -> (median, 95 % interval, JVMs ahead)."""
    return {key[1:]: (cells[1], cells[2], cells[4].split('/')[0])
            for key, cells in interleaved_rows(folder, *pairs).items() if key[0] == 'transport'}


def first_ten_jvms():
    """The 512 B cells of the 30-JVM interleaved run counted over its first ten JVMs only (j1..j10)."""
    with tempfile.TemporaryDirectory() as subset:
        for transport in ('tcp', 'inproc'):
            for jvm in range(1, 11):
                name = 'transport-%s-512-j%d.txt' % (transport, jvm)
                shutil.copy(os.path.join(RESULTS, 'interleaved', name), subset)
        rows = interleaved(subset)
    tcp, inproc = rows[('tcp', '512 B', 'zeroCopyPooled / byteArray')], rows[('inproc', '512 B', 'zeroCopyPooled / byteArray')]
    return ['After the first ten JVMs the 512 B cells were level too (%s and %s, %s/10 and %s/10)' % (
        tcp[0], inproc[0], tcp[2], inproc[2])]


check('Transport: the interleaved run after its first ten JVMs', first_ten_jvms)


def spin_before_park():
    """The spinning builds against the parking sender: results/experiments/spin-before-park's two JVMs of 20 rounds."""
    ratios, faster = [], {}
    for path in sorted(glob.glob(os.path.join(RESULTS, 'experiments', 'spin-before-park', 'ab-1024-r*.txt'))):
        with open(path) as f:
            text = f.read()
        ratios.extend(median for _, median in script('interleaved').jvm_medians(text).values())  # from the rounds
        for line in text.splitlines():
            if 'x_zmqzstd@3=' in line:
                way = line.split()[0]
                faster[way] = faster.get(way, 0) + int(line.split('faster_in=')[1].split('/')[0])
    if len(ratios) != 4:
        raise ValueError('spin-before-park: %d ratios, not 4' % len(ratios))
    slower = sorted(set(40 - n for n in faster.values()))
    figure = span(ratios, 3) + 'x'
    return ['measured **%s** of the sender that parks at once, slower in %s of each way\'s 40 rounds' % (
        figure, ' and '.join(str(n) for n in slower)), 'to keep the cores busier, measured %s)' % figure,
        'before parking was tried and measured %s, "What 1.3x at 1 KiB would take"' % figure]


check('Pipeline: spinning before parking', spin_before_park)


def codec_fresh_buffers():
    """Compression into 64 buffers in turn against one hot pair: results/experiments/codec-fresh-buffers-2026-11-23.txt."""
    hot, fresh, speeds, slower = [], [], [], 0
    with open(os.path.join(RESULTS, 'experiments', 'codec-fresh-buffers-2026-11-23.txt')) as f:
        for line in f:
            fields = dict(w.split('=', 1) for w in line.split() if '=' in w)
            if line.startswith('zmqzstd '):
                hot.append(float(fields['ns_per_call']) / 1000)
            elif line.startswith('zmqzstd-64-buffers '):
                fresh.append(float(fields['ns_per_call']) / 1000)
                speeds.append(fields['speed_vs_zmqzstd'])
                faster, rounds = fields['faster_in'].split('/')
                slower += int(rounds) - int(faster)
    return ['a compression took %.1f and %.1f \u00b5s against %.1f and %.1f \u00b5s (speed %sx and %sx, slower in %d of the %d rounds)'
            % (fresh[0], fresh[1], hot[0], hot[1], speeds[0], speeds[1], slower, 20 * len(speeds))]


check('Pipeline: the codec with fresh buffers at 64 KiB', codec_fresh_buffers)


def cpu_parallel():
    """The table 'Where the CPU goes at 1 KiB' from results/experiments/cpu-parallel/schedstat-1k-64k.md's four runs."""
    runs = schedstat_runs('experiments/cpu-parallel/schedstat-1k-64k.md')

    def one(run, name):
        """A role's µs per message: the last cell of every row of threads named NAME, summed."""
        return '%.1f' % sum(float(cells[-1]) for thread, cells in run['rows'] if thread == name)

    rows = []
    for size, label in ((1024, '1 KiB'), (65536, '64 KiB')):
        ours, peer = runs[('zmqzstd', size)], runs[('jeromqZstdjni', size)]
        small = size == 1024
        rows.append('| zmqzstd@3, %s | %s | **%s** | %s | %s | %s | %s | %s |' % (
            label, thousands(ours['score']), ours['per_op'], one(ours, 'zmqzstd-compres') + (' (3 workers)' if small else ''),
            one(ours, 'io.zmqzstd.benc'), one(ours, 'ZMQbg/IO/0') + (' (libzmq)' if small else ''),
            one(ours, 'zmqzstd-sender'), ours['busy']))
        rows.append('| JeroMQ + zstd-jni, %s | %s | **%s** | %s | %s | %s | \u2013 | %s |' % (
            label, thousands(peer['score']), peer['per_op'], one(peer, 'jeromq-sender') + (' (the sender)' if small else ''),
            one(peer, 'io.zmqzstd.benc'), one(peer, 'iothread-2') + (' (JeroMQ)' if small else ''), peer['busy']))
    for size, passage in ((1024, 'the throughput ratio (%.2fx) is the CPU ratio'), (65536, '(%.2fx in this pair of forks)')):
        rows.append(passage % (runs[('zmqzstd', size)]['score'] / runs[('jeromqZstdjni', size)]['score']))
    return rows


check('Pipeline: where the CPU goes, schedstat of the parallel sender and JeroMQ', cpu_parallel)


def parallel3_flamegraphs():
    """The shares of the parallel sender's CPU flamegraphs at 1 KiB and 64 KiB (results/flamegraphs/zmqzstd-parallel3-*):
    flame-summary.py's categories, and the samples under futex waits and pthread_cond_signal by who parks or wakes."""
    small, large = (flame_cpu('flamegraphs/zmqzstd-parallel3-%d' % size) for size in (1024, 65536))
    parks = collections.Counter()
    for frames, n in script('flame-summary').read(one_file('flamegraphs/zmqzstd-parallel3-1024/cpu/*/collapsed-cpu.csv')):
        if any('futex' in f or 'pthread_cond_signal' in f for f in frames):
            worker = any('ParallelCompressingSender$Worker.run' in f for f in frames)
            waking = any('LockSupport.unpark' in f for f in frames)
            parks[('worker ' if worker else 'producer ') + ('wakes' if waking else 'parks')] += n

    def share(counter, *keys):
        return 100.0 * sum(counter[k] for k in keys) / sum(counter.values())

    total = sum(small.values())
    return ['%.0f %% of the samples are in the kernel, %.1f %% of all under `futex` waits and `pthread_cond_signal` from '
            'workers parking when the ring ran dry (%.1f %%), waking one another (%.1f %%) and the producer (%.1f %% + %.1f %%); '
            "zstd compression %.1f %%, decompression %.1f %%, zmq-zstd's Java code %.1f %%" % (
                share(small, 'kernel / syscalls'), 100.0 * sum(parks.values()) / total,
                100.0 * parks['worker parks'] / total, 100.0 * parks['worker wakes'] / total,
                100.0 * parks['producer wakes'] / total, 100.0 * parks['producer parks'] / total,
                share(small, 'zstd compress'), share(small, 'zstd decompress'), share(small, 'zmq-zstd (Java)')),
            'is %.0f %% (%.1f %% compression, %.1f %% decompression), the kernel %.0f %%' % (
                share(large, 'zstd compress', 'zstd decompress'), share(large, 'zstd compress'),
                share(large, 'zstd decompress'), share(large, 'kernel / syscalls')),
            'fewer parks and wake-ups at 1 KiB (%.1f %% of the CPU in the ring of' % (100.0 * sum(parks.values()) / total)]


check('Pipeline: the parallel sender\'s flamegraphs', parallel3_flamegraphs)


def inproc_zero_copy():
    """README.md's and Findings' zero-copy over inproc at 64 and 256 KiB, from the Transport section's inproc table
    (transport-inproc.json, rerun 2026-11-23; until 2026-11-27 they quoted 5.8\u20137.1x, the table of the day before)."""
    ratios = [score('transport-inproc.json', 'sendReceive', strategy='zeroCopyPooled', size=size, receiveMode='blocking')
              / score('transport-inproc.json', 'sendReceive', strategy='byteArray', size=size, receiveMode='blocking')
              for size in (65536, 262144)]
    figure = span(ratios, 1) + 'x'
    return {'BENCHMARKS.md': [figure + ' the `byte[]` strategy at 64 and 256 KiB'],
            'README.md': ['are ' + figure + ' `byte[]` sends over inproc at 64 and 256 KiB']}


check('Transport: zero-copy over inproc at 64 and 256 KiB, README.md and Findings', inproc_zero_copy)


def transport_summary():
    """The Summary's transport row, the figures of its detail (interleaved runs and JMH verdicts) and README.md's zero-copy
    bullet (its inproc 64 and 256 KiB ratio: inproc_zero_copy)."""
    send = interleaved('experiments/small-send-zmqsend')
    intel = interleaved_rows('experiments/small-send-2026-11-28')[('transport', 'tcp', '64 B', 'zeroCopyPooled / byteArray')]
    own_old, own_new = (interleaved_rows('small-send-own-copy/' + v, 'zeroCopyPooled/nativeSegment')[
        ('transport', 'tcp', '64 B', 'zeroCopyPooled / byteArray')] for v in ('old', 'new'))
    tcp64 = send[('tcp', '64 B', 'zeroCopyPooled / byteArray')]
    inproc64 = send[('inproc', '64 B', 'zeroCopyPooled / byteArray')]
    read = interleaved('interleaved-read-all')
    io2 = interleaved('interleaved-read-io2', 'zeroCopyPooled#2+all/byteArray#2+all', 'zeroCopyPooled#2/byteArray#2')
    io2_large = interleaved('interleaved-read-io2-large', 'zeroCopyPooled#2+all/byteArray#2+all')
    paired = 'zeroCopyPooled#2+all / byteArray#2+all (paired)'
    r64, s64 = io2[('tcp', '64 KiB', paired)], io2[('tcp', '64 KiB', 'zeroCopyPooled#2 / byteArray#2 (paired)')]
    r128, r256 = io2_large[('tcp', '128 KiB', paired)], io2_large[('tcp', '256 KiB', paired)]
    threshold = interleaved('interleaved-inproc-threshold')
    steps = [threshold[('inproc', s, 'zeroCopyPooled / byteArray')] for s in ('512 B', '1 KiB', '2 KiB', '4 KiB')]
    thirty, again = interleaved('interleaved'), interleaved('interleaved-64-2026-11-25')
    switchover = 'zeroCopyPooled@0 / zeroCopyPooled@1099511627776'
    tcp64k, inproc64k = (thirty[(t, '64 KiB', 'zeroCopyPooled / byteArray')] for t in ('tcp', 'inproc'))

    def cell(c, digits):  # 'median x (95 % interval)', the median at DIGITS decimals
        return '%.*fx (%s)' % (digits, float(c[0]), c[1])

    first, rerun = ({tuple(cells[:2]): cells[4] for cells, _ in verdict_rows(folder, 'transport')}
                    for folder in ('verdict', 'verdict-transport-thresholds'))
    verdict_span = '%s\u2013%sx' % (first[('tcp', '128 KiB')], first[('tcp', '256 KiB')])
    # receivers reading every byte with the four-accumulator fold: zero-copy / byte[] and the copying send / zero-copy
    fold_inproc = interleaved('interleaved-read-fold4-inproc')[('inproc', '64 KiB', 'zeroCopyPooled+all / byteArray+all')]
    fold4 = interleaved('interleaved-read-fold4')
    fold_switch = interleaved('interleaved-read-switchover')[('tcp', '64 KiB', 'zeroCopyPooled@0+all / byteArray+all')]
    large = interleaved('interleaved-read-switchover-large')
    fold_256 = large[('tcp', '256 KiB', 'byteArray+all / zeroCopyPooled@0+all')]
    copying = span([float(interleaved('interleaved-read-switchover', 'zeroCopyPooled@1099511627776+all/zeroCopyPooled@0+all')[
        ('tcp', '64 KiB', 'zeroCopyPooled@1099511627776+all / zeroCopyPooled@0+all (paired)')][0])] + [
        float(large[('tcp', s, 'zeroCopyPooled@1099511627776+all / zeroCopyPooled@0+all')][0]) for s in ('128 KiB', '256 KiB')]) + 'x'
    equal_fold = span([float(fold4[('tcp', '64 KiB', 'zeroCopyPooled+all / byteArray+all')][0]), 1 / float(fold_256[0])]) + 'x'
    return ['%sx, %s, %s of 20 JVMs ahead' % tcp64,
            'zmq_send\"): tcp %sx (%s), inproc %sx (%s)' % (tcp64[0], tcp64[1], inproc64[0], inproc64[1]),
            'inproc 64 KiB %.2fx (%s), tcp 256 KiB %.2fx (%s), tcp 64 KiB %.2fx (%s, ahead in %s of 8)' % (
                float(read[('inproc', '64 KiB', 'zeroCopyPooled+all / byteArray+all')][0]),
                read[('inproc', '64 KiB', 'zeroCopyPooled+all / byteArray+all')][1],
                float(read[('tcp', '256 KiB', 'zeroCopyPooled+all / byteArray+all')][0]),
                read[('tcp', '256 KiB', 'zeroCopyPooled+all / byteArray+all')][1],
                float(read[('tcp', '64 KiB', 'zeroCopyPooled+all / byteArray+all')][0]),
                read[('tcp', '64 KiB', 'zeroCopyPooled+all / byteArray+all')][1],
                read[('tcp', '64 KiB', 'zeroCopyPooled+all / byteArray+all')][2]),
            'zero-copy is %.2fx `byte[]` at 64 KiB with reading receivers (%s) and %.2fx with 8-byte receivers, ahead in %s '
            'of 6 JVMs, and with reading receivers %.2fx at 128 KiB (%s) and %.2fx at 256 KiB (%s)' % (
                float(r64[0]), r64[1], float(s64[0]), r64[2], float(r128[0]), r128[1], float(r256[0]), r256[1]),
            'inproc 512 B %.2fx (%s), 1 KiB %.2fx (%s), 2 KiB %.2fx, 4 KiB %.2fx' % (
                float(steps[0][0]), steps[0][1], float(steps[1][0]), steps[1][1], float(steps[2][0]), float(steps[3][0])),
            # the Summary's row and the interleaved table under its verdict
            'Interleaved, receivers checking 8 bytes: tcp %.2fx at 64 KiB, %s at 128\u2013256 KiB; inproc %.2f\u2013%.2fx from '
            '512 B to 4 KiB, %.1fx at 64 KiB, %sx at 64 B; tcp 64 B %sx (%s) on the AMD machine, %sx (%s, %s JVMs) on the Intel one (2026-11-28), '
            'and since the small send\'s own copy %sx (%s, %s JVMs) on the AMD machine (2026-11-29; the jar before it %sx in the same run). '
            'Receivers reading every byte: inproc %.2fx at 64 KiB; '
            'tcp 64\u2013256 KiB %s while one libzmq I/O thread serves both ends, %s with an I/O thread per end (6/6 JVMs each)' % (
                float(tcp64k[0]), verdict_span, float(steps[0][0]), float(steps[3][0]), float(inproc64k[0]), inproc64[0], tcp64[0],
                tcp64[1], intel[1], intel[2], intel[4], own_new[1], own_new[2], own_new[4], own_old[1], float(fold_inproc[0]), equal_fold, ' / '.join('%.2fx' % float(c[0]) for c in (r64, r128, r256))),
            '| tcp | %s | %s | %s | %s |' % tuple(cell(thirty[('tcp', s, 'zeroCopyPooled / byteArray')], d)
                                                 for s, d in (('64 B', 2), ('512 B', 3), ('1 KiB', 2), ('64 KiB', 2))),
            '| inproc, one 8 KiB threshold | %s | %s | %.2fx | %.1fx |' % (
                cell(thirty[('inproc', '64 B', 'zeroCopyPooled / byteArray')], 2), cell(thirty[('inproc', '512 B', 'zeroCopyPooled / byteArray')], 2),
                float(thirty[('inproc', '1 KiB', 'zeroCopyPooled / byteArray')][0]), float(inproc64k[0])),
            'tcp 64 B again, 40 JVMs on 2026-11-25: %s; inproc %s.' % tuple(
                cell(again[(t, '64 B', 'zeroCopyPooled / byteArray')], 3) for t in ('tcp', 'inproc')),
            'tcp unchanged (1 KiB %.2fx), tcp 2 KiB %.2fx, 4 KiB %.2fx.' % tuple(
                float(c[0]) for c in (threshold[('tcp', '1 KiB', 'zeroCopyPooled / byteArray')], thirty[('tcp', '2 KiB', 'zeroCopyPooled / byteArray')],
                                      thirty[('tcp', '4 KiB', 'zeroCopyPooled / byteArray')])),
            'Zero-copy against the pool\'s own copying send over tcp, 10 JVMs: %.2fx at 64 KiB (%s), %.2fx at 128 KiB.' % (
                float(thirty[('tcp', '64 KiB', switchover)][0]), thirty[('tcp', '64 KiB', switchover)][1],
                float(thirty[('tcp', '128 KiB', switchover)][0])),
            'tcp 128 KiB %sx, 256 KiB %sx, inproc 128 KiB %sx, 256 KiB %sx;' % (
                first[('tcp', '128 KiB')], first[('tcp', '256 KiB')], first[('inproc', '128 KiB')], first[('inproc', '256 KiB')]),
            'inproc 512 B %sx, 1 KiB %sx (%sx and %sx before), 64 KiB %sx, tcp 64 KiB %sx, 128 KiB %sx, 256 KiB %sx.' % (
                rerun[('inproc', '512 B')], rerun[('inproc', '1 KiB')], first[('inproc', '512 B')], first[('inproc', '1 KiB')],
                rerun[('inproc', '64 KiB')], rerun[('tcp', '64 KiB')], rerun[('tcp', '128 KiB')], rerun[('tcp', '256 KiB')]),
            'With one equal fold (6 JVMs): inproc 64 KiB %.2fx (%s), tcp 64 KiB %.2fx and %.2fx (two runs), 128 KiB %.2fx, 256 KiB '
            'about %.2fx, and the pool\'s copying send %s zero-copy at 64\u2013256 KiB' % (
                float(fold_inproc[0]), fold_inproc[1], float(fold4[('tcp', '64 KiB', 'zeroCopyPooled+all / byteArray+all')][0]),
                float(fold_switch[0]), float(fold4[('tcp', '128 KiB', 'zeroCopyPooled+all / byteArray+all')][0]), 1 / float(fold_256[0]),
                copying)], [
            'At 64 B the pooled send is %sx `byte[]` over inproc, and over tcp %sx (%s, every one of %s JVMs) on the AMD machine since '
            'the small send\'s own copy (2026-11-29), where it had been about 2 %% behind (%sx, %s)' % (
                inproc64[0], own_new[1], own_new[2], own_new[0], tcp64[0], tcp64[1]),
            # the zero-copy bullet of "What it measures like"
            'sockets whose every endpoint is inproc (%.2fx at 512 B to %.2fx at 4 KiB), and %.2fx over tcp at 64 KiB with receivers '
            'that check 8 bytes of each message' % (float(steps[0][0]), float(steps[3][0]), float(tcp64k[0])),
            'and %sx with an I/O thread per end' % span([float(c[0]) for c in (r64, r128, r256)])]


check('Summary: transport, its detail and README.md\'s zero-copy bullet', transport_summary)


# --- "Transport": the interleaved and verdict tables of its subsections, and the prose under them -------

def interleaved_cells(folder, transport, size, way, columns='mia', *pairs, kind='transport'):
    """interleaved.py's cells of one way of a transport (or KIND) cell, ' | '-joined in the order of COLUMNS: n JVMs, m the median
    of the JVMs' medians, i its 95 % interval, r min\u2013max, a JVMs above 1 (PAIRS: ways compared round by round, rows named
    '(paired)')."""
    c = interleaved_rows(folder, *pairs)[(kind, transport, size, way)]
    return ' | '.join(c['nmira'.index(k)] for k in columns)


def half_up(value, digits=2):
    """A figure as printed (a string such as interleaved.py's three decimals, or a Decimal made of them) rounded half up to
    DIGITS decimals, as the document rounds them."""
    return decimal.Decimal(value).quantize(decimal.Decimal(1).scaleb(-digits), decimal.ROUND_HALF_UP)


def median_of(folder, transport, size, way, *pairs, kind='transport'):
    return float(interleaved_cells(folder, transport, size, way, 'm', *pairs, kind=kind))


def transport_read_all():
    """"Receivers that read their payload": the verdict transport-read, the interleaved runs with reading receivers (one
    and four accumulators, the copying pooled send, two I/O threads), the schedstat runs and the verdict transport-io2."""
    read = {tuple(cells[:3]): cells for cells, _ in verdict_rows('verdict-reused-read', 'transport-read')}
    out = ['| %s | %s | %s (%s) | %s (%s) | %s / %s | %s / %s |' % (
        (t, s) + tuple(read[(t, s, r)][i] for i, r in ((5, 'stamp'), (6, 'stamp'), (5, 'all'), (6, 'all'), (3, 'stamp'), (3, 'all'),
                                                       (4, 'stamp'), (4, 'all'))))
        for t in ('inproc', 'tcp') for s in ('1 KiB', '64 KiB', '256 KiB')]
    stamp_only = [score('transport-inproc.json', 'sendReceive', strategy='zeroCopyPooled', size=s, transport='inproc')
                  / score('transport-inproc.json', 'sendReceive', strategy='byteArray', size=s, transport='inproc') for s in (65536, 262144)]
    out.append('The inproc figures above (%sx `byte[]` at 64 and 256 KiB)' % span(stamp_only))

    def lead(size, r):  # the verdict's median zero-copy / byte[] over inproc
        return statistics.median(verdict_rounds('verdict-reused-read', 'transport-read', 'sendReceive', 'strategy', 'zeroCopyPooled',
                                                ('byteArray',), size=size, transport='inproc', read=r))

    out.append("cuts zero-copy's lead from %sx to %sx at 64 and 256 KiB" % (
        span([lead(s, 'stamp') for s in (65536, 262144)], 1), span([lead(s, 'all') for s in (65536, 262144)], 1)))
    out.append('and from %.2fx to %.2fx at 1 KiB' % (lead(1024, 'stamp'), lead(1024, 'all')))
    both = 'zeroCopyPooled+all / byteArray+all'
    out.extend('| %s | %s | %s |' % (t, s, interleaved_cells('interleaved-read-all', t, s, both))
               for t, s in (('inproc', '64 KiB'), ('tcp', '64 KiB'), ('tcp', '256 KiB')))
    low = float(interleaved_cells('interleaved-read-all', 'tcp', '64 KiB', both, 'i').split('\u2013')[0])
    out.append('the pooled path is ahead over inproc (%.2fx at 64 KiB) and over tcp at 256 KiB (%.2fx), but at 64 KiB over tcp it '
               'is level with `byte[]` or up to %.0f %% behind, where with 8-byte receivers it was %.2fx ahead' % (
                   median_of('interleaved-read-all', 'inproc', '64 KiB', both), median_of('interleaved-read-all', 'tcp', '256 KiB', both),
                   100 * (1 - low), median_of('interleaved', 'tcp', '64 KiB', 'zeroCopyPooled / byteArray')))
    ways = (('reusedBuffer+all', 'copy (`zmq_msg_init_size`)', 'copy into one reused array'),
            ('message+all', 'copy into a reused `ZmqMessage`', 'in place (reused `ZmqMessage`)'),
            ('nativeSegment+all', '`zmq_send` from native memory', 'in place'),
            ('zeroCopyPooled+all', 'zero-copy (pooled buffer)', 'in place'))
    for way, sends, receives in ways:
        out.append('| `%s` | %s | %s | %s |' % (way, sends, receives, interleaved_cells(
            'interleaved-read-all-ways', 'tcp', '64 KiB', way + ' / byteArray+all')))
    out.append('| `zeroCopyPooled` (8-byte receiver) | zero-copy | in place, 8 bytes read | %s |' % interleaved_cells(
        'interleaved-read-all-ways', 'tcp', '64 KiB', 'zeroCopyPooled / byteArray+all'))
    in_place = [median_of('interleaved-read-all-ways', 'tcp', '64 KiB', way + ' / byteArray+all') for way, _, received in ways
                if received.startswith('in place')]
    out.append('whatever the sender does (%sx)' % span(in_place))
    # the one- and four-accumulator folds, each with its own pairs
    copy_pairs = {'interleaved-read-copy': ('zeroCopyPooled+copy/zeroCopyPooled+all', 'message+copy/message+all'),
                  'interleaved-read-fold4': ('zeroCopyPooled+copy/zeroCopyPooled+all', 'message+all/zeroCopyPooled+all')}
    for folder, label in (('interleaved-read-copy', 'one-accumulator fold'), ('interleaved-read-fold4', 'four-accumulator fold')):
        for i, way in enumerate(('zeroCopyPooled+all / byteArray+all', 'zeroCopyPooled+copy / byteArray+all')
                                + tuple(pair.replace('/', ' / ') + ' (paired)' for pair in copy_pairs[folder])):
            out.append('| %s | %s | %s | %s |' % (label if i == 0 else '', ' / '.join('`%s`' % w for w in way.split(' / ')).replace(
                ' (paired)`', '` (paired)'), *(interleaved_cells(folder, 'tcp', s, way, 'mia', *copy_pairs[folder]) for s in ('64 KiB', '128 KiB'))))
    gains = [median_of('interleaved-read-copy', 'tcp', s, pair.replace('/', ' / ') + ' (paired)', *copy_pairs['interleaved-read-copy'])
             for pair in copy_pairs['interleaved-read-copy'] for s in ('64 KiB', '128 KiB')]
    out.append('copying the frame to the heap and folding the copy was %s %% faster' % span([100 * (g - 1) for g in gains], 0))
    fold4 = [median_of('interleaved-read-fold4', 'tcp', s, 'zeroCopyPooled+copy / zeroCopyPooled+all (paired)',
                       *copy_pairs['interleaved-read-fold4']) for s in ('64 KiB', '128 KiB')]
    out.append('Copying first now gains %s %% (%s at both sizes)' % (low_high([100 * (g - 1) for g in fold4], 0), low_high(fold4, 3)))
    c64, c128 = (interleaved_rows('interleaved-read-fold4')[('transport', 'tcp', s, both)] for s in ('64 KiB', '128 KiB'))
    out.append('zero-copy with reading receivers is %sx `byte[]` at 64 KiB (%s, ahead in %s of 6) and %sx at 128 KiB (%s)' % (
        c64[1], c64[2], c64[4].split('/')[0], c128[1], c128[2]))
    # zero-copy against the pool's copying send (threshold 1 TiB), four-accumulator fold
    zero, copied = 'zeroCopyPooled@0', 'zeroCopyPooled@1099511627776'
    switch_pairs = ('%s/byteArray' % zero, '%s/%s' % (copied, zero), '%s+all/%s+all' % (copied, zero))
    sw = {s: interleaved_rows('interleaved-read-switchover', *switch_pairs)[('transport', 'tcp', '64 KiB', way)]
          for s, way in (('8', zero + ' / byteArray (paired)'), ('8 copy', '%s / %s (paired)' % (copied, zero)),
                         ('all', zero + '+all / byteArray+all'), ('all copy', '%s+all / %s+all (paired)' % (copied, zero)))}
    out.append('| tcp | 64 KiB | 8 bytes | %s (%s, %s ahead; paired) | %s (%s) | %s |' % (
        sw['8'][1], sw['8'][2], sw['8'][4], sw['8 copy'][1], sw['8 copy'][2], sw['8 copy'][4]))
    out.append('| tcp | 64 KiB | every byte | %s (%s, %s ahead) | %s (%s) | %s |' % (
        sw['all'][1], sw['all'][2], sw['all'][4], sw['all copy'][1], sw['all copy'][2], sw['all copy'][4]))
    large = interleaved_rows('interleaved-read-switchover-large')
    for size in ('128 KiB', '256 KiB'):
        inverse, copy = (large[('transport', 'tcp', size, way)] for way in ('byteArray+all / %s+all' % zero, '%s+all / %s+all' % (copied, zero)))
        out.append('| tcp | %s | every byte | %.2f (`byte[]` / zero-copy %s, %s) | %s (%s) | %s |' % (
            size, 1 / float(inverse[1]), inverse[1], inverse[2], copy[1], copy[2], copy[4]))
    inproc = interleaved_rows('interleaved-read-fold4-inproc')[('transport', 'inproc', '64 KiB', both)]
    out.append('| inproc | 64 KiB | every byte | %s (%s, %s ahead) | \u2013 | \u2013 |' % (inproc[1], inproc[2], inproc[4]))
    copying = [float(sw['all copy'][1])] + [median_of('interleaved-read-switchover-large', 'tcp', s, '%s+all / %s+all' % (copied, zero))
                                             for s in ('128 KiB', '256 KiB')]
    out.append('zero-copy stays %.2fx ahead with the equal reader (%.2fx before)' % (
        float(inproc[1]), median_of('interleaved-read-all', 'inproc', '64 KiB', both)))
    out.append('copying ahead by %s %% at 64\u2013256 KiB' % span([100 * (c - 1) for c in copying], 0))
    return out


check('Transport: receivers that read their payload', transport_read_all)


def transport_io_threads():
    """"One I/O thread for both ends": schedstat.py's runs at 64 KiB over tcp, the interleaved runs with an I/O thread per end
    and the verdict transport-io2."""
    out = []
    busy = []
    io_us = {}  # the I/O thread's µs per message, by (strategy, read)
    for strategy in ('byteArray', 'zeroCopyPooled'):
        for read, label in (('stamp', '8 bytes'), ('all', 'every byte')):
            threads, per_op = {}, None
            with open(os.path.join(RESULTS, 'schedstat-transport-64k', '%s-%s.txt' % (strategy, read))) as f:
                for line in f:
                    cells = [c.strip() for c in line.strip().strip('|').split('|')]
                    if line.startswith('| ') and not line.startswith('| thread'):
                        threads[cells[0][:4]] = cells
                    elif line.startswith('# on cpu per operation'):
                        per_op = float(line.rsplit(', ', 1)[1].split()[0].replace(',', ''))
            io, receiver, sender = threads['ZMQb'], threads['io.z'], threads['tran']
            busy.append(int(io[1].rstrip('%')))
            io_us[strategy, read] = float(io[-1])
            out.append('| `%s` | %s | %s %% | %s | %s | %s | %s |' % (
                strategy, label, io[1].rstrip('%'), io[-1], sender[-1], receiver[-1], script('tables').fmt_rate(per_op)))
    out.append('The I/O thread is on a CPU %d\u2013%d %% of the time in every cell' % (min(busy), max(busy)))
    out.append('It spends %.1f and %.1f \u00b5s more per zero-copy message' % tuple(
        io_us['zeroCopyPooled', read] - io_us['byteArray', read] for read in ('stamp', 'all')))
    pairs = ('zeroCopyPooled#2+all/byteArray#2+all', 'zeroCopyPooled#2/byteArray#2', 'zeroCopyPooled#2+all/zeroCopyPooled+all')
    for label, way in (('two I/O threads: `zeroCopyPooled` / `byteArray`, receivers reading every byte (paired)',
                        'zeroCopyPooled#2+all / byteArray#2+all (paired)'),
                       ('two I/O threads: `zeroCopyPooled` / `byteArray`, 8-byte receivers (paired)', 'zeroCopyPooled#2 / byteArray#2 (paired)'),
                       ('one I/O thread: `zeroCopyPooled` / `byteArray`, receivers reading every byte', 'zeroCopyPooled+all / byteArray+all'),
                       ('`zeroCopyPooled`, two I/O threads / one, reading every byte (paired)', 'zeroCopyPooled#2+all / zeroCopyPooled+all (paired)'),
                       ('`byteArray`, two I/O threads / one, reading every byte', 'byteArray#2+all / byteArray+all')):
        out.append('| %s | %s |' % (label, interleaved_cells('interleaved-read-io2', 'tcp', '64 KiB', way, 'mia', *pairs)))
    one = median_of('interleaved-read-io2', 'tcp', '64 KiB', 'zeroCopyPooled+all / byteArray+all', *pairs)
    before = [median_of('interleaved-read-fold4', 'tcp', '64 KiB', 'zeroCopyPooled+all / byteArray+all'),
              median_of('interleaved-read-switchover', 'tcp', '64 KiB', 'zeroCopyPooled@0+all / byteArray+all')]
    out.append('With one I/O thread for both ends it is level (%.3fx here, %sx above)' % (one, span(before)))
    out.append('`byte[]` sends lose %.0f %% with it (one more busy thread for two cores), zero-copy gains %.0f %%' % (
        100 * (1 - median_of('interleaved-read-io2', 'tcp', '64 KiB', 'byteArray#2+all / byteArray+all', *pairs)),
        100 * (median_of('interleaved-read-io2', 'tcp', '64 KiB', 'zeroCopyPooled#2+all / zeroCopyPooled+all (paired)', *pairs) - 1)))
    io2 = {tuple(cells[:3]): cells for cells, _ in verdict_rows('verdict-transport-io2', 'transport-io2')}
    for size in ('1 KiB', '64 KiB', '256 KiB'):
        for read, label in (('all', 'every byte'), ('stamp', '8 bytes')):
            one, two = io2[('1', size, read)], io2[('2', size, read)]
            out.append('| %s | %s | %s (%s) | %s (%s) | %s |' % (size, label, one[5], one[6], two[5], two[6], low_high(
                [float(one[7]), float(two[7])])))
    out.append('with reading receivers as well (%s)' % io2[('2', '64 KiB', 'all')][6])
    large_pairs = ('zeroCopyPooled#2+all/byteArray#2+all',)
    for label, way in (('two I/O threads: `zeroCopyPooled` / `byteArray` (paired)', 'zeroCopyPooled#2+all / byteArray#2+all (paired)'),
                       ('one I/O thread: `zeroCopyPooled` / `byteArray`', 'zeroCopyPooled+all / byteArray+all'),
                       ('`byteArray`, two I/O threads / one', 'byteArray#2+all / byteArray+all')):
        cells = [interleaved_rows('interleaved-read-io2-large', *large_pairs)[('transport', 'tcp', s, way)] for s in ('128 KiB', '256 KiB')]
        out.append('| %s | %s |' % (label, ' | '.join('%s (%s, %s)' % (c[1], c[2], c[4]) for c in cells)))
    per_end = [median_of('interleaved-read-io2', 'tcp', '64 KiB', 'zeroCopyPooled#2+all / byteArray#2+all (paired)', *pairs)] + [
        median_of('interleaved-read-io2-large', 'tcp', s, 'zeroCopyPooled#2+all / byteArray#2+all (paired)', *large_pairs)
        for s in ('128 KiB', '256 KiB')]
    out.append('with reading receivers it is %sx `byte[]` from 64 to 256 KiB over tcp' % span(per_end))
    out.append('A second I/O thread again costs `byte[]` sends %s %%' % span(
        [100 * (1 - median_of('interleaved-read-io2-large', 'tcp', s, 'byteArray#2+all / byteArray+all', *large_pairs))
         for s in ('128 KiB', '256 KiB')], 0))
    return out


check('Transport: one I/O thread for both ends', transport_io_threads)


def zero_copy_switchover():
    """"The zero-copy switch-over": the prose under its JMH table (switchover-transport.json), the interleaved switchover:,
    sharedpool: and transport: cells, the threshold per kind of socket and the pipeline's senders at 512 B against 8 KiB."""
    def x(size, transport):  # threshold 0 over threshold 1 TiB, one fork each
        return (score('switchover-transport.json', 'sendReceive', size=size, transport=transport, zeroCopyThresholdBytes=0)
                / score('switchover-transport.json', 'sendReceive', size=size, transport=transport, zeroCopyThresholdBytes=1099511627776))

    out = ['(%.2fx at 2 KiB, %.2fx at 8 KiB, %.2fx at 128 KiB; %.2fx at 512 B)' % tuple(
               x(s, 'inproc') for s in (2048, 8192, 131072, 512)),
           'zero-copy is %sx of copying at 8 and 32 KiB, %.2fx at 128 KiB, and %sx at 512 B\u20132 KiB' % (
               span([x(s, 'tcp') for s in (8192, 32768)]), x(131072, 'tcp'), span([x(s, 'tcp') for s in (512, 2048)]))]
    switchover, senders, pooled = ('zeroCopyPooled@0 / zeroCopyPooled@1099511627776', 'senders2@2048 / senders2@8192',
                                   'zeroCopyPooled / byteArray')
    for way, cells in ((switchover, (('tcp', '8 KiB'), ('tcp', '32 KiB'), ('tcp', '64 KiB'), ('tcp', '128 KiB'), ('inproc', '2 KiB'),
                                     ('tcp', '2 KiB'), ('tcp', '4 KiB'), ('inproc', '512 B'), ('tcp', '512 B'), ('tcp', '1 KiB'),
                                     ('inproc', '1 KiB'), ('inproc', '4 KiB'), ('inproc', '8 KiB'))),
                       (senders, (('tcp', '2 KiB'), ('tcp', '4 KiB'), ('inproc', '2 KiB'), ('inproc', '4 KiB'))),
                       (pooled, (('inproc', '2 KiB'), ('inproc', '4 KiB'), ('tcp', '2 KiB'), ('tcp', '4 KiB')))):
        out.extend('| %s | %s | %s |' % (t, size, interleaved_cells('interleaved', t, size, way, 'nmia')) for t, size in cells)

    def m(t, size, way, folder='interleaved'):
        return median_of(folder, t, size, way)

    out.append('Over inproc zero-copy is %.2fx copying at 512 B and %.2fx at 2 KiB in every JVM.' % (
        m('inproc', '512 B', switchover), m('inproc', '2 KiB', switchover)))
    out.append('would take the inproc gain (%sx from 2 to 8 KiB) at no measured cost over tcp (medians %s from 512 B to 128 KiB' % (
        span([m('inproc', s, switchover) for s in ('2 KiB', '4 KiB', '8 KiB')]),
        span([m('tcp', s, switchover) for s in ('512 B', '1 KiB', '2 KiB', '4 KiB', '8 KiB', '32 KiB', '64 KiB', '128 KiB')], 3)))
    out.append('With two senders, zero-copy at 2\u20134 KiB costs %s %% over tcp in every JVM.' % span(
        [100 * (1 - m('tcp', s, senders)) for s in ('2 KiB', '4 KiB')], 0))
    out.append('(at 1 KiB, copied, it is %.2fx)' % m('inproc', '1 KiB', pooled))
    # the threshold per kind of socket: the new default against the old one named explicitly
    sizes = ('512 B', '1 KiB', '2 KiB', '4 KiB')
    for t, size in [('inproc', s) for s in sizes] + [('tcp', '1 KiB')]:
        new, old = (interleaved_rows('interleaved-inproc-threshold')[('transport', t, size, way)]
                    for way in (pooled, 'zeroCopyPooled@8192 / byteArray'))
        out.append('| %s | %s | %s | %s | %s | %s | %s | %s, %s |' % (t, size, new[0], new[1], new[2], old[1], old[2], new[4], old[4]))
    out.append('the pooled send is now %.2fx a `byte[]` send at 512 B, %.2fx at 1 KiB, %.2fx at 2 KiB and %.2fx at 4 KiB, against '
               '%.2fx, %.2fx, %.2fx and %.2fx with the single 8 KiB threshold' % tuple(
                   m('inproc', s, way, 'interleaved-inproc-threshold') for way in (pooled, 'zeroCopyPooled@8192 / byteArray') for s in sizes))
    # the pipeline's senders: CompressingSender by interleaved.py's summary, the parallel ways paired round by round
    rows_ = interleaved_rows('interleaved-inproc-threshold', 'zmqzstd@3/zmqzstd@3#8192')
    medians = []
    for size in ('1 KiB', '4 KiB', '16 KiB'):
        one, parallel = (rows_[('pipeline', 'inproc', size, way)] for way in ('zmqzstd / zmqzstd#8192', 'zmqzstd@3 / zmqzstd@3#8192 (paired)'))
        below = ' (%d/%s below 1)' % (int(one[0]), one[0]) if one[4].startswith('0/') else ''
        out.append('| %s | %s%s | %s | %s |' % (one[1], one[3], below, parallel[1], parallel[3]))
        medians.extend(float(c[1]) for c in (one, parallel))
    level = [v for v in medians if abs(1 - v) <= 0.015]
    out.append('level within 1.5 %% in %s of the six cells, and %.0f %% slower at 16 KiB with one compressing thread' % (
        {5: 'five', 6: 'all'}.get(len(level), len(level)), 100 * (1 - medians[4])))
    # two senders on one pool at the inproc default
    out.extend('| %s | %s | %s |' % (t, size, interleaved_cells('interleaved-sharedpool-512', t, size, 'senders2@512 / senders2@8192', 'nmira'))
               for t, size in (('inproc', '512 B'), ('inproc', '1 KiB'), ('tcp', '1 KiB')))
    scatter = [float(v) for size in ('512 B', '1 KiB') for v in interleaved_cells(
        'interleaved-sharedpool-512', 'inproc', size, 'senders2@512 / senders2@8192', 'r').split('\u2013')]
    tcp = interleaved_rows('interleaved-sharedpool-512')[('transport', 'tcp', '1 KiB', 'senders2@512 / senders2@8192')]
    out.append('single JVMs scatter from %.2fx to %.2fx' % (min(scatter), max(scatter)))
    out.append('where one sender gains %sx' % span([m('inproc', s, pooled, 'interleaved-inproc-threshold') for s in ('512 B', '1 KiB')]))
    out.append('Over tcp the same lower threshold cost %.0f %% at 1 KiB with two senders (%d of %s JVMs behind)' % (
        100 * (1 - float(tcp[1])), int(tcp[0]) - int(tcp[4].split('/')[0]), tcp[0]))
    return out


check('Transport: the zero-copy switch-over and the threshold per kind of socket', zero_copy_switchover)


def small_pooled_send():
    """"The small pooled send" and "The small pooled send through zmq_send": the focused 64 B inproc runs, PoolBenchmark,
    the nine-round verdict transport-small, the interleaved runs of 64 B to 1 KiB and the prose under them."""
    def strategies(name, mode):  # per strategy, the median and range of its per-round ratios to byteArray
        found = {}
        for strategy in ('reusedBuffer', 'message', 'zeroCopyPooled'):
            paths = ['experiments/%s-r%d.json' % (name, i) for i in (1, 2, 3)]
            r = [score(path, 'sendReceive', strategy=strategy, receiveMode=mode) / score(path, 'sendReceive', strategy='byteArray',
                                                                                          receiveMode=mode) for path in paths]
            found[strategy] = (statistics.median(r), min(r), max(r))
        return found

    out = []
    for mode in ('blocking', 'nonBlocking'):
        ways = strategies('inproc-64', mode)
        out.append('| %s | %s |' % (mode, ' | '.join('%.2f (%.2f\u2013%.2f)' % ways[w] for w in ('reusedBuffer', 'message', 'zeroCopyPooled'))))
    cache = strategies('inproc-64-cache', 'blocking')
    out.append('gave `zeroCopyPooled` %.2fx `byteArray` (%.2f\u2013%.2f), `reusedBuffer` %.2fx, `message` %.2fx' % (
        cache['zeroCopyPooled'] + (cache['reusedBuffer'][0], cache['message'][0])))

    def ns(path, cache_kind):  # PoolBenchmark's ns per rent + release (an average time: the score itself)
        return matching(path, 'rentRelease', cache=cache_kind)[0]['primaryMetric']['score']

    for threads in (1, 2):
        per = {c: [ns('experiments/pool-rent-release-t%d-r%d.json' % (threads, i), c) for i in (1, 2, 3)] for c in ('thread', 'shared')}
        out.append('| %d | %s | %s | %.2f |' % (threads, *('%.1f (%.1f\u2013%.1f)' % (statistics.median(v), min(v), max(v))
                                                          for v in (per['thread'], per['shared'])),
                                               statistics.median(per['thread']) / statistics.median(per['shared'])))
    slots = [ns('experiments/pool-rent-release-slots-t%d.json' % t, c) for t in (1, 2) for c in ('thread', 'shared')]
    out.append('%.1f ns against %.1f on one thread, %.1f against %.1f on two' % tuple(slots))
    for t, size in (('inproc', 64), ('inproc', 512), ('tcp', 64), ('tcp', 512)):
        r = verdict_rounds('verdict-small', 'transport-small', 'sendReceive', 'strategy', 'zeroCopyPooled', ('byteArray',),
                           size=size, transport=t)
        out.append('| %s | %s | %s | %.2f | %.2f\u2013%.2f |' % (t, script('tables').size_label(size), ' '.join('%.2f' % v for v in r),
                                                            statistics.median(r), min(r), max(r)))
    pooled = 'zeroCopyPooled / byteArray'
    out.extend('| %s | %s | %s |' % (t, size, interleaved_cells('interleaved', t, size, pooled, 'nmia'))
               for t in ('tcp', 'inproc') for size in ('64 B', '512 B', '1 KiB', '64 KiB'))
    out.extend('| %s | 64 B | %s |' % (t, interleaved_cells('interleaved-64-2026-11-25', t, '64 B', pooled, 'nmira')) for t in ('tcp', 'inproc'))
    inproc40 = interleaved_rows('interleaved-64-2026-11-25')[('transport', 'inproc', '64 B', pooled)]
    behind = [float(interleaved_cells(folder, 'tcp', '64 B', pooled, 'i').split('\u2013')[0])
              for folder in ('interleaved', 'interleaved-64-2026-11-25')]
    out.append('the two runs together put the pooled send between about %.0f %% behind and level' % (100 * (1 - min(behind))))
    out.append('Over inproc the pooled send is now ahead at 64 B too (%.2fx, %s of %s JVMs)' % (
        float(inproc40[1]), inproc40[4].split('/')[0], inproc40[0]))
    # through zmq_send: the ways before the change, after it, at 512 B and 1 KiB, and without the in-flight count
    for folder, cells in (('experiments/small-send-ways', (('tcp', 'nativeSegment'), ('tcp', 'zeroCopyPooled'), ('tcp', 'reusedBuffer'),
                                                           ('inproc', 'nativeSegment'), ('inproc', 'zeroCopyPooled'))),
                          ('experiments/small-send-zmqsend', (('tcp', 'zeroCopyPooled'), ('tcp', 'nativeSegment'), ('inproc', 'zeroCopyPooled'),
                                                              ('inproc', 'nativeSegment')))):
        out.extend('| %s | 64 B | `%s` | %s |' % (t, way, interleaved_cells(folder, t, '64 B', way + ' / byteArray', 'nmia')) for t, way in cells)
    out.extend('| tcp | %s | `zeroCopyPooled` | %s |' % (size, interleaved_cells('experiments/small-send-zmqsend-larger', 'tcp', size,
                                                                                  pooled, 'nmia')) for size in ('512 B', '1 KiB'))
    before, after, no_count = ({t: median_of(folder, t, '64 B', pooled) for t in ('tcp', 'inproc')} for folder in (
        'experiments/small-send-ways', 'experiments/small-send-zmqsend', 'experiments/small-send-no-count'))
    native = {t: median_of('experiments/small-send-zmqsend', t, '64 B', 'nativeSegment / byteArray') for t in ('tcp', 'inproc')}
    out.append('The pooled send gained about %.0f %% at 64 B over tcp (%.3f to %.3f) and %.0f %% over inproc (%.3f to %.3f)' % (
        100 * (after['tcp'] / before['tcp'] - 1), before['tcp'], after['tcp'], 100 * (after['inproc'] / before['inproc'] - 1),
        before['inproc'], after['inproc']))
    out.append('512 B and 1 KiB stay where the 30- and 10-JVM runs put them (%.3f and %.3f)' % (
        median_of('interleaved', 'tcp', '512 B', pooled), median_of('interleaved', 'tcp', '1 KiB', pooled)))
    out.append('`nativeSegment` stays about %.0f %% ahead of it in the same JVMs (%.3f against %.3f)' % (
        100 * (native['tcp'] / after['tcp'] - 1), native['tcp'], after['tcp']))
    tcp_no_count = interleaved_rows('experiments/small-send-no-count')[('transport', 'tcp', '64 B', pooled)]
    out.append('measured tcp 64 B %sx `byte[]` (%s, %s of %s JVMs ahead) and inproc %.3fx, against %.3fx and %.3fx with the count' % (
        tcp_no_count[1], tcp_no_count[2], tcp_no_count[4].split('/')[0], tcp_no_count[0], no_count['inproc'], after['tcp'], after['inproc']))
    # the medians as interleaved.py prints them (three decimals, often a mean of two such), rounded half up as written
    ways_native = [half_up(interleaved_cells(folder, t, '64 B', 'nativeSegment / byteArray', 'm'))
                   for folder in ('experiments/small-send-ways', 'experiments/small-send-zmqsend') for t in ('tcp', 'inproc')]
    out.append('(%s\u2013%sx over tcp, %s\u2013%sx over inproc in these runs)' % (
        min(ways_native[0::2]), max(ways_native[0::2]), min(ways_native[1::2]), max(ways_native[1::2])))
    parallel = {cells[1]: cells for cells, _ in verdict_rows('experiments/pipeline-parallel-zmqsend', 'pipeline-parallel-tcp')}
    out.append('gave %sx JeroMQ + zstd-jni at 1 KiB (%s; zmqzstd %s msg/s), %sx at 64 KiB and %sx at 1 MiB' % (
        parallel['1 KiB'][4], parallel['1 KiB'][5], parallel['1 KiB'][2], parallel['64 KiB'][4], parallel['1 MiB'][4]))
    return out


check('Transport: the small pooled send, and through zmq_send', small_pooled_send)


def small_send_intel():
    """"Again at 64 B, on the Intel machine" (results/experiments/small-send-2026-11-28/) beside the AMD run of
    small-send-zmqsend, and "send(MemorySegment) after the review" (results/experiments/send-segment-review/{before,after}/)."""
    intel, amd = 'experiments/small-send-2026-11-28', 'experiments/small-send-zmqsend'
    pooled, native = 'zeroCopyPooled / byteArray', 'nativeSegment / byteArray'
    out = ['| %s | 64 B | `%s` | %s |' % (t, way, interleaved_cells(intel, t, '64 B', way + ' / byteArray', 'nmia'))
           for t in ('tcp', 'inproc') for way in ('zeroCopyPooled', 'nativeSegment')]
    tcp = interleaved_rows(intel)[('transport', 'tcp', '64 B', pooled)]
    inproc = interleaved_rows(intel)[('transport', 'inproc', '64 B', pooled)]
    out.append('on the Intel machine of 2026-11-28, **%sx**, %s, ahead in all %s JVMs' % (tcp[1], tcp[2], tcp[0]))
    out.append('The same 20 JVMs on the Intel machine (2026-11-28, "Again at 64 B, on the Intel machine"): tcp **%sx** (%s), inproc '
               '%sx (%s).' % (tcp[1], tcp[2], inproc[1], inproc[2]))
    out.append('on the Intel machine of 2026-11-28 %sx, ahead in all %s JVMs' % (tcp[1], tcp[0]))
    if tcp[4] != '%s/%s' % (tcp[0], tcp[0]):
        raise ValueError('small-send-2026-11-28: the pooled send is not ahead in every JVM over tcp')
    share = {m: median_of(f, 'tcp', '64 B', native) / median_of(f, 'tcp', '64 B', pooled) for m, f in (('intel', intel), ('amd', amd))}
    out.append('`nativeSegment`, which leaves out both the array\'s copy and the pool, was %.3fx `byte[]` here against %.3fx there' % (
        median_of(intel, 'tcp', '64 B', native), median_of(amd, 'tcp', '64 B', native)))
    out.append('(%.3f / %.3f and %.3f / %.3f), is about %.0f %% here against %.0f %% there' % (
        median_of(intel, 'tcp', '64 B', native), median_of(intel, 'tcp', '64 B', pooled), median_of(amd, 'tcp', '64 B', native),
        median_of(amd, 'tcp', '64 B', pooled), 100 * (share['intel'] - 1), 100 * (share['amd'] - 1)))
    rates = {}
    for way in ('byteArray', 'zeroCopyPooled', 'nativeSegment'):
        found = []
        for path in glob.glob(os.path.join(RESULTS, intel, 'transport-tcp-64-j*.txt')):
            with open(path) as f:
                found += [int(x) for x in re.findall(r'^%s +msgs_per_s=(\d+)' % way, f.read(), re.M)]
        if len(found) != 20:
            raise ValueError('small-send-2026-11-28: %d rates of %s over tcp, not 20' % (len(found), way))
        rates[way] = statistics.median(found) / 1e6
    out.append('here: %.2f M msg/s for `byteArray`, %.2f M for `zeroCopyPooled`, %.2f M for `nativeSegment`' % (
        rates['byteArray'], rates['zeroCopyPooled'], rates['nativeSegment']))
    # send(MemorySegment) before and after the review
    review = 'experiments/send-segment-review/'
    jar = {v: {t: median_of(review + v, t, '64 B', native) for t in ('tcp', 'inproc')} for v in ('before', 'after')}
    out.append('`nativeSegment` / `byte[]` was %.3fx over tcp and %.3fx over inproc with the jar of bd2e3d05 (before), %.3fx and %.3fx '
               'with the jar of 1844ea66 (after)' % (jar['before']['tcp'], jar['before']['inproc'], jar['after']['tcp'],
                                                    jar['after']['inproc']))
    pairs = {}
    for t in ('tcp', 'inproc'):
        ratio = []
        for j in range(1, 7):
            x = {}
            for v in ('before', 'after'):
                with open(os.path.join(RESULTS, review + v, 'transport-%s-64-j%d.txt' % (t, j))) as f:
                    x[v] = float(re.search(r'^nativeSegment .*x_byteArray=([0-9.]+)', f.read(), re.M).group(1))
            ratio.append(x['after'] / x['before'])
        pairs[t] = '%.3f over %s (%.3f\u2013%.3f)' % (statistics.median(ratio), t, min(ratio), max(ratio))
    out.append('per pair of JVMs after over before %s and %s: no cost resolved in six pairs' % (pairs['tcp'], pairs['inproc']))
    readme = ['where it had been about 2 %% behind (%sx, %s), and %sx ahead on the Intel one (%s, every one of %s JVMs; '
              '2026-11-28)' % (interleaved_cells(amd, 'tcp', '64 B', pooled, 'm'), interleaved_cells(amd, 'tcp', '64 B', pooled, 'i'),
                               tcp[1], tcp[2], tcp[0])]
    return out, readme


check('Transport: again at 64 B on the Intel machine, and send(MemorySegment) after the review', small_send_intel)


def small_send_own_copy():
    """"The small pooled send's own copy": results/small-send-own-copy/{old,new}/ (interleaved, with the pooled send paired
    against nativeSegment) and results/pool-first-cache/ (PoolBenchmark.rentRelease, six rounds alternating the jars)."""
    folder = 'small-send-own-copy/'
    pooled, native, paired = 'zeroCopyPooled / byteArray', 'nativeSegment / byteArray', 'zeroCopyPooled / nativeSegment (paired)'

    def cell(v, t, size, way):  # median (95 % interval, JVMs above 1)
        c = interleaved_rows(folder + v, 'zeroCopyPooled/nativeSegment')[('transport', t, size, way)]
        return '%s (%s, %s)' % (c[1], c[2], c[4])

    out = ['| %s | %s | %s | %s | %s | %s |' % (t, size, cell('old', t, size, pooled), cell('new', t, size, pooled),
                                                cell('old', t, size, paired), cell('new', t, size, paired))
           for t, size in (('tcp', '64 B'), ('tcp', '256 B'), ('inproc', '64 B'))]
    m = {v: {w: median_of(folder + v, 'tcp', '64 B', w, 'zeroCopyPooled/nativeSegment') for w in (pooled, native, paired)}
         for v in ('old', 'new')}
    out.append('(paired %.3f to %.3f)' % (m['old'][paired], m['new'][paired]))
    out.append("the pooled send's lead over `byte[]` grew from %.3fx to %.3fx" % (m['old'][pooled], m['new'][pooled]))
    out.append('`nativeSegment` / `byteArray` was 1.063x then and %.3fx (old jar) and %.3fx (new jar) here' % (
        m['old'][native], m['new'][native]))
    rent = {v: [1 / score('pool-first-cache/rent-release-r%d-%s.json' % (r, v), 'rentRelease') for r in range(1, 7)]  # ns
            for v in ('old', 'new')}
    ratios_ = [n / o for o, n in zip(rent['old'], rent['new'])]
    if max(ratios_) >= 1:
        raise ValueError('pool-first-cache: a round where the new jar was not faster')
    out.append('took %.1f ns with the old jar and %.1f ns with the new (new / old %.3f, lower in every round)' % (
        statistics.median(rent['old']), statistics.median(rent['new']), statistics.median(ratios_)))
    return out


check("Transport: the small pooled send's own copy", small_send_own_copy)


# --- "Parallel compression: the second core": the interleaved runs and the contestants in JVMs of their own --------

def own_jvm_runs(folder, size):
    """A folder of pipeline-own-jvm/run.sh: per configuration ('alone-jeromqZstdjni', 'alone-zmqzstd3', 'shared'), per run in
    order, way -> (msg/s, the JVM's median ratio to JeroMQ + zstd-jni over its rounds, a Decimal, or None)."""
    found = {}
    for config in ('alone-jeromqZstdjni', 'alone-zmqzstd3', 'shared'):
        for path in sorted(glob.glob(os.path.join(RESULTS, folder, '%s-%d-r*.txt' % (config, size))),
                           key=lambda p: int(p.rsplit('-r', 1)[1].split('.')[0])):
            run = {}
            with open(path) as f:
                text = f.read()
            medians = script('interleaved').jvm_medians(text, decimal.Decimal)
            for line in text.splitlines():
                fields = line.split()
                if len(fields) > 1 and fields[1].startswith('msgs_per_s='):
                    run[fields[0]] = (float(fields[1].split('=')[1]), medians[fields[0]][1] if fields[0] in medians else None)
            found.setdefault(config, []).append(run)
    return found


def own_jvm_rates(runs, config, way):
    """The msg/s of WAY in each run of CONFIG, of own_jvm_runs' RUNS."""
    return [run[way][0] for run in runs[config]]


def own_jvm_lead(runs):
    """zmqzstd@3 alone over JeroMQ + zstd-jni alone, of own_jvm_runs' RUNS, the runs paired in order."""
    return [a / b for a, b in zip(own_jvm_rates(runs, 'alone-zmqzstd3', 'zmqzstd@3'), own_jvm_rates(runs, 'alone-jeromqZstdjni', 'jeromqZstdjni'))]


def parallel_compression():
    """The interleaved ring-64 table and the reruns after each change, the own-JVM table with its reruns, and JeroMQ beside
    one way at a time."""
    three, two, one = 'zmqzstd@3 / jeromqZstdjni', 'zmqzstd@2 / jeromqZstdjni', 'zmqzstd / jeromqZstdjni'
    ring = 'interleaved-pipeline-ring64'
    out = []
    for t, size, target in (('tcp', '1 KiB', '1.3x'), ('tcp', '64 KiB', '2x'), ('tcp', '1 MiB', '2x'), ('inproc', '1 KiB', '\u2013'),
                            ('inproc', '64 KiB', '\u2013')):
        cells = [interleaved_rows(ring)[('pipeline', t, size, way)] for way in (one, three)]
        out.append('| %s | %s | %s | %s |' % (t, size, ' | '.join('%s | %s | %s' % (c[1], c[2], c[4]) for c in cells), target))

    def rerun(folder, sizes, ways):
        """Per way, the medians at SIZES over tcp; 'every JVM ahead' when zmqzstd@3 was ahead in every JVM at every size."""
        found = interleaved_rows(folder)
        cells = {way: [found[('pipeline', 'tcp', s, way)] for s in sizes] for way in ways}
        ahead = all(c[4] == '%s/%s' % (c[0], c[0]) for c in cells[three])
        return {way: [c[1] for c in found_cells] for way, found_cells in cells.items()}, cells, (
            'every JVM ahead' if ahead else 'not every JVM ahead')

    m, cells, ahead = rerun('interleaved-pipeline-review', ('1 KiB', '64 KiB', '1 MiB'), (three,))
    out.append('zmqzstd@3 / jeromqZstdjni %s (%s) at 1 KiB, %s at 64 KiB, %s at 1 MiB, %s' % (
        m[three][0], cells[three][0][3], m[three][1], m[three][2], ahead))
    m, _, ahead = rerun('interleaved-pipeline-final', ('64 B', '1 KiB', '64 KiB', '1 MiB'), (three, one))
    out.append('zmqzstd@3 / jeromqZstdjni %s at 64 B, %s at 1 KiB, %s at 64 KiB, %s at 1 MiB, %s; one thread %s, %s, %s and %s' % tuple(
        m[three] + [ahead] + m[one]))
    out.append('(one thread at 1 KiB measured %s in the six JVMs of the first table)' % '\u2013'.join(
        str(half_up(v)) for v in interleaved_rows(ring)[('pipeline', 'tcp', '1 KiB', one)][3].split('\u2013')))
    m, _, ahead = rerun('interleaved-pipeline-session3', ('1 KiB', '64 KiB', '1 MiB'), (three, one))
    out.append('zmqzstd@3 / jeromqZstdjni %s at 1 KiB, %s at 64 KiB, %s at 1 MiB, %s; one thread %s, %s, %s' % tuple(
        m[three] + [ahead] + m[one]))
    m, _, ahead = rerun('interleaved-pipeline-session4', ('1 KiB', '64 KiB'), (three, two, one))
    out.append('zmqzstd@3 / jeromqZstdjni %s at 1 KiB and %s at 64 KiB, zmqzstd@2 %s and %s, %s; one thread %s and %s' % tuple(
        m[three] + m[two] + [ahead] + m[one]))
    m, cells, ahead = rerun('interleaved-pipeline-session5', ('1 KiB', '64 KiB'), (three, one))
    out.append('zmqzstd@3 / jeromqZstdjni %s at 1 KiB (%s) and %s at 64 KiB, %s; one thread %s and %s' % (
        m[three][0], cells[three][0][3], m[three][1], ahead, m[one][0], m[one][1]))
    at_1k = [float(interleaved_rows(folder)[('pipeline', 'tcp', '1 KiB', three)][1]) for folder in (
        ring, 'interleaved-pipeline-review', 'interleaved-pipeline-final', 'interleaved-pipeline-session3', 'interleaved-pipeline-session4',
        'interleaved-pipeline-session5')]
    out.append('the interleaved ratio at 1 KiB (%sx in the runs above)' % span(at_1k))
    # each contestant alone in its JVM and the two sharing one
    folder = 'experiments/pipeline-own-jvm'

    def cell(values, size):  # 'median (lowest\u2013highest)' msg/s: in K with two decimals at 64 KiB, one below; 1 MiB as is
        if size >= 1048576:
            return '%.1f (%.0f\u2013%.0f)' % (statistics.median(values), min(values), max(values))
        digits = 2 if size == 65536 else 1
        return '%.*f K (%.*f\u2013%.*f)' % (digits, statistics.median(values) / 1000, digits, min(values) / 1000, digits, max(values) / 1000)

    def sharing(runs):  # the shared JVMs' median ratios of zmqzstd@3 to JeroMQ, as printed
        return [run['zmqzstd@3'][1] for run in runs['shared']]

    lead, cost, jeromq_alone = {}, {}, {}  # per size: (each alone, sharing a JVM), JeroMQ's loss when shared, its msg/s alone
    for size in (64, 256, 512, 1024, 65536, 1048576):
        r = own_jvm_runs(folder, size)
        jeromq, ours = own_jvm_rates(r, 'alone-jeromqZstdjni', 'jeromqZstdjni'), own_jvm_rates(r, 'alone-zmqzstd3', 'zmqzstd@3')
        shared = {w: own_jvm_rates(r, 'shared', w) for w in ('jeromqZstdjni', 'zmqzstd@3')}
        paired, rounds = own_jvm_lead(r), sharing(r)
        lead[size] = ('%.2fx' % statistics.median(paired), '%sx' % half_up(statistics.median(rounds)))
        cost[size] = 100 * (1 - statistics.median(shared['jeromqZstdjni']) / statistics.median(jeromq))
        jeromq_alone[size] = statistics.median(jeromq)
        if size == 1024:
            detail = '%.2fx (%.2f\u2013%.2f, %d JVMs' % (statistics.median(paired), min(paired), max(paired), len(paired))
        out.append('| %s | %s | %s, %.2fx | %s | %s, %.2fx | %.2fx (%.2f\u2013%.2f) | %sx (%s\u2013%s) |' % (
            script('tables').size_label(size), cell(jeromq, size), cell(shared['jeromqZstdjni'], size),
            statistics.median(shared['jeromqZstdjni']) / statistics.median(jeromq), cell(ours, size), cell(shared['zmqzstd@3'], size),
            statistics.median(shared['zmqzstd@3']) / statistics.median(ours), statistics.median(paired), min(paired), max(paired),
            half_up(statistics.median(rounds)), half_up(min(rounds)), half_up(max(rounds))))
    after = {size: own_jvm_runs(folder + '/after-maxparts', size) for size in (1024, 65536)}
    pairs = {size: own_jvm_lead(r) for size, r in after.items()}
    out.append('%.2fx at 1 KiB (%s) and %.2fx at 64 KiB (%s); sharing a JVM %sx and %sx' % (
        statistics.median(pairs[1024]), fmt(sorted(pairs[1024])), statistics.median(pairs[65536]), fmt(sorted(pairs[65536])),
        *(half_up(statistics.median(sharing(after[s]))) for s in (1024, 65536))))
    out.append('(JeroMQ alone %.1f K and %.2f K msg/s, zmqzstd@3 alone %.1f K and %.2f K)' % tuple(
        statistics.median(own_jvm_rates(after[s], config, way)) / 1000 for config, way in (('alone-jeromqZstdjni', 'jeromqZstdjni'),
                                                                                  ('alone-zmqzstd3', 'zmqzstd@3')) for s in (1024, 65536)))
    lib = own_jvm_runs(folder + '/libzstd-1.5.7', 1024)
    paired = own_jvm_lead(lib)
    ours = cell(own_jvm_rates(lib, 'alone-zmqzstd3', 'zmqzstd@3'), 1024)
    out.append('zmqzstd@3 alone %s msg/s (%s, JeroMQ + zstd-jni alone %s, %.2fx (%.2f\u2013%.2f) each alone, %sx sharing a JVM '
               '(where JeroMQ ran at %.2fx of its own rate)' % (
                   ours.split(' (')[0], ours.split(' (')[1], cell(own_jvm_rates(lib, 'alone-jeromqZstdjni', 'jeromqZstdjni'), 1024),
                   statistics.median(paired), min(paired), max(paired), half_up(statistics.median(sharing(lib))),
                   statistics.median(own_jvm_rates(lib, 'shared', 'jeromqZstdjni')) / statistics.median(own_jvm_rates(lib, 'alone-jeromqZstdjni',
                                                                                                     'jeromqZstdjni'))))
    out.append('each in a JVM of its own %s, "In a JVM of its own"; %.2fx with zmq-zstd on zstd-jni\'s libzstd 1.5.7)' % (
        detail, statistics.median(paired)))
    out.append('At 1 KiB JeroMQ + zstd-jni loses %.0f %% of its rate when the other contestants live in its JVM' % cost[1024])
    out.append('the lead that a service running one of the two would see: %s here' % lead[1024][0])
    out.append('At 64 KiB and 1 MiB the two ways of measuring agree (%s and %s, %s and %s)' % (lead[65536] + lead[1048576]))
    out.append('At 64 B the shared JVM costs JeroMQ %.0f %% and the lead stays (%s alone, %s shared). At 256 B and 512 B it costs '
               'JeroMQ %.0f %% and %.0f %%, as at 1 KiB, and the lead alone is %s and %s (%s and %s shared' % (
                   cost[64], lead[64][0], lead[64][1], cost[256], cost[512], lead[256][0], lead[512][0], lead[256][1], lead[512][1]))
    out.append('JeroMQ + zstd-jni alone moves %s K messages a second at every size from 256 B to 1 KiB' % span(
        [jeromq_alone[s] / 1000 for s in (256, 512, 1024)], 0))
    # JeroMQ + zstd-jni beside one other way at a time (summary-1024.txt: its msg/s per JVM)
    with open(os.path.join(RESULTS, 'experiments/jeromq-shared/summary-1024.txt')) as f:
        beside = {line.split()[0]: [decimal.Decimal(v) for v in line.split()[1:]] for line in f if line.strip()}
    alone_median = statistics.median(beside['jeromqZstdjni'])
    for label, key in (('beside `zmqzstd@3` (parallel sender, 3 workers)', 'jeromqZstdjni+zmqzstd@3'),
                       ('beside `zmqzstd` (one compressing thread)', 'jeromqZstdjni+zmqzstd'),
                       ('beside `libzmqBytes` (libzmq + zstd-jni `byte[]`)', 'jeromqZstdjni+libzmqBytes')):
        out.append('| %s | %s | %.2fx |' % (label, ' | '.join('%s K' % half_up(v / 1000, 1) for v in beside[key]),
                                            statistics.median(beside[key]) / alone_median))
    out.append('| alone | %s | 1 |' % ' | '.join('%s K' % half_up(v / 1000, 1) for v in beside['jeromqZstdjni']))
    return out


check('Parallel compression: the interleaved runs and each contestant in a JVM of its own', parallel_compression)


def cpu_by_library(name):
    """cpu-by-library.sh's summary NAME.md: per run in order, (label, msg/s, cores busy, all µs, zstd µs), from its header lines
    and its 'all' rows."""
    runs = []
    with open(os.path.join(RESULTS, 'experiments/cpu-by-library', name + '.md')) as f:
        for line in f:
            if line.startswith('# ') and ' msg/s, cores busy ' in line:
                label, rest = line[2:].split(': ', 1)
                fields = rest.replace(',', '').split()
                runs.append([label, float(fields[0]), float(fields[4]), float(fields[5])])
            elif line.startswith('| all |'):
                runs[-1].append(float(line.strip('|\n').split('|')[1]))
    return runs


def parallel_compression_more():
    """The rest of "Parallel compression" up to its verdicts: µs per message by library, the second core against the bound,
    the ring's depth, the first ring of 16, the number of workers and the verdict on libzstd 1.5.7."""
    out = []
    for name, suffix in (('1024', ''), ('1024-libzstd-1.5.7', ', libzstd 1.5.7')):
        runs = cpu_by_library(name)
        for i in range(0, len(runs), 2):
            ours, jeromq = runs[i], runs[i + 1]
            out.append('| %d%s | %s | %s | %.2fx | %.2f / %.2f / %.2f | %.2f | %.2f / %.2f / %.2f | %.2f |' % (
                i // 2 + 1, suffix, thousands(ours[1]), thousands(jeromq[1]), ours[1] / jeromq[1], ours[3], ours[4], ours[3] - ours[4],
                ours[2], jeromq[3], jeromq[4], jeromq[3] - jeromq[4], jeromq[2]))
    ring, three, one = 'interleaved-pipeline-ring64', 'zmqzstd@3 / jeromqZstdjni', 'zmqzstd / jeromqZstdjni'
    sizes = ('1 KiB', '64 KiB', '1 MiB')
    lifted = [median_of(ring, 'tcp', s, three, kind='pipeline') for s in sizes]
    own = statistics.median(own_jvm_lead(own_jvm_runs('experiments/pipeline-own-jvm', 1024)))
    out.append('over tcp 1 KiB to %.2fx JeroMQ + zstd-jni in the interleaved runs (%.2fx with each in a JVM of its own, above), 64 KiB '
               'to %.2fx, 1 MiB to %.2fx, in every JVM, where one compressing thread gives %.2fx, %.2fx and %.2fx' % (
                   lifted[0], own, lifted[1], lifted[2], *(median_of(ring, 'tcp', s, one, kind='pipeline') for s in sizes)))
    depth = {(w, s): half_up(interleaved_cells('interleaved-pipeline-ring', 'tcp', s, 'zmqzstd@3x%d / zmqzstd@3' % w, 'm', kind='pipeline'))
             for w in (64, 256) for s in ('1 KiB', '64 KiB')}
    out.append('64 slots %sx at 1 KiB and %sx at 64 KiB, 256 slots %sx and %sx' % (
        depth[(64, '1 KiB')], depth[(64, '64 KiB')], depth[(256, '1 KiB')], depth[(256, '64 KiB')]))
    first = 'interleaved-pipeline'
    for t, size, target in (('tcp', '64 B', '\u2013'), ('tcp', '1 KiB', '1.3x'), ('tcp', '64 KiB', '2x'), ('tcp', '1 MiB', '2x'),
                            ('inproc', '1 KiB', '\u2013'), ('inproc', '64 KiB', '\u2013')):
        cells = [interleaved_rows(first)[('pipeline', t, size, way)] for way in (one, three)]
        out.append('| %s | %s | %s | %s |' % (t, size, ' | '.join('%s | %s | %s' % (c[1], c[2], c[4]) for c in cells), target))
    out.append('1 KiB was %.2fx. At 64 B handing each message to a worker cost more than compressing it (%.2fx against %.2fx on the '
               'sender\'s own thread)' % (median_of(first, 'tcp', '1 KiB', three, kind='pipeline'),
                                        median_of(first, 'tcp', '64 B', three, kind='pipeline'), median_of(first, 'tcp', '64 B', one, kind='pipeline')))
    workers = ('zmqzstd / jeromqZstdjni',) + tuple('zmqzstd@%d / jeromqZstdjni' % n for n in (2, 3, 4))
    out.extend('| %s | %s |' % (s, ' | '.join(interleaved_cells('interleaved-pipeline-workers', 'tcp', s, w, 'm', kind='pipeline')
                                               for w in workers)) for s in sizes)
    lib = {(check_name, cells[1]): cells for check_name in ('pipeline-parallel-lib', 'pipeline-parallel-tcp')
           for cells, _ in verdict_rows('verdict-parallel-lib157', check_name)}
    for label, check_name in (('1.5.7, built here', 'pipeline-parallel-lib'), ('system 1.5.4, same rounds', 'pipeline-parallel-tcp')):
        out.append('| %s | %s |' % (label, ' | '.join('%sx (%s)' % (lib[(check_name, s)][4], lib[(check_name, s)][5]) for s in sizes)))
    return out


check('Parallel compression: CPU by library, the ring, the workers and libzstd 1.5.7', parallel_compression_more)


def parallel_compression_repeated():
    """The ring-of-64 interleaved run and the inline run as the Summary, Findings and Open work repeat them, and the inline
    table of "Small messages: handed over, or sent by the producer itself"."""
    ring = interleaved_rows('interleaved-pipeline-ring64')

    def x(size, way, digits=2):  # the median of the JVMs' medians, rounded half up as the document writes it
        return '%sx' % half_up(ring[('pipeline', 'tcp', size, way)][1], digits)

    def low_high(size, way):
        low, high = ring[('pipeline', 'tcp', size, way)][3].split('\u2013')
        return '%s\u2013%s' % (half_up(low), half_up(high))

    three, one, sizes = 'zmqzstd@3 / jeromqZstdjni', 'zmqzstd / jeromqZstdjni', ('1 KiB', '64 KiB', '1 MiB')
    inproc = [half_up(ring[('pipeline', 'inproc', s, three)][1]) for s in ('1 KiB', '64 KiB')]
    inline = interleaved_rows('interleaved-pipeline-inline')
    small = {s: [inline[('pipeline', 'tcp', s, w + ' / jeromqZstdjni')][1] for w in ('zmqzstd', 'zmqzstd@3i0', 'zmqzstd@3i65536')]
             for s in ('64 B', '256 B', '512 B', '1 KiB', '2 KiB')}
    out = ['tcp 1 KiB %s (%s), 64 KiB %s (%s), 1 MiB %s (%s), every JVM ahead; inproc 1 KiB %sx, 64 KiB %sx; 64 B %sx, 256 B %sx, '
           '512 B %sx (3 JVMs; one thread %sx, %sx, %sx)' % (
               x('1 KiB', three), low_high('1 KiB', three), x('64 KiB', three), low_high('64 KiB', three), x('1 MiB', three),
               low_high('1 MiB', three), inproc[0], inproc[1], *(half_up(small[s][1]) for s in ('64 B', '256 B', '512 B')),
               *(half_up(small[s][0]) for s in ('64 B', '256 B', '512 B'))),
           'interleaved tcp %s, %s, %s.' % tuple(x(s, one) for s in sizes),
           'moved %s JeroMQ + zstd-jni at 1 KiB, %s at 64 KiB and %s at 1 MiB over tcp where one thread moved %s, %s and %s' % (
               tuple(x(s, three) for s in sizes) + tuple(x(s, one) for s in sizes)),
           '(64 B %sx against %sx, 256 B %sx against %sx)' % (half_up(small['64 B'][1]), half_up(small['64 B'][0]),
                                                              half_up(small['256 B'][1]), half_up(small['256 B'][0]))]
    out.extend('| %s | %s | %s | %s |' % ((s,) + tuple(small[s])) for s in small)
    return out


check('Parallel compression: the interleaved runs as the Summary, Findings and Open work repeat them', parallel_compression_repeated)


def parallel_verdicts():
    """The prose of the parallel sender's JMH verdicts: after the fixes of 2026-11-26 (twice), at level 1, with the rings of 64
    and of 16."""
    sizes = ('1 KiB', '64 KiB', '1 MiB')

    def cells(folder, check_name):  # (transport, size) -> verdict.py's row
        return {tuple(c[:2]): c for c, _ in verdict_rows(folder, check_name)}

    def rate(cell):  # a msg/s cell as the prose gives it: whole msg/s below a thousand
        return cell if cell.endswith(' K') else '%.0f' % float(cell)

    out = []
    before = cells('verdict-parallel-2026-11-25', 'pipeline-parallel')
    first, second = (cells(folder, 'pipeline-parallel-tcp') for folder in ('verdict-parallel-2026-11-26', 'verdict-parallel-2026-11-26b'))
    for run in (first, second):
        out.append('1 KiB %sx (%s), 64 KiB %sx (%s), 1 MiB %sx (%s), %s B/msg' % (
            *(v for s in sizes for v in (run[('tcp', s)][4], run[('tcp', s)][5])), ' / '.join(run[('tcp', s)][6] for s in sizes)))
    out.append('within the rounds of the runs before (%sx, %sx, %sx on 2026-11-25)' % tuple(before[('tcp', s)][4] for s in sizes))
    out.append('zmqzstd\'s own rates (%s, %s, %s msg/s) match the run before (%s, %s, %s), while JeroMQ + zstd-jni\'s fell (%s, %s, %s '
               'against %s, %s, %s)' % tuple(rate(run[('tcp', s)][i]) for i in (2, 3) for run in (second, first) for s in sizes))
    # level 1 against level 3 in the same rounds
    l1, l3 = cells('verdict-parallel-l1', 'pipeline-parallel-l1'), cells('verdict-parallel-l1', 'pipeline-parallel-tcp')
    for label, run in (('1', l1), ('3, same rounds', l3)):
        out.append('| %s | %s |' % (label, ' | '.join('%sx (%s), %s against %s' % (
            run[('tcp', s)][4], run[('tcp', s)][5], rate(run[('tcp', s)][2]), rate(run[('tcp', s)][3])) for s in sizes)))

    def median_rate(check_name, contestant, size):  # the median over the rounds of a contestant's msg/s, as verdict.py takes it
        return statistics.median(score('verdict-parallel-l1/%s-r%d.json' % (check_name, i), 'transfer', contestant=contestant,
                                       size=size, transport='tcp', compressionThreads=3) for i in range(1, 6))

    gain = {(c, size): median_rate('pipeline-parallel-l1', c, size) / median_rate('pipeline-parallel-tcp', c, size)
            for c in ('zmqzstd', 'jeromqZstdjni') for size in (1024, 65536, 1048576)}
    rounds64 = sorted(verdict_rounds('verdict-parallel-l1', 'pipeline-parallel-l1', 'transfer', 'contestant', 'zmqzstd',
                                     ('jeromqZstdjni',), size=65536, transport='tcp', compressionThreads=3))
    over = [r for r in rounds64 if r >= 2]
    out.append('JeroMQ + zstd-jni gains little from the cheaper level at 64 KiB (%s against %s messages per second, %.2fx) while zmqzstd '
               'gains %.2fx, so the ratio stays where it was (two rounds of five reached %s, the other three %sx)' % (
                   l1[('tcp', '64 KiB')][3], l3[('tcp', '64 KiB')][3], gain[('jeromqZstdjni', 65536)], gain[('zmqzstd', 65536)],
                   ' and '.join('%.2fx' % r for r in over), span([r for r in rounds64 if r < 2])))
    out.append('at 1 MiB zmqzstd gains more (%.2fx against JeroMQ\'s %.2fx) and the ratio rises from %sx to %sx; at 1 KiB both gain about '
               'as much (%.2fx and %.2fx). At level 1 a 64 KiB message through zmqzstd is %s messages, %.0f MB of uncompressed telemetry '
               'per second' % (gain[('zmqzstd', 1048576)], gain[('jeromqZstdjni', 1048576)], l3[('tcp', '1 MiB')][4], l1[('tcp', '1 MiB')][4],
                               gain[('zmqzstd', 1024)], gain[('jeromqZstdjni', 1024)], l1[('tcp', '64 KiB')][2],
                               median_rate('pipeline-parallel-l1', 'zmqzstd', 65536) * 65536 / 1e6))
    out.append('Whole-JVM allocation %s B/msg at 1 KiB, %s at 64 KiB, %.1f at 1 MiB' % (
        l1[('tcp', '1 KiB')][6], l1[('tcp', '64 KiB')][6], float(l1[('tcp', '1 MiB')][6])))
    # the ring of 64 against the ring of 16, separate forks
    deep, shallow = cells('verdict-parallel-ring64', 'pipeline-parallel'), cells('verdict-parallel', 'pipeline-parallel')

    def x(run, t, size):
        return run[(t, size)][4] + 'x'

    out.append('tcp 64 B from %s to %s, 1 KiB from %s to %s (every round at or above %sx, where the ring of 16 went down to %sx), '
               'inproc 64 B from %s to %s and 1 KiB from %s to %s; 64 KiB over tcp %s (%s before). 1 MiB measured %s over both '
               'transports (%s and %s before)' % (
                   x(shallow, 'tcp', '64 B'), x(deep, 'tcp', '64 B'), x(shallow, 'tcp', '1 KiB'), x(deep, 'tcp', '1 KiB'),
                   deep[('tcp', '1 KiB')][5].split('\u2013')[0], shallow[('tcp', '1 KiB')][5].split('\u2013')[0],
                   x(shallow, 'inproc', '64 B'), x(deep, 'inproc', '64 B'), x(shallow, 'inproc', '1 KiB'), x(deep, 'inproc', '1 KiB'),
                   x(deep, 'tcp', '64 KiB'), x(shallow, 'tcp', '64 KiB'), low_high([float(deep[(t, '1 MiB')][4]) for t in ('tcp', 'inproc')])
                   + 'x', x(shallow, 'tcp', '1 MiB'), x(shallow, 'inproc', '1 MiB')))
    out.append('64 KiB over inproc %s (%s)' % (x(deep, 'inproc', '64 KiB'), x(shallow, 'inproc', '64 KiB')))
    interleaved16 = interleaved_rows('interleaved-pipeline')[('pipeline', 'tcp', '1 KiB', 'zmqzstd@3 / jeromqZstdjni')]
    out.append('Separate forks agree with the interleaved runs at 64 KiB and 1 MiB (tcp %s and %s, inproc %s and %s); at 1 KiB over tcp '
               'their rounds scatter from %sx to %sx around %s, where the interleaved JVMs gave %s (%s)' % (
                   x(shallow, 'tcp', '64 KiB'), x(shallow, 'tcp', '1 MiB'), x(shallow, 'inproc', '64 KiB'), x(shallow, 'inproc', '1 MiB'),
                   *shallow[('tcp', '1 KiB')][5].split('\u2013'), x(shallow, 'tcp', '1 KiB'), '%sx' % half_up(interleaved16[1]),
                   '\u2013'.join(str(half_up(v)) for v in interleaved16[2].split('\u2013'))))
    return out


check('Parallel compression: the prose of the JMH verdicts', parallel_verdicts)


def send_path_jvms(folder):
    """A summary.txt of claim/send-path/run.sh: (build, size) -> per JVM (zmqzstd@3 msg/s, its median ratio to JeroMQ as printed)."""
    found = {}
    with open(os.path.join(RESULTS, 'experiments/claim/send-path', folder, 'summary.txt')) as f:
        for line in f:
            build, size, rest = line.split(None, 2)
            values = rest.split(':', 1)[1].split()
            found[(build, int(size))] = [(float(values[i]), values[i + 1].rstrip('x')) for i in range(0, len(values), 2)]
    return found


def claim_and_send_path():
    """"Writing the payload where it is compressed": the claim table, and the send path before and after the split (three runs)."""
    out = []
    baseline = ' / zmqzstd@3w'
    for size in ('64 KiB', '1 KiB'):
        cells = [interleaved_rows('experiments/claim')[('pipeline', 'tcp', size, way + baseline)]
                 for way in ('zmqzstd@3c', 'zmqzstd@3', 'jeromqZstdjni')]
        out.append('| %s | %s |' % (size, ' | '.join('%s (%s)' % (c[1], c[3]) for c in cells)))
    def ahead(way, unit=''):  # 'k of n' JVMs above 1 of WAY, once if both sizes agree
        counts = [' of '.join(interleaved_rows('experiments/claim')[('pipeline', 'tcp', s, way + baseline)][4].split('/'))
                  for s in ('64 KiB', '1 KiB')]
        if counts[0] == counts[1]:
            return 'none' if counts[0].startswith('0 ') else '%s%s at both sizes' % (counts[0], unit)
        return '%s%s at 64 KiB and %s at 1 KiB' % (counts[0], unit, counts[1])

    out.append('`3c` ahead of `3w` in %s, `3` in %s, JeroMQ + zstd-jni in %s.)' % (
        ahead('zmqzstd@3c', ' JVMs'), ahead('zmqzstd@3'), ahead('jeromqZstdjni')))

    def peer_rates(size):  # JeroMQ + zstd-jni's msg/s in each JVM of the claim run, in thousands
        rates = []
        for path in glob.glob(os.path.join(RESULTS, 'experiments', 'claim', 'pipeline-tcp-%d-j*.txt' % size)):
            with open(path) as f:
                rates += [float(line.split('msgs_per_s=')[1].split()[0]) / 1000 for line in f if line.startswith('jeromqZstdjni ') and 'msgs_per_s=' in line]
        return rates

    large, small = peer_rates(65536), peer_rates(1024)
    out.append('(JeroMQ + zstd-jni %s K msg/s at 64 KiB, %.0f\u2013%.0f K at 1 KiB)' % (span(large, 1), min(small), max(small)))


    def paired(old, new):  # after / before per JVM, from the printed ratios (exact decimals, so that 1.125 rounds half up)
        return [decimal.Decimal(n[1]) / decimal.Decimal(o[1]) for o, n in zip(old, new)]

    def listed(values):  # at two decimals, rounded half up (from the three printed, or from exact quotients of them)
        return ', '.join(str(half_up(v)) for v in values)

    def per_jvm(values):  # the JVMs' ratios
        return listed(x for _, x in values)

    def median_x(values):
        return '%sx' % half_up(statistics.median(decimal.Decimal(x) for _, x in values))

    def compared(old, new, word, better):  # 'lowest\u2013highest, median m, WORD in k of n'
        r = paired(old, new)
        return '%s\u2013%s, median %s, %s in %d of %d' % (half_up(min(r)), half_up(max(r)), half_up(statistics.median(r)), word,
                                                      sum(1 for v in r if better(v)), len(r))

    first = send_path_jvms('.')
    old, new = first[('old', 1024)], first[('new', 1024)]
    out.append('| 1 KiB | %s | %s | %s | %s | %s |' % (per_jvm(old), median_x(old), per_jvm(new), median_x(new),
                                                      compared(old, new, 'lower', lambda v: v < 1)))
    old64, new64 = first[('old', 65536)], first[('new', 65536)]
    out.append('| 64 KiB | %s | %s | %s | %s | %s |' % (per_jvm(old64), median_x(old64), per_jvm(new64), median_x(new64),
                                                      listed(paired(old64, new64))))

    def spread(values):
        return max(float(x) for _, x in values) - min(float(x) for _, x in values)

    out.append('The JVMs of one build spread by %.2f and %.2f at 1 KiB and by %.2f and %.2f at 64 KiB' % (
        spread(old), spread(new), spread(old64), spread(new64)))
    rerun = send_path_jvms('at-da84678')
    old, new = rerun[('old', 1024)], rerun[('new', 1024)]
    out.append('| 1 KiB | %s | %s | %s | %s | %s |' % (per_jvm(old), median_x(old), per_jvm(new), median_x(new),
                                                      compared(old, new, 'higher', lambda v: v > 1)))
    out.append('zmqzstd@3\'s own rate: median %.1f K msg/s before, %.1f K after' % tuple(
        statistics.median(m for m, _ in v) / 1000 for v in (old, new)))
    topic = send_path_jvms('publish-topic')
    old, new = topic[('old', 1024)], topic[('new', 1024)]
    out.append('zmqzstd@3 / JeroMQ + zstd-jni %s before (median %s) and %s after (%s); paired %s; zmqzstd@3\'s own rate %.1f K and %.1f K '
               'msg/s (medians)' % (per_jvm(old), median_x(old), per_jvm(new), median_x(new), listed(paired(old, new)),
                                    *(statistics.median(m for m, _ in v) / 1000 for v in (old, new))))
    return out


check('Parallel compression: claim and commit, and the send path before and after', claim_and_send_path)


def cpu_budget_run(name):
    """One cpu-budget.sh output: the codec's ops/s ('compress 1', 'compress 2', 'decompress 1'), the two schedstat.py runs through
    schedstat_runs (by contestant), the I/O thread's perf figures (name -> value) and the compressing workers' µs per message
    (schedstat_runs keeps one thread per name; the three workers share theirs)."""
    codec, io, workers = {}, {}, 0.0
    with open(os.path.join(RESULTS, 'cpu-budget', name)) as f:
        for line in f:
            if line.startswith('codec '):
                fields = line.split()
                codec['%s %s' % (fields[1].rstrip(','), fields[2])] = float(fields[4])
            elif line.startswith('| zmqzstd-compres |'):
                workers += float(line.strip().strip('|').split('|')[-1])
            elif line.startswith('  syscalls:'):
                io[line.split()[0]] = float(line.split()[1])
            elif line.startswith('  user / kernel time:'):
                user, kernel = (float(v) for v in line.split(':')[1].split()[:3:2])
                io['kernel share'] = kernel / (user + kernel)
    runs = {contestant: run for (contestant, _), run in schedstat_runs('cpu-budget/' + name).items()}
    return codec, runs, io, workers


def cpu_budget():
    """"What 2x at 64 KiB would take": the table of cpu-budget.sh's two runs and the I/O thread's figures under it."""
    budget = [cpu_budget_run('cpu-budget-65536-r%d.txt' % i) for i in (1, 2)]

    def row(label, values, digits=1, suffix=''):
        return '| %s | %s |' % (label, ' | '.join('%.*f%s' % (digits, v, suffix) for v in values))

    def per_op(run, thread):  # the µs per message of one thread
        return float(run['threads'][thread][-1])

    compress = [1e6 / codec['compress 1'] for codec, *_ in budget]
    decompress = [1e6 / codec['decompress 1'] for codec, *_ in budget]
    ours = [runs['zmqzstd'] for _, runs, *_ in budget]
    peer = [runs['jeromqZstdjni'] for _, runs, *_ in budget]
    workers = [w for *_, w in budget]
    out = [row('compression alone, one thread (`CodecBenchmark`)', compress),
           row('two threads compressing at once, against one', [c['compress 2'] / c['compress 1'] for c, *_ in budget], 2, 'x'),
           row('decompression alone, one thread', decompress),
           row('**the codec alone, compression + decompression**', [a + b for a, b in zip(compress, decompress)]),
           row('in the pipeline: the 3 workers (compression, sending under the lock)', workers),
           row('the receiving thread (receive, decompress, check)', [per_op(r, 'io.zmqzstd.benc') for r in ours]),
           row('libzmq\'s I/O thread (tcp both ways)', [per_op(r, 'ZMQbg/IO/0') for r in ours]),
           row('the producer (copy into the ring, hand-over)', [per_op(r, 'zmqzstd-sender') for r in ours]),
           '| **the pipeline, all threads** (cores busy: %s) | %s |' % (', '.join(r['busy'] for r in ours), ' | '.join(
               '**%s**' % r['per_op'] for r in ours)),
           '| zmqzstd msg/s; JeroMQ + zstd-jni msg/s (its threads on a CPU: %s µs per message; cores busy %s) | %s |' % (
               ', '.join(r['per_op'] for r in peer), ', '.join(r['busy'] for r in peer), ' | '.join(
                   '%s; %s (**%.2fx**)' % (thousands(o['score']), thousands(p['score']), o['score'] / p['score']) for o, p in zip(ours, peer))),
           '| **2x JeroMQ + zstd-jni leaves per message**, two cores at %s busy (at 2.00) | %s |' % (
               ' / '.join(sorted({r['busy'] for r in ours})), ' | '.join('**%.1f** (%.1f)' % (
                   float(o['busy']) / (2 * p['score']) * 1e6, 2 / (2 * p['score']) * 1e6) for o, p in zip(ours, peer)))]
    ios = [io for _, _, io, _ in budget]
    # the calls per message as the first run counted them, the kernel's share over both
    out.append('(%.2f `sendto`, %.2f `recvfrom` and %.2f `epoll_wait` per message, %s %% of its time in the kernel)' % (
        *(ios[0]['syscalls:sys_enter_' + call] for call in ('sendto', 'recvfrom', 'epoll_wait')),
        span([100 * io['kernel share'] for io in ios], 0)))
    out.append('In the pipeline compression takes %.0f %% longer than alone (%s against %s µs)' % (
        100 * (statistics.median(workers) / statistics.median(compress) - 1), span(workers, 1), span(compress, 1)))
    return out


check('Parallel compression: what 2x at 64 KiB would take, the CPU of one message', cpu_budget)


# --- "Codec": the interleaved codec comparisons (interleaved.sh's codec: cells) ---------------------

def codec_interleaved():
    def cell(folder, method, size, way, detail=True, ahead=True):
        c = interleaved_rows(folder)[('codec', method, size, way + ' / zmqzstd')]
        if not detail:
            return c[1]
        return '%s (%s%s)' % (c[1], c[2], '; ' + c[4] if ahead else '')

    ten, six = 'interleaved', 'interleaved-codec-critical'
    out = []
    for method, size, bare in (('decompress', '256 B', 'bare-decompressDCtx'), ('decompress', '1 KiB', 'bare-decompressDCtx')):
        out.append('| %s | %s | %s | %s |' % (method, size, cell(ten, method, size, bare), cell(ten, method, size, 'aircompressor')))
        out.append('| %s | %s | %s | %s | %s | %s |' % (method, size, cell(six, method, size, bare), cell(six, method, size, bare + '-critical'),
                                                       cell(six, method, size, 'header-walk+bare'), cell(six, method, size, 'aircompressor')))
    out.append('| compress | 64 B | `ZSTD_compressCCtx` %s, `ZSTD_compress2` %s (%s) | %s |' % (
        cell(ten, 'compress', '64 B', 'bare-compressCCtx'), cell(ten, 'compress', '64 B', 'bare-compress2', False),
        interleaved_rows(ten)[('codec', 'compress', '64 B', 'bare-compress2 / zmqzstd')][4], cell(ten, 'compress', '64 B', 'aircompressor')))
    out.append('| compress | 1 KiB | `ZSTD_compressCCtx` %s, `ZSTD_compress2` %s | %s |' % (
        cell(ten, 'compress', '1 KiB', 'bare-compressCCtx'), cell(ten, 'compress', '1 KiB', 'bare-compress2', False),
        cell(ten, 'compress', '1 KiB', 'aircompressor')))
    for size in ('64 B', '1 KiB'):
        out.append('| compress | %s | `ZSTD_compressCCtx` %s | %s | \u2013 | %s |' % (
            size, cell(six, 'compress', size, 'bare-compressCCtx'), cell(six, 'compress', size, 'bare-compressCCtx-critical'),
            cell(six, 'compress', size, 'aircompressor')))

    def rerun(folder):  # decompress 1 KiB: aircompressor with its interval and JVMs, the bare call
        c = interleaved_rows(folder)[('codec', 'decompress', '1 KiB', 'aircompressor / zmqzstd')]
        return '%s (%s, %s), bare call %s' % (c[1], c[3] if c[2] == '\u2013' else c[2], c[4],
                                              cell(folder, 'decompress', '1 KiB', 'bare-decompressDCtx', False))

    out.append('decompress 1 KiB, aircompressor / zmq-zstd %s; compress 1 KiB %s and `ZSTD_compressCCtx` %s' % (
        rerun('interleaved-codec-session5'), cell('interleaved-codec-session5', 'compress', '1 KiB', 'aircompressor', False),
        cell('interleaved-codec-session5', 'compress', '1 KiB', 'bare-compressCCtx', False)))
    out.append('decompress 1 KiB, aircompressor / zmq-zstd %s; compress 1 KiB aircompressor %s (%s), `ZSTD_compressCCtx` %s' % (
        rerun('interleaved-codec-thread-check'), cell('interleaved-codec-thread-check', 'compress', '1 KiB', 'aircompressor', False),
        interleaved_rows('interleaved-codec-thread-check')[('codec', 'compress', '1 KiB', 'aircompressor / zmqzstd')][2],
        cell('interleaved-codec-thread-check', 'compress', '1 KiB', 'bare-compressCCtx', False)))
    for folder, compress_cctx in (('interleaved-codec-raw-segments', False), ('interleaved-codec-block-check', True)):
        rows_ = interleaved_rows(folder)
        air, cctx = (rows_[('codec', 'compress', '1 KiB', w + ' / zmqzstd')] for w in ('aircompressor', 'bare-compressCCtx'))
        out.append('decompress aircompressor %s; compress aircompressor %s (%s), `ZSTD_compressCCtx` %s%s' % (
            rerun(folder), air[1], air[2], cctx[1], ' (%s)' % cctx[2] if compress_cctx else ''))
    # the rerun of 2026-11-28 with every round printed: its table, and what the summary quotes of it
    again = 'interleaved-codec-2026-11-28'
    for size in ('256 B', '1 KiB'):
        out.append('| decompress | %s | %s | %s |' % (size, cell(again, 'decompress', size, 'bare-decompressDCtx'),
                                                    cell(again, 'decompress', size, 'aircompressor')))
    for size in ('64 B', '1 KiB'):
        out.append('| compress | %s | `ZSTD_compressCCtx` %s, `ZSTD_compress2` %s (%s) | %s |' % (
            size, cell(again, 'compress', size, 'bare-compressCCtx'), cell(again, 'compress', size, 'bare-compress2', False),
            interleaved_rows(again)[('codec', 'compress', size, 'bare-compress2 / zmqzstd')][4],
            cell(again, 'compress', size, 'aircompressor')))
    behind = sorted(round((float(cell(again, 'decompress', s, 'aircompressor', False)) - 1) * 100, 1) for s in ('256 B', '1 KiB'))
    out.append('Small-frame decompression is %.1f\u2013%.1f %%\n  behind aircompressor in every one of ten JVMs (rerun of 2026-11-28' % tuple(behind))
    out.append('zmq-zstd %sx at 64 B and %sx at 1 KiB, intervals containing 1, rerun of 2026-11-28' % tuple(
        cell(again, 'compress', s, 'aircompressor', False) for s in ('64 B', '1 KiB')))
    one_k = [float(cell(again, 'decompress', '1 KiB', w, False)) for w in ('aircompressor', 'bare-decompressDCtx')]
    out.append('zmq-zstd is %.1f %% behind aircompressor\'s binding (every JVM) and %.1f %%' % tuple((x - 1) * 100 for x in one_k))
    # critical handles tried inside the codec, against the unchanged codec's figures in the table
    cells = (('decompress', '1 KiB'), ('decompress', '256 B'), ('compress', '1 KiB'))
    tried = [cell('experiments/critical-in-codec', m, s, 'aircompressor', False) for m, s in cells]
    out.append('aircompressor / zmq-zstd %s at 1 KiB and %s at 256 B decompression, %s at 1 KiB compression' % tuple(tried))
    out.append('where the unchanged codec measures %s, %s and %s above' % tuple(cell(six, m, s, 'aircompressor', False) for m, s in cells))
    return out


check('Codec: the interleaved comparisons', codec_interleaved)


# --- "Which libzstd": three builds against the system library (experiments/libzstd-build/) ----------

def libzstd_build():
    """zmq-zstd's score on each build over its score on the system library in the same round, and the README's
    reciprocal of the release's gain."""
    def per_round(build, method, size):
        return [score('experiments/libzstd-build/r%d-%s.json' % (i, build), method, contestant='zmqzstd-segment', size=size)
                / score('experiments/libzstd-build/r%d-system.json' % i, method, contestant='zmqzstd-segment', size=size)
                for i in (1, 2, 3)]

    out = []
    for method in ('compress', 'decompress'):
        for size in (1024, 65536, 1048576):
            out.append('| %s | %s | %s |' % (method, script('tables').size_label(size), ' | '.join(
                '%s (%s)' % (med(r), span(r, 3)) for r in (per_round(b, method, size) for b in ('deb-own', '154-O3', '157-O3')))))
    gain = {(m, s): statistics.median(per_round('157-O3', m, s)) for m, s in (('compress', 1048576), ('decompress', 1024))}
    out.append('1.5.7 compresses 1 MiB %.2fx and decompresses 1 KiB %.2fx faster than 1.5.4' % (
        gain[('compress', 1048576)], gain[('decompress', 1024)]))
    readme = ("Debian 12's 1.5.4 decompresses 1 KiB frames %.2fx and compresses 1 MiB %.2fx as fast as 1.5.7"
              % (1 / gain[('decompress', 1024)], 1 / gain[('compress', 1048576)]))
    return out, [readme]


check('Which libzstd: the builds compared', libzstd_build)


# --- Helpers for the older sections: the scripts that made their tables, and JMH's text output -------

SCRIPTS = os.path.dirname(os.path.abspath(__file__))


def script(name):
    """One of the scripts beside this one as a module (flame-summary.py, tables.py, ...)."""
    spec = importlib.util.spec_from_file_location(name.replace('-', '_'), os.path.join(SCRIPTS, name + '.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def one_file(pattern):
    """The one file under benchmark/results/ that PATTERN (a glob) names."""
    found = glob.glob(os.path.join(RESULTS, pattern))
    if len(found) != 1:
        raise ValueError('%s: %d files' % (pattern, len(found)))
    return found[0]


def jmh_log_score(path, prefix='PipelineBenchmark.transfer '):
    """(score, error) of the one result line of a JMH text log under benchmark/results/."""
    found = []
    with open(os.path.join(RESULTS, path)) as f:
        for line in f:
            if line.startswith(prefix):
                fields = line.split()
                found.append((float(fields[-4]), float(fields[-2])) if fields[-3] == '\u00b1' else (float(fields[-2]), None))
    if len(found) != 1:
        raise ValueError('%s: %d result lines' % (path, len(found)))
    return found[0]


def printed(function, *args):
    """What one of the scripts' functions prints, as a string."""
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        function(*args)
    return out.getvalue()


def thousands(value):
    return '{:,.0f}'.format(value)


def pct(part, total):
    return '–' if part == 0 else '%.1f %%' % (100.0 * part / total)


def printed_shares(counter, keys):
    """The share of COUNTER's samples under KEYS, as '12.3 %' ('–' for none): a row that groups several of
    flame-summary.py's lines gives their exact share, rounded once."""
    total = sum(counter.values())
    part = sum(counter[k] for k in keys)
    return '%.1f %%' % (100.0 * part / total) if part else '–'


# --- "Flamegraphs: where the pipeline's time goes": flame-summary.py over the collapsed stacks --------

FLAME_CONTESTANTS = ('zmqzstd', 'libzmqBytes', 'jeromqZstdjni')
FLAME_ROWS = (('zstd compress', ('zstd compress',)), ('zstd decompress', ('zstd decompress',)),
              ('kernel / syscalls', ('kernel / syscalls',)), ('libzmq', ('libzmq',)),
              ('Java of the libraries (zmq-zstd, zstd-jni, JeroMQ)', ('zmq-zstd (Java)', 'zstd-jni (Java)', 'JeroMQ (Java)')),
              ('memcpy', ('memcpy',)), ('GC', ('GC',)))
# async-profiler's CPU interval (event=cpu, 10 ms) and the profiled runs' measured seconds (-i 5 -r 1s)
FLAME_SAMPLE_S, FLAME_MEASURED_S = 0.010, 5


def flame_cpu(folder):
    return script('flame-summary').cpu_totals(one_file(folder + '/cpu/*/collapsed-cpu.csv'))


def flamegraphs():
    flame = script('flame-summary')
    totals = [flame_cpu('flamegraphs/' + c) for c in FLAME_CONTESTANTS]
    out = []
    for label, categories in FLAME_ROWS:
        out.append('| %s | %s |' % (label, ' | '.join(printed_shares(t, categories) for t in totals)))
    named = {c for _, categories in FLAME_ROWS for c in categories}
    out.append('| FFM glue, JIT, harness, other | %s |' % ' | '.join(
        printed_shares(t, [c for c in t if c not in named]) for t in totals))
    scores = [jmh_log_score('flamegraphs/%s/cpu/jmh.log' % c) for c in FLAME_CONTESTANTS]
    out.append('zmqzstd %s msg/s, libzmqBytes %s, jeromqZstdjni %s (\u00b1%s, \u00b1%s, \u00b1%s)' % tuple(
        [thousands(s) for s, _ in scores] + [thousands(e) for _, e in scores]))
    sites = {c: flame.alloc_sites(one_file('flamegraphs/%s/alloc/*/collapsed-alloc.csv' % c)) for c in FLAME_CONTESTANTS}

    def share(contestant, part):
        return printed_shares(sites[contestant], [k for k in sites[contestant] if part in k])

    if list(sites['zmqzstd'].items()) == [('java.lang.Object[] at (no library frame)', 1)]:
        out.append('| what was sampled | 1 sample in the whole run (an `Object[]` outside any library frame) |')
    else:
        out.append('zmqzstd allocation samples: %s' % dict(sites['zmqzstd']))
    out.append('| %s samples: `byte[]` from `ZstdCompressCtx.compress` %s, `ZstdDecompressCtx.decompress` %s, '
               '`ZmqSocket.receiveBytes` %s |' % (
                   thousands(sum(sites['libzmqBytes'].values())), share('libzmqBytes', 'byte[] at com/github/luben/zstd/ZstdCompressCtx.compress'),
                   share('libzmqBytes', 'byte[] at com/github/luben/zstd/ZstdDecompressCtx.decompress'),
                   share('libzmqBytes', 'byte[] at io/zmqzstd/transport/ZmqSocket.receiveBytes')))
    out.append('| %s samples: `ZstdCompressCtx.compress` %s, `ZstdDecompressCtx.decompress` %s, JeroMQ `Msg.<init>` '
               '%s, JeroMQ\'s poller %s |' % (
                   thousands(sum(sites['jeromqZstdjni'].values())), share('jeromqZstdjni', 'ZstdCompressCtx.compress'),
                   share('jeromqZstdjni', 'ZstdDecompressCtx.decompress'), share('jeromqZstdjni', 'byte[] at zmq/Msg.<init>'),
                   share('jeromqZstdjni', 'zmq/poll/Poller')))
    return out


check("Flamegraphs: where the pipeline's time goes", flamegraphs)


def schedstat_runs(path):
    """The runs of a file of schedstat.py outputs: (contestant, size) -> {score, busy, per_op, threads, rows}, threads
    by name -> the table's cells (the last of a name), rows every (name, cells) in order."""
    runs, current = {}, None
    with open(os.path.join(RESULTS, path)) as f:
        for line in f:
            if line.startswith('# PipelineBenchmark -f'):
                args = line.split()
                params = dict(args[i + 1].split('=', 1) for i, a in enumerate(args) if a == '-p')
                current = runs.setdefault((params['contestant'], int(params['size'])), {'threads': {}})
            elif line.startswith('| ') and not line.startswith('| thread |') and current is not None:
                cells = [c.strip() for c in line.strip().strip('|').split('|')]
                current['threads'][cells[0]] = cells[1:]
                current.setdefault('rows', []).append((cells[0], cells[1:]))  # every thread, names repeating
            elif line.startswith('# cores busy'):
                current['busy'] = line.split()[-1]
            elif line.startswith('# on cpu per operation'):
                current['per_op'] = line.split(':')[1].split()[0]
                current['score'] = float(line.rsplit(', ', 1)[1].split()[0].replace(',', ''))
    return runs


def all_threads():
    """The per-thread table under the flamegraphs: every thread of the JVM from the kernel's statistics."""
    runs = schedstat_runs('experiments/cpu-all-threads/schedstat-64k-1k.md')
    out = []
    for size, label in ((65536, '64 KiB'), (1024, '1 KiB')):
        for contestant in FLAME_CONTESTANTS:
            run = runs[(contestant, size)]
            io = run['threads'].get('ZMQbg/IO/0')
            io_cell = '%s µs' % io[-1] if io else ('(a Java thread, included)' if size == 65536 else '(included)')
            out.append('| %s, %s | %s | %s µs | %s | %s |' % (contestant, label, thousands(run['score']), run['per_op'],
                                                           io_cell, run['busy']))
    run = runs[('zmqzstd', 65536)]
    out.append('it was woken %s times a second for %s messages' % (run['threads']['ZMQbg/IO/0'][3], thousands(run['score'])))
    return out


check("Flamegraphs: CPU per message from every thread's scheduler statistics", all_threads)


def small_messages():
    """The flamegraphs' CPU samples as CPU per message, 64 KiB (flamegraphs/) and 1 KiB, 64 B (flamegraphs-small/)."""
    runs = [('zmqzstd, 64 KiB', 'flamegraphs/zmqzstd'), ('libzmqBytes, 64 KiB', 'flamegraphs/libzmqBytes'),
            ('jeromqZstdjni, 64 KiB', 'flamegraphs/jeromqZstdjni'), ('zmqzstd, 1 KiB', 'flamegraphs-small/zmqzstd-1024'),
            ('jeromqZstdjni, 1 KiB', 'flamegraphs-small/jeromqZstdjni-1024'), ('zmqzstd, 64 B', 'flamegraphs-small/zmqzstd-64')]
    out = []
    for label, folder in runs:
        totals = flame_cpu(folder)
        samples = sum(totals.values())
        score, _ = jmh_log_score(folder + '/cpu/jmh.log')
        cpu_s = samples * FLAME_SAMPLE_S
        per_msg = cpu_s / (FLAME_MEASURED_S * score) * 1e6
        decompress = pct(totals['zstd decompress'], samples)
        if decompress == '–':
            decompress += ' (stored blocks, copied in Java)'
        out.append('| %s | %s | %d | %.2f | %s µs | %s / %s | %s |' % (
            label, thousands(score), samples, cpu_s / FLAME_MEASURED_S, '%.0f' % per_msg if per_msg >= 100 else '%.1f' % per_msg,
            pct(totals['zstd compress'], samples), decompress, pct(totals['kernel / syscalls'], samples)))
    return out


check('Flamegraphs: small messages', small_messages)


# --- "Small messages": the trained-dictionary flamegraphs at 64 B and the rerun of their two contestants ---

def trained_64():
    tables = script('tables')
    totals = {c: flame_cpu('flamegraphs-64-trained/' + c) for c in ('zmqzstd', 'libzmqBytes')}
    ours, theirs = totals['zmqzstd'], totals['libzmqBytes']
    profiled = [jmh_log_score('flamegraphs-64-trained/%s/cpu/jmh.log' % c)[0] for c in ('zmqzstd', 'libzmqBytes')]
    out = ['zmqzstd spends %s of its samples compressing against %s (plus part of the %s "other"' % (
        printed_shares(ours, ['zstd compress']), printed_shares(theirs, ['zstd compress']), printed_shares(theirs, ['other'])),
        '`libzmqBytes`, at %s against %s msg/s' % tuple(tables.fmt_rate(s) for s in profiled)]
    reruns = [rows('experiments/trained-64-%s.json' % lib) for lib in ('system', 'bundled')]
    by = {(i, r['params']['contestant']): r for i, run in enumerate(reruns) for r in run}
    scores = [tables.fmt_rate(by[(i, c)]['primaryMetric']['score']) for i in (0, 1) for c in ('zmqzstd', 'libzmqBytes')]
    errors = [r['primaryMetric']['scoreError'] for r in by.values()]
    out.append('gave zmqzstd %s and `libzmqBytes` %s msg/s on the system library, %s and %s on 1.5.7, with JMH errors of '
               '\u00b1%s to \u00b1%s msg/s' % tuple(scores + [tables.fmt_rate(min(errors)), tables.fmt_rate(max(errors))]))
    allocs = [tables.alloc(by[(i, c)]) for i in (0, 1) for c in ('zmqzstd', 'libzmqBytes')]
    out.append('zmqzstd allocated %.2f B/msg, `libzmqBytes` %.0f.' % (max(allocs[0], allocs[2]), max(allocs[1], allocs[3])))
    trained = {r['params']['contestant']: r['primaryMetric']['score'] for r in rows('pipeline-trained.json')
               if r['params']['size'] == '64' and r['params']['transport'] == 'tcp' and r['params']['affinity'] == 'none'}
    out.append('the %.2fx in the trained table above' % (trained['zmqzstd'] / trained['libzmqBytes']))
    return out


check('Small messages: a trained dictionary at 64 B', trained_64)


# --- "64 B over tcp against C", "Where the I/O thread's extra time goes" and "Scheduling" -------------

SCHED = 'experiments/sched/'


def sched_run(name):
    """One schedstat.py output under experiments/sched/: its score (msg/s) and its threads in the order printed,
    each {'cpu', 'waiting', 'blocked'} (whole per cent, as printed) and its voluntary and involuntary switches/s."""
    threads, score = [], None
    with open(os.path.join(RESULTS, SCHED + name)) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if line.startswith('| ') and not line.startswith('| thread |'):
                threads.append({'name': cells[0], 'cpu': int(cells[1].rstrip('%')), 'waiting': int(cells[2].rstrip('%')),
                                'blocked': int(cells[3].rstrip('%')), 'voluntary': cells[4], 'involuntary': cells[5]})
            elif 'msgs_per_s=' in line:
                score = float(line.split('msgs_per_s=')[1].split()[0])
            elif line.startswith('# PipelineBenchmark.transfer'):
                score = float(line.split()[-2])
    if score is None:
        raise ValueError('%s: no score' % name)
    return score, threads


def shares(thread):
    return '%d / %d / %d %%' % (thread['cpu'], thread['waiting'], thread['blocked'])


def sched_64_split():
    tables = script('tables')
    runs = {}
    out = []
    for label, name in (('zmqzstd', 'zmqzstd-split'), ('C', 'c-split'), ('zmqzstd, second run', 'zmqzstd-split-r2'),
                        ('C, second run', 'c-split-r2')):
        score, threads = sched_run('pipeline-64-tcp-%s.md' % name)
        by = {t['name']: t for t in threads}
        # the C program names two threads pipeline_ref: the sender is printed first, the receiver last
        sender = by['zmqzstd-sender'] if 'zmqzstd-sender' in by else threads[0]
        receiver = by['io.zmqzstd.benc'] if 'io.zmqzstd.benc' in by else threads[-1]
        io = by['ZMQbg/IO/0']
        runs[label] = (score, sender, io, receiver)
        out.append('| %s | %s | %s | %s | %s, %s |' % (label, tables.fmt_rate(score), shares(sender), shares(io), shares(receiver),
                                                     receiver['voluntary']))
    ours = [runs[k] for k in ('zmqzstd', 'zmqzstd, second run')]
    c = [runs[k] for k in ('C', 'C, second run')]

    def cpu_us(run, role):  # µs of CPU per message: the thread's on-CPU share over msg/s
        return run[role]['cpu'] / 100.0 / run[0] * 1e6

    io_ours, io_c = [cpu_us(r, 2) for r in ours], [cpu_us(r, 2) for r in c]
    more = [100 * (a / b - 1) for a, b in zip(io_ours, io_c)]  # each zmqzstd run against the C run after it
    io_busy = [r[2]['cpu'] for r in ours + c]
    out.append("libzmq's I/O thread is the bottleneck: it runs %d\u2013%d %% of the time" % (min(io_busy), max(io_busy)))
    out.append('Per message it uses %s µs of CPU under zmqzstd and %s µs under the C program (on-CPU share over msg/s), '
               '%s %% more; the senders use %s and %s µs.' % (
                   span(io_ours), span(io_c), span(more, 0), span([cpu_us(r, 1) for r in ours]), span([cpu_us(r, 1) for r in c])))
    woken = [[float(r[3]['voluntary'].replace(',', '')) for r in runs_] for runs_ in (c, ours)]
    out.append('(%s\u2013%s against %s\u2013%s times a second)' % tuple(
        thousands(round(f(w), -2)) for w in woken for f in (min, max)))
    return out


check('Small messages: 64 B over tcp against C, per thread', sched_64_split)


def maxlead():
    """Lifting the pipeline's credit at 64 B: the per-iteration msg/s of pipeline-maxlead.json."""
    iterations = {}
    for r in rows('experiments/pipeline-maxlead.json'):
        p = r['params']
        if p['size'] == '64':
            iterations[(p['contestant'], p['maxLead'])] = r['primaryMetric']['rawData'][0]

    k = {key: span([v / 1000 for v in values], 0) + ' K' for key, values in iterations.items()}
    return ['zmqzstd at 64 B fell from %s to %s msg/s per iteration (JeroMQ from %s to %s)' % (
        k[('zmqzstd', '500')], k[('zmqzstd', '65536')], k[('jeromqZstdjni', '500')], k[('jeromqZstdjni', '65536')])]


check('Small messages: a deeper credit at 64 B', maxlead)


def iothread_runs():
    """iothread.sh's lines in experiments/sched/iothread-64-tcp.txt: (label, {field: value}) in file order."""
    found = []
    with open(os.path.join(RESULTS, SCHED + 'iothread-64-tcp.txt')) as f:
        for line in f:
            if ': msgs_per_s=' in line:
                label, fields = line.split(': ', 1)
                found.append((label, {k: float(v.rstrip('%')) for k, v in (w.split('=') for w in fields.split())}))
    return found


def iothread():
    runs = iothread_runs()
    groups = (('C (three runs, sender free)', lambda label: label == 'c', slice(0, 3)),
              ('zmqzstd (three runs, alternated with those)', lambda label: label == 'zmqzstd', slice(0, 3)),
              ("C with the benchmark's credit (three runs)", lambda label: label == 'c flow=credit', slice(None)),
              ('zmqzstd, `maxLead` 4000 and 65536 (three runs)', lambda label: label.startswith('zmqzstd maxLead='), slice(None)))

    def field(runs_, name):
        return span([r[name] for r in runs_])

    out = []
    for label, which, first in groups:
        chosen = [r for name, r in runs if which(name)][first]
        if len(chosen) != 3:
            raise ValueError('iothread-64-tcp.txt: %d runs for %s' % (len(chosen), label))
        out.append('| %s | %s K | %s µs | %s / %s µs | %s | %s |' % (
            label, span([r['msgs_per_s'] / 1000 for r in chosen], 0), field(chosen, 'io_cpu_us_per_msg'), field(chosen, 'io_kernel_us_per_msg'),
            field(chosen, 'io_user_us_per_msg'), field(chosen, 'msgs_per_sendto'), field(chosen, 'msgs_per_tcp_segment')))
    # under bbr the C program merges its sendtos into fewer segments
    merged = [r['msgs_per_tcp_segment'] / r['msgs_per_sendto'] for name, r in runs if name.startswith('c') and 'cubic' not in name]
    out.append('%s `sendto`s per segment' % span(merged, 1))
    cubic_c = [r for name, r in runs if name == 'c flow=credit cubic']
    cubic_ours = [r for name, r in runs if name == 'zmqzstd cubic']
    out.append('the C program carried %s messages per segment (%s per `sendto`) at %s K msg/s, zmqzstd %s at %s K' % (
        field(cubic_c, 'msgs_per_tcp_segment'), field(cubic_c, 'msgs_per_sendto'), span([r['msgs_per_s'] / 1000 for r in cubic_c], 0),
        field(cubic_ours, 'msgs_per_tcp_segment'), span([r['msgs_per_s'] / 1000 for r in cubic_ours], 0)))
    # the cpu-clock profile: zmqzstd's extra ns per message over C's, for the tcp path's functions the text names
    extra = {}
    with open(os.path.join(RESULTS, SCHED + 'iothread-64-tcp-profile.txt')) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 5 and fields[3] == '[k]':
                extra[fields[4]] = float(fields[0]) / float(fields[1])
    named = ('tcp_sendmsg_locked', '__tcp_transmit_skb', 'tcp_v4_rcv', 'tcp_rcv_established', 'net_rx_action')
    more = [100 * extra[n] for n in named]
    out.append('%s, each %s %% more per message' % (', '.join('`%s`' % n for n in named), span(more, 0)))
    return out


check("Small messages: where the I/O thread's extra time goes", iothread)


def congestion():
    """zmqzstd / JeroMQ + zstd-jni under cubic and bbr, two alternated runs each (experiments/congestion/)."""
    def ratio(name, size):
        path = 'experiments/congestion/pipeline-%s.json' % name
        return '%.2fx' % (score(path, 'transfer', contestant='zmqzstd', size=size)
                          / score(path, 'transfer', contestant='jeromqZstdjni', size=size))

    r = [ratio('%s-%s' % (cc, run), size) for size in (1024, 65536) for cc in ('cubic', 'bbr') for run in (2119, 2120)]
    return ['gave zmqzstd / JeroMQ + zstd-jni %s and %s at 1 KiB under `cubic` against %s and %s under `bbr`, and %s, %s at '
            '64 KiB against %s, %s' % tuple(r)]


check('Small messages: the congestion control and the 1 KiB gap', congestion)


def scheduling():
    """The Scheduling table: schedstat.py at 1 KiB over tcp, one run each (experiments/sched/pipeline-1k-tcp-*.md)."""
    tables = script('tables')
    out = []
    for label, name in (('zmqzstd', 'zmqzstd'), ('jeromqZstdjni', 'jeromqZstdjni'),
                        ('zmqzstd, I/O thread `SCHED_BATCH`', 'zmqzstd-batch-ZMQbg'),
                        ('zmqzstd, receiver `SCHED_BATCH`', 'zmqzstd-batch-io.zmqzstd.benc'),
                        ('zmqzstd, both `SCHED_BATCH`', 'zmqzstd-batch'),
                        ('zmqzstd, whole JVM under `chrt -b 0`', 'zmqzstd-chrt-batch'),
                        ('jeromqZstdjni, whole JVM under `chrt -b 0`', 'jeromqZstdjni-chrt-batch')):
        score, threads = sched_run('pipeline-1k-tcp-%s.md' % name)
        sender, io, receiver = threads_by_role(threads)
        out.append('| %s | %s | %d %% / %d %% / %d %% | %s | %s, %s | %s, %s |' % (
            label, tables.fmt_rate(score), sender['cpu'], sender['waiting'], sender['blocked'], sender['involuntary'],
            shares(io), io['voluntary'], shares(receiver), receiver['voluntary']))
    return out


def threads_by_role(threads):
    """(sender, I/O thread, receiver) of a JVM run: the receiver is JMH's benchmark thread."""
    by = {t['name']: t for t in threads}
    sender = by.get('zmqzstd-sender') or by['jeromq-sender']
    io = by.get('ZMQbg/IO/0') or by['iothread-2']
    return sender, io, by['io.zmqzstd.benc']


check('Scheduling: what the sender waits for', scheduling)


# --- "Verdicts" and the verdict tables of the later sections: verdict.py's own rows ----------------

@functools.lru_cache(maxsize=None)
def verdict_rows(folder, check_name, comparison=0):
    """verdict.py's rows for one check of a results folder, as it prints them: [(cells, line)], cells without '**'."""
    verdict = script('verdict')
    text = printed(verdict.table, check_name, verdict.rounds_of(os.path.join(RESULTS, folder))[check_name],
                   *verdict.comparisons(check_name)[comparison])
    lines = [line for line in text.splitlines() if line.startswith('| ')][1:]  # the rows, not the header
    return [([c.strip().strip('*') for c in line.strip('|').split('|')], line) for line in lines]


def verdict_tables():
    out = []
    for folder, checks in (('verdict', ('codec', 'codec-64m', 'codec-samelib', 'codec-samelib-64m', 'transport', 'pipeline',
                                        'pipeline-samelib', 'pipeline-batch')),
                           ('verdict-codec-lib157', ('codec-lib',)), ('verdict-codec-lib157-64m', ('codec-lib-64m',)),
                           ('verdict-transport-thresholds', ('transport',)), ('verdict-2026-11-26e', ('codec', 'pipeline')),
                           ('verdict-parallel-2026-11-25', ('pipeline-parallel',)),
                           ('verdict-parallel-ring64', ('pipeline-parallel',)), ('verdict-parallel', ('pipeline-parallel',))):
        for check_name in checks:
            out.extend(line for _, line in verdict_rows(folder, check_name))

    def run_above(rows):  # (transport, size) -> 'target msg/s | ratio' of an earlier run, for the tables that add them
        return {tuple(cells[:2]): (cells[2], cells[4]) for cells, _ in rows}

    first = run_above(verdict_rows('verdict', 'pipeline'))
    for cells, line in verdict_rows('verdict-pipeline-after', 'pipeline'):
        out.append('%s %s |' % (line, first[tuple(cells[:2])][1]))
    after = run_above(verdict_rows('verdict-pipeline-after', 'pipeline'))
    for cells, line in verdict_rows('verdict-pipeline-2026-11-26c', 'pipeline'):
        out.append('%s %s | %s |' % ((line,) + after[tuple(cells[:2])]))
    morning = run_above(verdict_rows('verdict-pipeline-2026-11-26c', 'pipeline'))
    for cells, line in verdict_rows('verdict-pipeline-2026-11-26d', 'pipeline'):
        out.append('%s %s | %s |' % ((line,) + morning[tuple(cells[:2])]))
    workers = run_above(verdict_rows('verdict-pipeline-io2', 'pipeline-parallel-tcp'))
    for cells, line in verdict_rows('verdict-pipeline-2026-11-26d', 'pipeline-parallel-tcp'):
        out.append('| tcp, 3 workers %s %s | %s |' % ((line[len('| tcp'):],) + workers[tuple(cells[:2])]))
    batch = {cells[1]: cells[4] for cells, _ in verdict_rows('verdict', 'pipeline-batch')}
    out.append('is %sx at 1 KiB, %sx at 64 KiB, %sx at 64 B and %sx at 1 MiB (verdict `pipeline-batch`)' % (
        batch['1 KiB'], batch['64 KiB'], batch['64 B'], batch['1 MiB']))
    return out


check('Verdicts: the tables of verdict.py', verdict_tables)


def verdict_26e():
    """The prose under the verdicts of 2026-11-26 afternoon: its medians against the earlier runs'."""
    def medians(folder, check_name, first):  # the median ratios of the rows whose first cell is FIRST, 64 B up
        return ' / '.join(cells[4] for cells, _ in verdict_rows(folder, check_name) if cells[0] == first)

    def cell(folder, check_name, first, size, index):
        return [cells[index] for cells, _ in verdict_rows(folder, check_name) if cells[:2] == [first, size]][0]

    now, before = 'verdict-2026-11-26e', 'verdict-pipeline-2026-11-26d'
    return ['the codec\'s 64 B compression %s against %s MB/s in the first `codec` table; over tcp at 64 B zmqzstd %s '
            'against %s and JeroMQ + zstd-jni %s against %s msg/s in the table before' % (
                cell(now, 'codec', 'compress', '64 B', 2), cell('verdict', 'codec', 'compress', '64 B', 2),
                cell(now, 'pipeline', 'tcp', '64 B', 2), cell(before, 'pipeline', 'tcp', '64 B', 2),
                cell(now, 'pipeline', 'tcp', '64 B', 3), cell(before, 'pipeline', 'tcp', '64 B', 3)),
            'codec compression %sx and decompression %sx at 64 B / 1 KiB / 64 KiB / 1 MiB (earlier %sx and %sx); the pipeline '
            'over tcp %sx, over inproc %sx (the run above: %sx and %sx)' % (
                medians(now, 'codec', 'compress'), medians(now, 'codec', 'decompress'), medians('verdict', 'codec', 'compress'),
                medians('verdict', 'codec', 'decompress'), medians(now, 'pipeline', 'tcp'), medians(now, 'pipeline', 'inproc'),
                medians(before, 'pipeline', 'tcp'), medians(before, 'pipeline', 'inproc'))]


check('Verdicts: after the defect fixes of 2026-11-26 afternoon', verdict_26e)


# --- "Latency: one compressed request and its acknowledgement" --------------------------------------

def latency():
    tables = script('tables')
    out = [line for line in tables.latency_table(rows('latency.json'), 'jeromqZstdjni',
                                                 'Round trip: compressed request, 8-byte acknowledgement, level 3').splitlines()
           if line.startswith(('| tcp', '| inproc'))]
    by = {}
    for r in rows('experiments/latency-round2/latency.json'):
        p = r['params']
        by.setdefault((p['transport'], int(p['size'])), {})[p['contestant']] = r

    def p(r, k):
        return r['primaryMetric']['scorePercentiles'][k]

    for (transport, size) in sorted(by, key=lambda k: (k[0] != 'tcp', k[1])):
        cells = by[(transport, size)]
        order = ('zmqzstd', 'libzmqBytes', 'jeromqZstdjni')
        out.append('| %s | %s | %s | %.2f | %s |' % (
            transport, tables.size_label(size),
            ' | '.join(' / '.join(tables.fmt_us(p(cells[c], k)) for k in ('50.0', '99.0', '99.9')) for c in order),
            p(cells['zmqzstd'], '99.0') / p(cells['jeromqZstdjni'], '99.0'),
            ' / '.join('%.0f' % cells[c].get('secondaryMetrics', {}).get('gc.count', {}).get('score', 0) for c in order)))

    def tcp_alloc(path):
        return [tables.alloc(r) for size in (1024, 65536, 1048576) for r in rows(path)
                if r['params']['contestant'] == 'zmqzstd' and r['params']['transport'] == 'tcp' and int(r['params']['size']) == size]

    before, now = tcp_alloc('experiments/latency-2026-11-22/latency.json'), tcp_alloc('latency.json')
    out.append('zmqzstd %.0f / %.0f / %.0f B per round trip over tcp where this one has %.1f / %.0f / %.0f' % tuple(before + now))
    mib = [r for r in rows('latency.json') if r['params']['contestant'] == 'zmqzstd' and r['params']['transport'] == 'tcp'
           and r['params']['size'] == '1048576'][0]
    out.append('(1 MiB over tcp: %s B per round trip)' % ', '.join(
        '%.0f' % v for v in mib['secondaryMetrics']['gc.alloc.rate.norm']['rawData'][0]))
    return out


check('Latency: round 1 and round 2', latency)


def latency_rounds():
    """LatencyBenchmark's two rounds (round 1 latency.json, round 2 experiments/latency-round2/): per round,
    (transport, size, contestant) -> its row."""
    return [{(r['params']['transport'], int(r['params']['size']), r['params']['contestant']): r for r in rows(path)}
            for path in ('latency.json', 'experiments/latency-round2/latency.json')]


def latency_prose():
    """The figures the Summary row, its detail, the prose under the two latency tables, Findings and README.md read from both
    rounds."""
    tables = script('tables')
    rounds = latency_rounds()
    everything = [key for key in rounds[0]]
    byte_arrays = ('libzmqBytes', 'jeromqZstdjni')

    def pc(r, k):
        return r['primaryMetric']['scorePercentiles'][k]

    def gcs(r):
        return r.get('secondaryMetrics', {}).get('gc.count', {}).get('score', 0)

    def each(sizes, contestants, transports=('tcp', 'inproc')):  # the rows of both rounds with these parameters
        return [run[(t, s, c)] for run in rounds for t in transports for s in sizes for c in contestants]

    def over(k, ours, theirs, transport, size):  # per round, ours' percentile K over theirs'
        return [pc(run[(transport, size, ours)], k) / pc(run[(transport, size, theirs)], k) for run in rounds]

    def samples(r):
        return sum(c for iteration in r['primaryMetric']['rawDataHistogram'][0] for _, c in iteration)

    def ms(values, digits):
        return span([v / 1000 for v in values], digits)

    zmqzstd_gcs = {gcs(r) for r in each((1024, 65536, 1048576), ('zmqzstd',))}
    no_gc = '0 GCs' if zmqzstd_gcs == {0} else '%s GCs' % sorted(zmqzstd_gcs)
    small_gcs, large_gcs = (span([gcs(r) for r in each(sizes, byte_arrays)], 0) for sizes in ((1024,), (65536, 1048576)))
    gc_ms = span([r['secondaryMetrics']['gc.time']['score'] / gcs(r) for r in each((65536, 1048576), byte_arrays)], 0)
    seconds = {r['measurementIterations'] * int(r['measurementTime'].split()[0]) for run in rounds for r in run.values()}
    p99 = {c: [pc(run[('tcp', 65536, c)], '99.0') for run in rounds] for c in ('zmqzstd', 'jeromqZstdjni', 'libzmqBytes')}
    p99_over = over('99.0', 'zmqzstd', 'jeromqZstdjni', 'tcp', 65536)
    tail = ('p99 %s ms against JeroMQ + zstd-jni\'s %s ms' % (ms(p99['zmqzstd'], 2), ms(p99['jeromqZstdjni'], 1)))
    kib = over('99.9', 'zmqzstd', 'libzmqBytes', 'tcp', 1024)
    kib_us = [tuple(tables.fmt_us(pc(run[('tcp', 1024, c)], '99.9')) for c in ('zmqzstd', 'libzmqBytes')) for run in rounds]
    p999_64k = over('99.9', 'zmqzstd', 'libzmqBytes', 'tcp', 65536) + over('99.9', 'zmqzstd', 'libzmqBytes', 'inproc', 65536)
    p50 = [pc(run[key], '50.0') / pc(run[key[:2] + ('jeromqZstdjni',)], '50.0') for run in rounds for key in everything
           if key[2] == 'zmqzstd']
    jeromq_64k = [run[('tcp', 65536, 'jeromqZstdjni')] for run in rounds]
    p999_pairs = ['%s against %s' % tuple(tables.fmt_us(pc(run[(t, 65536, c)], '99.9')) for c in ('zmqzstd', 'libzmqBytes'))
                  for t in ('tcp', 'inproc') for run in rounds]
    moved = ['%.2fx to %.2fx (%s)' % (tuple(over('50.0', 'zmqzstd', 'jeromqZstdjni', t, s)) + (
        '%s %s' % (tables.size_label(s), t),)) for t, s in (('inproc', 1024), ('tcp', 1024), ('tcp', 1048576))]
    p9999 = [span([pc(r, '99.99') / 1000 for r in each((1024, 65536), contestants)], 1) for contestants in (('zmqzstd',), byte_arrays)]
    maxima = sorted(pc(r, '100.0') / 1000 for run in rounds for r in run.values())
    round1_zmqzstd = [r for key, r in rounds[0].items() if key[2] == 'zmqzstd']
    codec_1m = float([cells[2] for cells, _ in verdict_rows('verdict', 'codec') if cells[:2] == ['compress', '1 MiB']][0])
    out = ['%s for zmqzstd; 64 KiB tcp %s (its tcp path, not its garbage: "Latency"); medians level; 1 KiB tcp p99.9 %sx '
           '`libzmqBytes`\' (%s against %s, %s against %s µs)' % ((no_gc, tail, span(kib)) + kib_us[0] + kib_us[1]),
           '%s during measurement for zmqzstd at every size and transport; `byte[]` contestants %s at 1 KiB, %s at 64 KiB and '
           '1 MiB.' % (no_gc, small_gcs, large_gcs),
           '64 KiB over tcp: %s (%sx), which is JeroMQ\'s tcp path, not its garbage; p99.9 %sx of `libzmqBytes` at 64 KiB.' % (
               tail, span(p99_over), span(p999_64k)),
           '1 KiB over tcp: zmqzstd\'s p99.9 is %sx `libzmqBytes`\' (%s against %s µs in the round of 2026-11-26, %s against %s '
           'in that of 2026-11-22)' % ((span(kib),) + kib_us[0] + kib_us[1]),
           'Medians %sx of JeroMQ + zstd-jni, direction changing between rounds.' % span(p50),
           # the prose under the tables
           '%s during measurement in every zmqzstd row of both rounds; the `byte[]` contestants had %s at 1 KiB and %s at 64 KiB '
           'and 1 MiB (about %s ms each on average at those sizes, `GC ms` / `GCs`). zmqzstd\'s %.1f\u2013%.0f B per round trip '
           'in round 1 is not the messages\': its allocation rate stayed at %s MB/s' % (
               no_gc, small_gcs, large_gcs, gc_ms, min(map(tables.alloc, round1_zmqzstd)), max(map(tables.alloc, round1_zmqzstd)),
               span([r['secondaryMetrics']['gc.alloc.rate']['score'] for r in round1_zmqzstd])),
           'the p99 of JeroMQ + zstd-jni is %s ms in both rounds, zmqzstd\'s %s ms (%s). This is not JeroMQ\'s garbage: %s '
           'collections cannot reach 1 %% of its %s K samples. It is in JeroMQ\'s tcp path (the same payloads over libzmq with '
           '`byte[]`: p99 %s ms in both rounds)' % (
               ms(p99['jeromqZstdjni'], 1), ms(p99['zmqzstd'], 2), ' and '.join('%.2fx' % v for v in p99_over),
               span([gcs(r) for r in jeromq_64k], 0), span([samples(r) / 1000 for r in jeromq_64k], 0), low_high(
                   [v / 1000 for v in p99['libzmqBytes']])),
           'at 64 KiB the p99.9 of zmqzstd against `libzmqBytes` was %s µs (tcp, round 1), %s (tcp, round 2), %s and %s (inproc), '
           'which is where %s young collections of %s ms each land among %s K samples' % (tuple(p999_pairs) + (
               span([gcs(r) for r in each((65536,), ('libzmqBytes',))], 0), gc_ms,
               span([samples(r) / 1000 for r in each((65536,), ('zmqzstd', 'libzmqBytes'))], 0))),
           'At 1 KiB over tcp zmqzstd\'s p99.9 was %s µs against `libzmqBytes`\' %s (round 1) and %s against %s (round 2)' % (
               kib_us[0] + kib_us[1]),
           'zmqzstd\'s p50 against JeroMQ\'s moved between rounds from %s, %s and %s;' % tuple(moved),
           # compressing 1 MiB at the codec verdict's median rate (verdict/codec-r*.json, the verdict table of the system's 1.5.4)
           '(%.1f ms at the codec verdict\'s %.0f MB/s, of a %s ms median)' % (
               1048576 / codec_1m / 1e3, codec_1m, ms([pc(r, '50.0') for r in each((1048576,), ('zmqzstd',))], 1)),
           'At 1 KiB and 64 KiB the p99.99 was %s ms for zmqzstd, which collected nothing, and %s ms for the others; the maxima '
           '%.1f\u2013%.0f ms (two of %.0f\u2013%.0f ms' % tuple(p9999 + [maxima[0], maxima[-3], maxima[-2], maxima[-1]]),
           # "Findings and recommendations", tail latency
           'single GC where the `byte[]` pipelines had %s per %d s at 64 KiB and 1 MiB; at 64 KiB its p99.9 was %sx of the same '
           'libzmq with `byte[]`, and its p99 over tcp %sx of JeroMQ + zstd-jni (whose %s ms p99 there is not GC)' % (
               large_gcs, next(iter(seconds)), span(p999_64k), span(p99_over), ms(p99['jeromqZstdjni'], 1))]
    return out, ['Round trips ran without a single collection where the `byte[]` pipelines had %s per %d s at 64 KiB and 1 MiB; '
                 'at 64 KiB over tcp the %s, medians level' % (large_gcs, seconds.pop(), tail.replace('p99', 'p99 was'))]


check('Latency: the two rounds in the Summary, under the tables and in README.md', latency_prose)


# --- "Soak": the raw outputs, quoted whole, and the figures read from them ----------------------------

def soak_rows(name):
    """The raw output of one soak run and its reports (the last one or two at the end of the stream)."""
    with open(os.path.join(RESULTS, name)) as f:
        text = f.read()
    table = [dict(zip(text.split('\n', 1)[0].split(), map(int, line.split()))) for line in text.splitlines()[1:]
             if line.strip() and line.split()[0].isdigit()]
    return text, table


def mb(kb):
    return '%.1f' % (kb / 1000.0)


def soak():
    out = []
    text, reports = soak_rows('soak-64k.txt')
    out.append(text.strip())
    streaming = [r for r in reports if r['elapsedS'] < reports[-1]['elapsedS']]  # before the stream ended
    pool = dict(kv.split('=') for kv in text.rsplit('Stats[', 1)[1].rstrip(']\n').split(', '))
    out.append('**%s messages, none lost or wrong**' % thousands(reports[-1]['messages']))
    out.append('Heap after GC stays between %s and %s MB' % (mb(min(r['heapAfterGcKB'] for r in reports)),
                                                           mb(max(r['heapAfterGcKB'] for r in reports))))
    out.append('NMT committed is %s MB at the first report and then between %s and %s MB, RSS between %s and %s MB' % (
        mb(reports[0]['nmtCommittedKB']), mb(min(r['nmtCommittedKB'] for r in streaming[1:])),
        mb(max(r['nmtCommittedKB'] for r in streaming[1:])), mb(min(r['rssKB'] for r in streaming)),
        mb(max(r['rssKB'] for r in streaming))))
    out.append('in flight at the moment of each report (%d–%d) and 0 at the end' % (
        min(r['outstanding'] for r in reports), max(r['outstanding'] for r in reports)))
    out.append('(rented = returned = %s; %s misses while the pool warmed up, %d MiB of slabs' % (
        thousands(int(pool['rented'])) if pool['rented'] == pool['returned'] else pool['rented'] + ' != ' + pool['returned'],
        pool['misses'], int(pool['slabBytes']) // (1 << 20)))
    text, reports = soak_rows('soak-1k.txt')
    out.append(text.strip())
    out.append('**%s messages, none lost or wrong**' % thousands(reports[-1]['messages']))
    at_300 = [r for r in reports if r['elapsedS'] == 300][0]
    last = [r for r in reports if r['msg/s']][-1]  # the last report while the stream ran
    out.append('Heap after GC %s–%s MB, NMT committed %s–%s MB (highest at the first report), RSS from %s\nto %s MB; '
               'over the last five minutes it went from %s MB (the %d s report) to %s MB (the %d s\none)' % (
                   mb(min(r['heapAfterGcKB'] for r in reports)), mb(max(r['heapAfterGcKB'] for r in reports)),
                   mb(min(r['nmtCommittedKB'] for r in reports)), mb(max(r['nmtCommittedKB'] for r in reports)),
                   mb(reports[0]['rssKB']), mb(max(r['rssKB'] for r in reports)),
                   mb(at_300['rssKB']), at_300['elapsedS'], mb(last['rssKB']), last['elapsedS']))
    return out


check('Soak', soak)


# --- "What `-prof gc` counts": alloc-floor.sh's run of 2026-11-25, through alloc-floor.py's cells ------

FLOOR = 'experiments/alloc-floor/'


@functools.lru_cache(maxsize=None)
def floor_iterations():
    """JMH's own bytes per iteration: every measured iteration of AllocationFloorBenchmark, 1 s and 10 s."""
    from pathlib import Path
    af = script('alloc-floor')
    return [x for name in ('floor-1s', 'floor-10s') for *_, per_it, _ in af.cells(Path(RESULTS, FLOOR + name + '.json'))
            for x in per_it]


def floor_cells(name, keys):
    """alloc-floor.py's cells of one file, by the parameters KEYS ('method': the benchmark method): (B/op, bytes per iteration, above the floor, at the floor),
    'above' as alloc-floor.py computes it and 'at the floor' when it is not above 0 or the median iteration is the floor."""
    from pathlib import Path
    floor = statistics.median(floor_iterations())
    found = {}
    for b, _, norm, per_it, ops in script('alloc-floor').cells(Path(RESULTS, FLOOR + name + '.json')):
        above = statistics.median((x - floor) / n for x, n in zip(per_it, ops))
        at_floor = above <= 0 or round(statistics.median(per_it)) == round(floor)
        params = dict(b['params'], method=b['benchmark'].rsplit('.', 1)[1])
        found[tuple(params[k] for k in keys)] = (norm, per_it, above, at_floor)
    return found


def alloc_floor():
    floors = floor_iterations()
    floor = statistics.median(floors)
    out = ['its bytes per iteration are JMH\'s alone: %s to %s B, median %s B' % (
        thousands(min(floors)), thousands(max(floors)), thousands(floor)),
        '(median bytes per iteration \u2212 %s B)' % thousands(floor)]

    def figure(value, below):  # three decimals below BELOW, two above, as the table has them
        return '%.3f' % value if value < below else '%.2f' % value

    for name, iteration, sizes, peers in (('pipeline-1s', '1 s', (64, 1024, 65536, 1048576), True),
                                          ('pipeline-10s', '10 s', (65536, 1048576), False)):
        cells = floor_cells(name, ('contestant', 'size'))
        for size in sizes:
            norm, per_it, above, at_floor = cells[('zmqzstd', str(size))]
            row = '| Pipeline %s | %s | %s | %s\u2013%s | %s |' % (
                script('tables').size_label(size), iteration, figure(norm, 1), thousands(min(per_it)), thousands(max(per_it)),
                'at the floor' if at_floor else figure(above, 0.1))
            if peers:
                row += ' %s | %s |' % (thousands(cells[('jeromqZstdjni', str(size))][0]), thousands(cells[('libzmqBytes', str(size))][0]))
            else:
                row += ' | |'
            out.append(row)
    return out


check('What -prof gc counts: the alloc-floor run', alloc_floor)


def alloc_floor_others():
    """The transport and codec rows under the alloc-floor table, and the timed-slice figures in item 2."""
    out = []
    transport = floor_cells('transport', ('strategy', 'transport', 'size'))
    for label, strategy, over in (('`zeroCopyPooled`, tcp', 'zeroCopyPooled', 'tcp'), ('`zeroCopyPooled`, inproc', 'zeroCopyPooled', 'inproc')):
        cells = [transport[(strategy, over, size)] for size in ('65536', '262144')]
        out.append('| Transport %s 64 KiB / 256 KiB | %s | %s | %s |' % (
            label, ' / '.join('%.3f' % c[0] for c in cells), ' / '.join('%s\u2013%s' % (thousands(min(c[1])), thousands(max(c[1])))
                                                                       for c in cells),
            ' / '.join('at the floor' if c[3] else '%.3f' % c[2] for c in cells)))
    out.append('| Transport `byteArray`, tcp 64 KiB / 256 KiB | %s | | the array per message |' % ' / '.join(
        thousands(transport[('byteArray', 'tcp', size)][0]) for size in ('65536', '262144')))

    def above(value):  # as the codec rows give it: two decimals below 1, one below 10, none from there
        return '%.2f' % value if value < 1 else '%.1f' % value if value < 10 else '%.0f' % value

    for label, name, size, method, digits in (
            ('Codec 1 MiB compress: zmqzstd-segment / zstdjni-direct / aircompressor-native (0.5 s)', 'codec', '1048576', 'compress', 1),
            ('Codec 1 MiB decompress, same order', 'codec', '1048576', 'decompress', 1),
            ('Codec 64 MiB compress, same order (4 s)', 'codec-64m', '67108864', 'compress', 0),
            ('Codec 64 MiB decompress, same order', 'codec-64m', '67108864', 'decompress', 1)):
        codec = floor_cells(name, ('contestant', 'size', 'method'))
        cells = [codec[(c, size, method)] for c in ('zmqzstd-segment',) + PEERS]
        out.append('| %s | %s | %s | %s |' % (
            label, ' / '.join('%.*f' % (digits, c[0]) for c in cells),
            ' / '.join('%s\u2013%s' % (thousands(min(c[1])), thousands(max(c[1]))) for c in cells),
            ' / '.join(above(max(c[2], 0)) for c in cells)))
    # the timed calls' slice: two rounds each of the jars before (old) and after (new), JSON in timed-slice/
    norm = {(kind, r['params']['size']): [] for kind in ('old', 'new') for r in rows(FLOOR + 'timed-slice/old-1.json')}
    for kind in ('old', 'new'):
        for i in (1, 2):
            for r in rows(FLOOR + 'timed-slice/%s-%d.json' % (kind, i)):
                norm[(kind, r['params']['size'])].append(script('tables').alloc(r))
    mib = norm[('old', '1048576')] + norm[('new', '1048576')]
    out.append('two rounds each: %.1f and %.1f against %.1f and %.1f B/msg; 1 KiB and 64 KiB unchanged, %s and %s B/msg' % (
        tuple(mib) + (span(norm[('old', '1024')] + norm[('new', '1024')]), span(norm[('old', '65536')] + norm[('new', '65536')], 1))))
    return out


check('What -prof gc counts: the transport and codec cells, the timed slice', alloc_floor_others)


def pipeline_garbage():
    """The `byte[]` contestants' garbage per message (pipeline.json, both affinities and transports) and zmqzstd's
    whole-JVM figures of the alloc-floor run, as the Summary, "Pipeline under 1 B/msg", the Findings and README.md give them."""
    units = {1024: (1e3, 'KB', 1), 65536: (1e3, 'KB', 0), 1048576: (1e6, 'MB', 1)}

    def garbage(contestants):  # per size, 'lowest–highest unit' of the contestants' B/msg
        found = {}
        for r in rows('pipeline.json'):
            if r['params']['contestant'] in contestants and int(r['params']['size']) in units:
                found.setdefault(int(r['params']['size']), []).append(script('tables').alloc(r))
        return ['%s %s' % (span([v / units[s][0] for v in found[s]], units[s][2]), units[s][1]) for s in sorted(units)]

    both, jeromq = garbage(('libzmqBytes', 'jeromqZstdjni')), garbage(('jeromqZstdjni',))
    cells = {name: floor_cells(name, ('contestant', 'size')) for name in ('pipeline-1s', 'pipeline-10s')}
    one_s = [cells['pipeline-1s'][('zmqzstd', str(s))][0] for s in (64, 1024, 65536, 1048576)]
    ten_s = [cells['pipeline-10s'][('zmqzstd', str(s))][0] for s in (65536, 1048576)]
    above = [max(cells['pipeline-1s'][('zmqzstd', str(s))][2], 0) for s in (64, 1024, 65536, 1048576)]
    peers = [c[0] for key, c in cells['pipeline-1s'].items() if key[0] == 'jeromqZstdjni']
    floors = floor_iterations()
    floor = statistics.median(floors)
    return (['0.%s / %.3f / %.2f / %.1f B/msg at 64 B / 1 KiB / 64 KiB / 1 MiB, all of it JMH\'s own %.1f KB per '
             'iteration (the `AllocationFloorBenchmark` control) but the pipeline\'s share of %s B/msg' % (
                 ('%.3f' % one_s[0])[2:], one_s[1], one_s[2], one_s[3], floor / 1000, span(above)),
             '%.3f B/msg at 64 B, %.3f at 1 KiB, %.3f at 64 KiB, %.2f at 1 MiB with 1 s iterations (%.3f and %.2f at 64 KiB and '
             '1 MiB with 10 s iterations)' % tuple(one_s + ten_s),
             'is %s B per iteration (%s\u2013%s), and zmqzstd\'s bytes per iteration are that floor: %.3f, %.3f, %.3f B/msg above '
             'it at 64 B, 1 KiB, 64 KiB, %.3f at 1 MiB; JeroMQ + zstd-jni %s B to %.1f MB per message in the same run' % (
                 (thousands(floor), thousands(min(floors)), thousands(max(floors))) + tuple(above)
                 + (thousands(min(peers)), max(peers) / 1e6)),
             'the pipeline\'s own share is %s B per message at every size (%.2f at 1 MiB with 10 s iterations' % (
                 span(above), cells['pipeline-10s'][('zmqzstd', '1048576')][2]),
             'floor and, in the pipeline, %s B per message above it (' % span(above),
             'the `byte[]` contestants produce %s of garbage per message at 1 KiB, %s at 64 KiB and %s at 1 MiB' % tuple(both),
             'the `byte[]` results and copies (%s of garbage per message' % both[1]],
            ['%.2f B at 64 B, %.2f at 1 KiB and %.2f at 64 KiB per message, all of it JMH\'s own %.1f KB per iteration but %s B per '
             'message' % (tuple(one_s[:3]) + (floor / 1000, span(above))),
             'JeroMQ + zstd-jni allocates %s, %s and %s per message at 1 KiB, 64 KiB and 1 MiB' % tuple(jeromq)])


check('Pipeline under 1 B/msg: the garbage per message, the Summary, Findings and README.md', pipeline_garbage)


def ab_rounds(folder, kinds=('pipeline', 'transport')):
    """The rounds of an alternated old/new run (KIND-old-N.json against KIND-new-N.json): per cell (benchmark, way, size),
    per round (new / old msg/s, new B/msg, old B/msg, new msg/s, old msg/s); a pipeline cell's way is zmqzstd, or
    zmqzstd@N with N compressing threads."""
    found = {}
    for kind in kinds:
        i = 1
        while os.path.exists(os.path.join(RESULTS, folder, '%s-old-%d.json' % (kind, i))):
            pair = {}
            for version in ('old', 'new'):
                for r in rows('%s/%s-%s-%d.json' % (folder, kind, version, i)):
                    p = r['params']
                    threads = p.get('compressionThreads', '0')
                    way = p['strategy'] if kind == 'transport' else 'zmqzstd' if threads == '0' else 'zmqzstd@' + threads
                    pair.setdefault((kind, way, p['size']), {})[version] = (r['primaryMetric']['score'], script('tables').alloc(r))
            for cell, v in pair.items():
                found.setdefault(cell, []).append((v['new'][0] / v['old'][0], v['new'][1], v['old'][1], v['new'][0], v['old'][0]))
            i += 1
    return found


def ab_ratio_cells(values, msg_per_s):
    """new / old per round, their median, (the medians of new and old msg/s,) the medians of new and old B/msg."""
    ratios = [v[0] for v in values]
    row = '%s | %s |' % (fmt(ratios, 3), med(ratios))
    if msg_per_s:
        row += ' %s | %s |' % (thousands(statistics.median(v[3] for v in values)), thousands(statistics.median(v[4] for v in values)))
    return row + ' %s | %s |' % (med([v[1] for v in values]), med([v[2] for v in values]))


def timed_call_ab():
    """"Speed after the change to timed calls" (experiments/timed-call-ab/)."""
    cells = ab_rounds('experiments/timed-call-ab')
    out = ['| %s | %s | %s | %s' % (cell + (ab_ratio_cells(values, False),)) for cell, values in cells.items()]
    pipeline64 = [v[0] for v in cells[('pipeline', 'zmqzstd', '65536')]]
    out.append('six more times: median %s, %d of %d rounds ahead, from %s to %s' % (
        med(pipeline64), sum(r > 1 for r in pipeline64), len(pipeline64), '%.2f' % min(pipeline64), '%.2f' % max(pipeline64)))
    return out


check('What -prof gc counts: speed after the change to timed calls', timed_call_ab)


def mid_message_ab():
    """"Speed after the mid-message send rule" (experiments/mid-message-ab/ and its compressing-sender/)."""
    cells = ab_rounds('experiments/mid-message-ab', ('transport', 'pipeline'))
    out = ['| %s | %s | %s | %s' % (cell + (ab_ratio_cells(values, True),)) for cell, values in cells.items()]
    sender = ab_rounds('experiments/mid-message-ab/compressing-sender', ('pipeline',))
    out.extend('| %s | %s' % (cell[2], ab_ratio_cells(values, True)) for cell, values in sender.items())
    return out


check('What -prof gc counts: speed after the mid-message send rule', mid_message_ab)


# --- "Codec", "Transport", "Pipeline" and "Latency": the main tables, made by tables.py from the JMH JSON ------

def printed_main(name, *args):
    """What one of the scripts prints when run with ARGS on its command line."""
    argv = sys.argv
    try:
        sys.argv = [name + '.py'] + list(args)
        return printed(script(name).main)
    finally:
        sys.argv = argv


def main_tables():
    """tables.py's whole output over benchmark/results/: each table's title and the table itself (a title may go
    on in the document with the run's details)."""
    text = printed_main('tables', RESULTS)
    out = []
    for block in ('\n' + text).split('\n**')[1:]:
        title, _, table = block.partition('\n')
        out.extend([title.rstrip('*'), table.strip()])
    return out


check('Codec, Transport, Pipeline, Latency: the tables of tables.py', main_tables)


def pipeline_options():
    """The prose under the pacing, switch-over and raw-frame tables (pipeline-flow.json, switchover-pipeline.json,
    raw-frames.json and the ratios the same runs printed into pipeline-ratios.txt)."""
    def x(path, key, a, b, **params):  # msg/s with KEY=A over KEY=B
        return score(path, 'transfer', **{key: a}, **params) / score(path, 'transfer', **{key: b}, **params)

    ours = [x('pipeline-flow.json', 'flow', 'stream', 'batch', contestant='zmqzstd', size=s) for s in (64, 1024)]
    switch = [x('switchover-pipeline.json', 'zeroCopyThresholdBytes', 0, copy, size=s, transport=t)
              for copy in {r['params']['zeroCopyThresholdBytes'] for r in rows('switchover-pipeline.json')} - {'0'}
              for s in (4096, 16384, 65536) for t in ('inproc', 'tcp')]
    raw = [x('raw-frames.json', 'rawFrameBelowBytes', 1024, 0, size=s) for s in (64, 128, 256)]

    def line(size, below):  # pipeline-ratios.txt's line for zmqzstd over tcp at level 3 without a dictionary
        return [kv for kv in key_values('pipeline-ratios.txt') if 'ratio' in kv and kv['contestant'] == 'zmqzstd'
                and kv['size'] == str(size) and kv['transport'] == 'tcp' and kv['level'] == '3' and kv['dictionary'] == 'none'
                and kv['rawFrameBelowBytes'] == str(below)][0]

    same = {line(64, 0)['ratio'], line(64, 1024)['ratio']}
    more = [100 * (float(line(s, 1024)['compressedBytes']) / float(line(s, 0)['compressedBytes']) - 1) for s in (128, 256)]
    return ['The effect is within noise for zmqzstd (%sx) and large for some peers (JeroMQ %.2fx at 1 KiB)' % (
                span(ours), x('pipeline-flow.json', 'flow', 'stream', 'batch', contestant='jeromqZstdjni', size=1024)),
            'the zero-copy threshold makes no difference beyond noise (%sx, no direction)' % span(switch),
            'Ratios from the same runs: 64 B %s either way (zstd stores the event raw too); 128 B %s compressed against %s raw; '
            '256 B %s against %s.' % (' / '.join(sorted(same)), line(128, 0)['ratio'], line(128, 1024)['ratio'],
                                      line(256, 0)['ratio'], line(256, 1024)['ratio']),
            'gives %.1fx the messages at 64 B for the same bytes on the wire, and %sx at 128\u2013256 B for %s %% more bytes' % (
                raw[0], span(raw[1:], 1), span(more, 0))]


check('Pacing, switch-over and raw frames in the pipeline: the prose under the tables', pipeline_options)


# --- "Through a proxy: one forwarding hop": hop-table.py over the two rounds of 2026-11-28 ----------------

HOP_DIR = os.path.join(RESULTS, 'pipeline-hop-2026-11-28')
HOP_MAIN = [os.path.join(HOP_DIR, 'pipeline-hop-r%d.json' % i) for i in (1, 2)]
HOP_LIBZMQ = [os.path.join(HOP_DIR, 'pipeline-libzmq-proxy-r%d.json' % i) for i in (1, 2)]


def proxy_hop():
    """hop-table.py's three tables over results/pipeline-hop-2026-11-28/, row by row."""
    text = printed_main('hop-table', *HOP_MAIN, '--', *HOP_LIBZMQ)
    return [line for line in text.splitlines() if line.startswith('| ') and not line.startswith(('| transport', '|---'))]


check('Through a proxy: one forwarding hop, the tables of hop-table.py', proxy_hop)


def proxy_hop_prose():
    """The figures of the prose around hop-table.py's tables: the rounds' spread, the four findings under them and the
    Findings' "Hubs" line."""
    hop = script('hop-table')
    rounds = [hop.load(path) for path in HOP_MAIN]
    spread = {key: 1 - min(v[0] for v in (r[key] for r in rounds)) / max(v[0] for v in (r[key] for r in rounds)) for key in rounds[0]}
    widest = max(spread, key=spread.get)
    for r, path in zip(rounds, HOP_LIBZMQ):
        r.update(hop.load(path))

    def values(t, size, c, way, index=0):  # the rounds' msg/s (INDEX 0) or B/msg (1) of one cell
        return [r[(t, size, c, way)][index] for r in rounds]

    def over(t, size, a, way_a, b, way_b):  # per round, A's msg/s over B's
        return [r[(t, size, a, way_a)][0] / r[(t, size, b, way_b)][0] for r in rounds]

    jeromq = values(*widest)
    garbage = {size: [p - d for p, d in zip(values('tcp', size, 'jeromqZstdjni', 'proxy', 1), values('tcp', size, 'jeromqZstdjni', 'none', 1))]
               for size in (1024, 65536)}
    through = [v for t in ('tcp', 'inproc') for size in (1024, 65536) for v in values(t, size, 'zmqzstd', 'proxy', 1)]
    loops = {(c, t, size): over(t, size, c, 'proxy', c, 'libzmqProxy')
             for c in ('zmqzstd', 'libzmqBytes') for t in ('tcp', 'inproc') for size in (1024, 65536)}
    elsewhere = [v for (c, t, size), vs in loops.items() if c == 'zmqzstd' and (t, size) != ('tcp', 1024) for v in vs]
    bytes_loop = [v for (c, t, size), vs in loops.items() if c == 'libzmqBytes' for v in vs]
    ahead = sum(1 for vs in loops.values() for v in vs if v > 1)
    cost = [100 * (1 - x) for x in over('tcp', 1024, 'zmqzstd', 'proxy', 'zmqzstd', 'none')]
    jeromq_cost = [100 * (1 - x) for x in over('tcp', 1024, 'jeromqZstdjni', 'proxy', 'jeromqZstdjni', 'none')]
    all_garbage = [g / 1000 for size in (1024, 65536) for g in garbage[size]]
    return ['rounds of single forks move by up to %.0f %% here (%s direct over\n%s at %s: %s, then %s msg/s)' % (
                100 * spread[widest], 'JeroMQ' if widest[2] == 'jeromqZstdjni' else widest[2], widest[0],
                script('tables').size_label(widest[1]), hop.rate(jeromq[0]), hop.rate(jeromq[1])),
            'Over tcp at 1 KiB JeroMQ\'s proxy takes its stream to\n  %sx of direct and adds %.1f KB of garbage per message (%s against %s B);\n'
            '  at 64 KiB it adds %s KB per message.' % (
                span(over('tcp', 1024, 'jeromqZstdjni', 'proxy', 'jeromqZstdjni', 'none')), statistics.median(garbage[1024]) / 1000,
                *('%s\u2013%s' % (thousands(min(v)), thousands(max(v))) for v in (values('tcp', 1024, 'jeromqZstdjni', 'proxy', 1),
                                                                               values('tcp', 1024, 'jeromqZstdjni', 'none', 1))),
                span([g / 1000 for g in garbage[65536]], 0)),
            'zmqzstd stays\n  at %s B/msg through it.' % span(through),
            'moves %sx of direct over tcp at 1 KiB and %sx at\n  64 KiB, and leads JeroMQ + zstd-jni through its hop by %sx at 1 KiB and %sx at\n'
            '  64 KiB over tcp (direct in the same rounds: %sx and %sx).' % (
                span(over('tcp', 1024, 'zmqzstd', 'proxy', 'zmqzstd', 'none')), span(over('tcp', 65536, 'zmqzstd', 'proxy', 'zmqzstd', 'none')),
                span(over('tcp', 1024, 'zmqzstd', 'proxy', 'jeromqZstdjni', 'proxy')),
                span(over('tcp', 65536, 'zmqzstd', 'proxy', 'jeromqZstdjni', 'proxy')),
                span(over('tcp', 1024, 'zmqzstd', 'none', 'jeromqZstdjni', 'none')),
                span(over('tcp', 65536, 'zmqzstd', 'none', 'jeromqZstdjni', 'none'))),
            'zmqzstd %sx of direct, and\n  %sx JeroMQ through its hop' % (
                span(over('inproc', 1024, 'zmqzstd', 'proxy', 'zmqzstd', 'none')),
                span(over('inproc', 1024, 'zmqzstd', 'proxy', 'jeromqZstdjni', 'proxy'))),
            'zmqzstd moves %sx over tcp at 1 KiB through\n  `ZmqProxy` what it moves through libzmq\'s loop, and %sx elsewhere; `libzmqBytes`\n'
            '  %sx. In %d of the %d cells `ZmqProxy` moved more.' % (
                span(loops[('zmqzstd', 'tcp', 1024)]), span(elsewhere), span(bytes_loop), ahead, sum(len(v) for v in loops.values())),
            '`ZmqProxy` cost zmqzstd %.0f\u2013%.0f %%\n  over tcp at 1 KiB and nothing at 64 KiB (%sx of direct), with nothing allocated, where\n'
            '  JeroMQ\'s proxy cost JeroMQ + zstd-jni %.0f\u2013%.0f %% at 1 KiB and added %.1f\u2013%.0f KB of garbage per message' % (
                min(cost), max(cost), span(over('tcp', 65536, 'zmqzstd', 'proxy', 'zmqzstd', 'none')),
                min(jeromq_cost), max(jeromq_cost), min(all_garbage), max(all_garbage))]


check('Through a proxy: one forwarding hop, the findings under the tables', proxy_hop_prose)


# --- "What the proxy's own loop costs": proxy-loop-table.py over the six ProxyBenchmark rounds -------------

PROXY_LOOP_DIR = os.path.join(RESULTS, 'proxy-loop')


def proxy_loop():
    """proxy-loop-table.py's rows over the six rounds, the first version's round, and the prose's figures."""
    table = script('proxy-loop-table')
    paths = [os.path.join(PROXY_LOOP_DIR, 'proxy-loop-r%d.json' % i) for i in range(1, 7)]
    text = printed_main('proxy-loop-table', *paths)
    rows = [line for line in text.splitlines() if line.startswith('| ') and not line.startswith(('| transport', '|---'))]
    rounds = [table.load(path) for path in paths]
    cells = [(t, size) for t in table.TRANSPORTS for size in table.SIZES]
    ratios = {c: [r[c + ('zmqzstd',)][0] / r[c + ('libzmq',)][0] for r in rounds] for c in cells}
    medians = [statistics.median(v) for v in ratios.values()]
    every = [x for v in ratios.values() for x in v]
    alloc = [r[c + (loop,)][1] for r in rounds for c in cells for loop in table.LOOPS]
    again = [table.load(os.path.join(PROXY_LOOP_DIR, 'proxy-loop-r%d.json' % i)) for i in (7, 8)]
    final = [r[c + ('zmqzstd',)][0] / r[c + ('libzmq',)][0] for r in again for c in cells]
    first = table.load(os.path.join(PROXY_LOOP_DIR, 'events-per-message.json'))
    first_ratios = [first[c + ('zmqzstd',)][0] / first[c + ('libzmq',)][0] for c in cells]
    lowest = cells[first_ratios.index(min(first_ratios))]
    return rows + [
        'the medians of the rounds\' ratios are\n  %.3f\u2013%.3f, and the loop moved more in %d of the %d rounds; single rounds range over\n  %s.' % (
            min(medians), max(medians), sum(1 for x in every if x > 1), len(every), span(every)),
        '(%s B/msg, every thread of the\n  JVM counted)' % span(alloc),
        '%sx libzmq\'s loop\n  in one round, lowest at %s' % (span(first_ratios), script('tables').size_label(lowest[1])),
        '%sx libzmq\'s loop, %sx over tcp' % (span(final), span([r[c + ('zmqzstd',)][0] / r[c + ('libzmq',)][0]
                                                                  for r in again for c in cells if c[0] == 'tcp']))]


check("What the proxy's own loop costs, the table of proxy-loop-table.py and the findings", proxy_loop)


def proxy_loop_review():
    """The rounds after the review of 2026-11-28 (results/proxy-loop-review/): against libzmq's loop, and the jar
    against the one before the review in alternating rounds."""
    table = script('proxy-loop-table')
    folder = os.path.join(RESULTS, 'proxy-loop-review')
    cells = [(t, size) for t in table.TRANSPORTS for size in table.SIZES]
    rounds = [table.load(os.path.join(folder, 'proxy-loop-r%d.json' % i)) for i in range(1, 5)]
    new, old = ([table.load(os.path.join(folder, 'ab-%s-r%d.json' % (v, i))) for i in range(1, 5)] for v in ('new', 'old'))
    ratios = {c: [r[c + ('zmqzstd',)][0] / r[c + ('libzmq',)][0] for r in rounds] for c in cells}
    medians = [statistics.median(v) for v in ratios.values()]
    every = [x for v in ratios.values() for x in v]
    ab = [statistics.median([n[c + ('zmqzstd',)][0] / o[c + ('zmqzstd',)][0] for n, o in zip(new, old)]) for c in cells]
    inproc64 = ('inproc', 64)
    rates = sorted(r[inproc64 + ('zmqzstd',)][0] for r in rounds)
    before = sorted(table.load(os.path.join(PROXY_LOOP_DIR, 'proxy-loop-r%d.json' % i))[inproc64 + ('zmqzstd',)][0] for i in range(1, 7))
    behind = [o[inproc64 + ('zmqzstd',)][0] / o[inproc64 + ('libzmq',)][0] for o in old]
    return ['medians of the four rounds %.3f\u2013%.3f (single rounds %s)' % (min(medians), max(medians), span(every)),
            'medians %.3f\u2013%.3f' % (min(ab), max(ab)),
            'inproc 64 B {:,.0f}\u2013{:,.0f} K msg/s, where rounds 1\u20136 above gave {:,.0f}\u2013{:,.0f} K'.format(
                rates[0] / 1000, rates[-1] / 1000, before[0] / 1000, before[-1] / 1000),
            '(%s\n  at inproc 64 B)' % span(behind)]


check("What the proxy's own loop costs, after the review of 2026-11-28", proxy_loop_review)


# --- cli/README.md "Compressing on several threads" and README.md: cli-threads.sh's outputs ----------------

def cli_threads():
    """The table of cli/README.md from results/cli-threads/*.txt (median MB/s of each way, the ratio of the medians, the
    per-round ratios) and README.md's two ratios."""
    out, ratio = [], {}
    for name in ('chunk64k-level3', 'chunk64k-level9', 'lines-level3'):
        with open(os.path.join(RESULTS, 'cli-threads', name + '.txt')) as f:
            lines = f.read().splitlines()
        level = [w for w in lines[0].replace(',', ' ').split() if w.startswith('level=')][0].split('=')[1]
        # the MB/s as printed (two decimals), so that the table's one decimal rounds them half up as written
        rounds = [[decimal.Decimal(w) for w in line.replace(',', ' ').split() if w.replace('.', '').isdigit() and '.' in w][:2]
                  for line in lines if line.startswith('round ')]
        one, three = (statistics.median(r[i] for r in rounds) for i in (0, 1))
        ratio[name] = float(three / one)
        out.append('(%s) | %s | %s | %.2fx | %s | [`%s.txt`]' % tuple(
            [level] + [v.quantize(decimal.Decimal('0.1'), decimal.ROUND_HALF_UP) for v in (one, three)]
            + [ratio[name], span([float(r[1] / r[0]) for r in rounds]), name]))
    return {'cli/README.md': out, 'README.md': ['(%.2fx at level 3, %.2fx at level 9 in 64 KiB chunks here)' % (
        ratio['chunk64k-level3'], ratio['chunk64k-level9'])]}


check('cli/README.md: compressing on several threads', cli_threads)


# --- "The summary in detail": the pipeline verdicts listed under the like-for-like table ----------

def verdict_cell(folder, check_name, transport, size, with_span=False, comparison=0):
    """verdict.py's median ratio of one row ('1.09x'), with its min\u2013max of the rounds when WITH_SPAN ('1.09x (1.09\u20131.24)')."""
    for cells, _ in verdict_rows(folder, check_name, comparison):
        if cells[0] == transport and cells[1] == size:
            return '%sx (%s)' % (cells[4], cells[5]) if with_span else cells[4] + 'x'
    raise ValueError('%s/%s: no row %s %s' % (folder, check_name, transport, size))


def verdict_cells(folder, check_name, transport, sizes, with_span=False):
    return tuple(verdict_cell(folder, check_name, transport, s, with_span) for s in sizes)


def pipeline_verdict_list():
    """The list of pipeline verdicts under "The measurements, the like-for-like ones first": the parallel sender's verdicts
    (ring of 64 and of 16, the reruns, level 1, libzstd 1.5.7, an I/O thread per end) and the one-thread verdicts of every
    run, each from its results folder; the I/O-thread figures from the rounds.py committed beside that verdict."""
    sizes = ('1 KiB', '64 KiB', '1 MiB', '64 B')
    one_thread = ('64 KiB', '1 MiB', '1 KiB', '64 B')  # the order the one-thread figures are given in
    peer = {cells[1]: cells[4] for cells, _ in verdict_rows('verdict-parallel-peer', 'pipeline-parallel-peer', 3)}
    reused = [float(cells[5]) for cells, _ in verdict_rows('verdict-reused-read', 'pipeline-reused', 2)]
    level1 = {s: pipeline_rounds('verdict-parallel-l1', 'pipeline-parallel-l1', s) for s in PIPELINE_SIZES}
    level3 = [statistics.median(pipeline_rounds('verdict-parallel-l1', 'pipeline-parallel-tcp', s)) for s in PIPELINE_SIZES]
    io2 = subprocess.run([sys.executable, 'rounds.py'], cwd=os.path.join(RESULTS, 'verdict-pipeline-io2'),
                         capture_output=True, text=True, check=True).stdout
    best = [line.split('best/best ')[1].split()[0] for line in io2.splitlines()]
    out = ['The executor makes the peer %sx of its one-thread self at 1 KiB; reusing arrays makes it %.2f\u2013%.2fx faster' % (
               peer['1 KiB'], min(reused), max(reused)),
           'JMH verdict `pipeline-parallel` with the ring of 64 (%d rounds): tcp 1 KiB %s, 64 KiB %s, 1 MiB %s, 64 B %s; '
           'inproc %s, %s, %s, 64 B %s (with the first ring of 16: tcp %s, %s, %s).' % (
               (len(pipeline_rounds('verdict-parallel-ring64', 'pipeline-parallel', 1024)),
                verdict_cell('verdict-parallel-ring64', 'pipeline-parallel', 'tcp', '1 KiB', True))
               + verdict_cells('verdict-parallel-ring64', 'pipeline-parallel', 'tcp', sizes[1:])
               + verdict_cells('verdict-parallel-ring64', 'pipeline-parallel', 'inproc', sizes)
               + verdict_cells('verdict-parallel', 'pipeline-parallel', 'tcp', sizes[:3])),
           'Rerun on 2026-11-25 at 39c85cc (%d rounds): tcp 1 KiB %s, 64 KiB %s, 1 MiB %s, 64 B %s; inproc %s, %s, %s, 64 B %s.' % (
               (len(pipeline_rounds('verdict-parallel-2026-11-25', 'pipeline-parallel', 1024)),
                verdict_cell('verdict-parallel-2026-11-25', 'pipeline-parallel', 'tcp', '1 KiB', True))
               + verdict_cells('verdict-parallel-2026-11-25', 'pipeline-parallel', 'tcp', sizes[1:])
               + verdict_cells('verdict-parallel-2026-11-25', 'pipeline-parallel', 'inproc', sizes)),
           'Again on 2026-11-26, tcp: %s, %s, %s at 1 KiB, 64 KiB, 1 MiB (%d rounds, `verdict-pipeline-io2`' % (
               verdict_cells('verdict-pipeline-io2', 'pipeline-parallel-tcp', 'tcp', sizes[:3])
               + (len(pipeline_rounds('verdict-pipeline-io2', 'pipeline-parallel-tcp', 1024)),)),
           'and %s, %s, %s (%d rounds, `verdict-pipeline-2026-11-26d`' % (
               verdict_cells('verdict-pipeline-2026-11-26d', 'pipeline-parallel-tcp', 'tcp', sizes[:3], True)
               + (len(pipeline_rounds('verdict-pipeline-2026-11-26d', 'pipeline-parallel-tcp', 1024)),)),
           'each contestant at its faster setting: %sx at 1 KiB, %sx at 64 KiB, %sx at 1 MiB.' % tuple(best),
           'With an I/O thread per end, each at its faster setting: %s / %s / %sx.' % tuple(best),
           'At level 1, tcp, %d rounds taking turns with level 3 (2026-11-25, 5e5c663): 1 KiB %.2fx, 64 KiB %.2fx (two rounds '
           '%.2fx and %.2fx), 1 MiB %.2fx, against %.2fx, %.2fx, %.2fx at level 3 in the same rounds' % (
               (len(level1[1024]), statistics.median(level1[1024]), statistics.median(level1[65536]))
               + tuple(sorted(level1[65536])[-2:]) + (statistics.median(level1[1048576]),) + tuple(level3)),
           'system library: 1 KiB %s, 64 KiB %s, 1 MiB %s, against %s, %s, %s on 1.5.4 in the same rounds' % (
               (verdict_cell('verdict-parallel-lib157', 'pipeline-parallel-lib', 'tcp', '1 KiB', True),)
               + verdict_cells('verdict-parallel-lib157', 'pipeline-parallel-lib', 'tcp', sizes[1:3])
               + verdict_cells('verdict-parallel-lib157', 'pipeline-parallel-tcp', 'tcp', sizes[:3])),
           'JMH verdicts tcp: 64 KiB %s, 1 MiB %s, 1 KiB %s (64 B %s); inproc: %s, %s, %s (64 B %s)' % (
               verdict_cells('verdict', 'pipeline', 'tcp', one_thread) + verdict_cells('verdict', 'pipeline', 'inproc', one_thread)),
           'on libzstd 1.5.7 for both, tcp: %s, %s, %s;' % verdict_cells('verdict', 'pipeline-samelib', 'tcp', one_thread[:3])]
    for words, folder in (('Rerun after the latest codec changes:', 'verdict-pipeline-after'),
                          ("again on 2026-11-26 after the pipeline's input checks:", 'verdict-pipeline-2026-11-26c'),
                          ('(`verdict-pipeline-2026-11-26d`):', 'verdict-pipeline-2026-11-26d'),
                          ('(`verdict-2026-11-26e`, a slower VM):', 'verdict-2026-11-26e')):
        out.append('%s tcp %s, %s, %s (64 B %s), inproc %s, %s, %s (64 B %s)' % (
            (words,) + verdict_cells(folder, 'pipeline', 'tcp', one_thread) + verdict_cells(folder, 'pipeline', 'inproc', one_thread)))
    return out


check('The summary in detail: the pipeline verdicts', pipeline_verdict_list)


# --- "The summary in detail", transport: the figures of its verdict and of the JMH verdict's small cells ----

def transport_verdict_prose():
    """The transport verdict's own figures (interleaved JVM counts, the JMH verdict's spans, its per-round scatter at
    64 and 512 B, its whole-JVM B/msg) and the scatter of the nine-round verdict of the four small cells."""
    thirty, again = interleaved_rows('interleaved'), interleaved_rows('interleaved-64-2026-11-25')
    before = interleaved_rows('experiments/small-send-ways')
    way = 'zeroCopyPooled / byteArray'

    def row(found, transport, size):  # (JVMs, median, 95 % interval, min-max, JVMs above 1, p)
        return found[('transport', transport, size, way)]

    def ahead(found, transport, size):
        c = row(found, transport, size)
        return 'every one of %s JVMs ahead' % c[0] if c[4] == '%s/%s' % (c[0], c[0]) else 'ahead in %s of %s JVMs' % tuple(c[4].split('/'))

    verdict = [c for c, _ in verdict_rows('verdict', 'transport')]
    by_size = {tuple(c[:2]): c for c in verdict}
    large = [float(by_size[('inproc', s)][4]) for s in ('64 KiB', '128 KiB', '256 KiB')]
    small = [float(v) for t in ('inproc', 'tcp') for s in ('64 B', '512 B') for v in by_size[(t, s)][5].split('\u2013')]
    alloc_small = [float(c[6]) for c in verdict if c[1] in ('64 B', '512 B', '1 KiB')]
    alloc_large = [float(c[6]) for c in verdict if c[1] in ('64 KiB', '128 KiB', '256 KiB')]
    nine = [float(v) for c, _ in verdict_rows('verdict-small', 'transport-small') for v in c[5].split('\u2013')]
    inproc_again, tcp_again = row(again, 'inproc', '64 B'), row(again, 'tcp', '64 B')
    tcp_thirty, tcp_before = row(thirty, 'tcp', '64 B'), row(before, 'tcp', '64 B')
    return ['(tcp %.2fx at 64 KiB with %s, %s\u2013%sx at 128\u2013256 KiB; inproc %.1f\u2013%.1fx)' % (
                float(row(thirty, 'tcp', '64 KiB')[1]), ahead(thirty, 'tcp', '64 KiB'), by_size[('tcp', '128 KiB')][4],
                by_size[('tcp', '256 KiB')][4], min(large), max(large)),
            '(%.2fx, %s, %s, 2026-11-25; %.2fx in the %s JVMs before)' % (
                float(inproc_again[1]), inproc_again[2], ahead(again, 'inproc', '64 B'), float(row(thirty, 'inproc', '64 B')[1]),
                row(thirty, 'inproc', '64 B')[0]),
            '(%sx, %s, %s, 2026-11-25; %.2fx, %s, in the %s JVMs before' % (
                tcp_again[1], tcp_again[2], ahead(again, 'tcp', '64 B'), float(tcp_thirty[1]), tcp_thirty[2], tcp_thirty[0]),
            'against %sx, %s, in the same test just before the change' % (tcp_before[1], tcp_before[2]),
            'Interleaved, median of %s JVMs (64, 512 B) or %s (1, 64 KiB)' % (
                row(thirty, 'tcp', '64 B')[0], row(thirty, 'tcp', '64 KiB')[0]),
            'its 64 B and 512 B cells scatter from %.2fx to %.2fx per round.' % (min(small), max(small)),
            'Allocation: B/msg %.2f\u2013%.2f up to 1 KiB, %.2f\u2013%.2f at 64\u2013256 KiB (whole JVM).' % (
                min(alloc_small), max(alloc_small), min(alloc_large), max(alloc_large)),
            '(single rounds from %.2fx to %.2fx)' % (min(nine), max(nine))]


check('The summary in detail: the transport verdict', transport_verdict_prose)


# --- "Machine and versions": machine.txt, the root pom's versions and the JMH JSON's own record --------

def machine_line(prefix):
    """The rest of the first line of machine.txt (lscpu, free, uname, /etc/debian_version, java -version, dpkg) that
    starts with PREFIX, stripped."""
    with open(os.path.join(RESULTS, 'machine.txt')) as f:
        for line in f:
            if line.startswith(prefix):
                return line[len(prefix):].strip()
    raise ValueError('machine.txt: no line starting %r' % prefix)


def pom_property(name):
    """A <name>value</name> property of the root pom.xml."""
    with open(os.path.join(ROOT, 'pom.xml')) as f:
        text = f.read()
    start = text.index('<%s>' % name) + len(name) + 2
    return text[start:text.index('</%s>' % name, start)]


def machine_and_versions():
    """The table "Machine and versions" and README.md's versions: the CPU, memory, OS, JDK and Debian packages as
    machine.txt recorded them, the peers' and tools' versions as the root pom pins them, and the JMH and JDK versions
    that every committed JMH JSON file names (one of each, or the check fails)."""
    l2_mib, _, l2_instances = machine_line('L2 cache:').replace('(', '').split()[:3]  # '2 MiB (2 instances)'
    jdk = machine_line('OpenJDK Runtime Environment Temurin-').split()[0]
    runs = set()
    for path in glob.glob(os.path.join(RESULTS, '**', '*.json'), recursive=True):
        try:
            with open(path) as f:
                found = json.load(f)
        except ValueError:
            continue
        if isinstance(found, list):
            runs.update((r['jmhVersion'], r['vmVersion']) for r in found if isinstance(r, dict) and 'jmhVersion' in r)
    if len(runs) != 1:
        raise ValueError('the JMH JSON files name %d JMH/JDK versions: %s' % (len(runs), sorted(runs)))
    jmh, vm = runs.pop()
    if not vm.startswith(jdk):
        raise ValueError('machine.txt records Temurin %s, the JMH JSON files %s' % (jdk, vm))
    zmq, zstd = machine_line('libzmq5:amd64'), machine_line('libzstd1:amd64')
    zstd_jni = pom_property('zstd-jni.version')
    return ['%s vCPUs, %s thread per core, L2 %s \u00d7 %d MiB, L3 %s MiB' % (
                machine_line('CPU(s):'), machine_line('Thread(s) per core:'), l2_instances, int(l2_mib) // int(l2_instances),
                machine_line('L3 cache:').split()[0]),
            '| Memory | %s GiB |' % machine_line('Mem:').split()[0],
            '| OS | Debian %s, Linux %s;' % (machine_line('Debian '), machine_line('Linux ').split('-')[0]),
            '| JDK | Temurin %s, default GC' % jdk,
            '| libzmq | %s (Debian `libzmq5` %s);' % (zmq.split('-')[0], zmq),
            '| libzstd | %s (Debian `libzstd1` %s),' % (zstd.split('+')[0], zstd),
            '| zstd-jni | %s (bundles libzstd %s) |' % (zstd_jni, zstd_jni.split('-')[0]),
            '| aircompressor | `aircompressor-v3` %s (' % pom_property('aircompressor.version'),
            '| JeroMQ | %s |' % pom_property('jeromq.version'),
            '| JMH / async-profiler | %s / %s (' % (jmh, pom_property('async-profiler.version'))], [
            'Temurin %s, libzmq %s, libzstd %s unless a figure says otherwise' % (jdk.split('+')[0], zmq.split('-')[0], zstd.split('+')[0])]


check('Machine and versions', machine_and_versions)


# --- The pipeline's and the transport's READMEs: the figures they repeat from BENCHMARKS.md -----------

def module_readme_figures():
    """What transport/README.md and pipeline/README.md quote of the zero-copy switch-over, the threshold per kind of
    socket, the I/O thread per end, the ring's depth, claim and commit, and the raw frames below 128 B, from the same
    interleaved runs and JMH files as BENCHMARKS.md's passages."""
    switch = {key[1:3]: cells for key, cells in interleaved_rows('interleaved').items()
              if key[3] == 'zeroCopyPooled@0 / zeroCopyPooled@1099511627776'}
    inproc = [float(half_up(switch[('inproc', s)][1])) for s in ('1 KiB', '2 KiB', '4 KiB', '8 KiB')]
    tcp = [float(switch[('tcp', s)][1]) for s in ('512 B', '1 KiB', '2 KiB', '4 KiB', '8 KiB', '32 KiB', '64 KiB', '128 KiB')]
    jvms = [int(cells[0]) for cells in switch.values()]
    two = [interleaved_rows('interleaved')[('transport', 'tcp', s, 'senders2@2048 / senders2@8192')] for s in ('2 KiB', '4 KiB')]
    if any(c[4] != '0/%s' % c[0] for c in two):
        raise ValueError('two senders: the 2 KiB threshold is not behind in every JVM')
    threshold = interleaved_rows('interleaved-inproc-threshold', 'zmqzstd@3/zmqzstd@3#8192')
    steps = ('512 B', '1 KiB', '2 KiB', '4 KiB')
    pooled = [float(threshold[('transport', 'inproc', s, 'zeroCopyPooled / byteArray')][1]) for s in steps]
    at_8k = [float(threshold[('transport', 'inproc', s, 'zeroCopyPooled@8192 / byteArray')][1]) for s in steps]
    one = [threshold[('pipeline', 'inproc', s, 'zmqzstd / zmqzstd#8192')] for s in ('1 KiB', '4 KiB', '16 KiB')]
    three = [threshold[('pipeline', 'inproc', s, 'zmqzstd@3 / zmqzstd@3#8192 (paired)')] for s in ('1 KiB', '4 KiB', '16 KiB')]
    paired = 'zeroCopyPooled#2+all / byteArray#2+all (paired)'
    io2 = interleaved('interleaved-read-io2', 'zeroCopyPooled#2+all/byteArray#2+all', 'zeroCopyPooled#2/byteArray#2')
    io2_large = interleaved('interleaved-read-io2-large', 'zeroCopyPooled#2+all/byteArray#2+all')
    ring = interleaved_rows('interleaved-pipeline-ring')
    deep = [half_up(ring[('pipeline', 'tcp', s, 'zmqzstd@3x64 / zmqzstd@3')][1]) for s in ('1 KiB', '64 KiB')]
    claim = [interleaved_rows('experiments/claim')[('pipeline', 'tcp', s, 'zmqzstd@3c / zmqzstd@3w')] for s in ('64 KiB', '1 KiB')]
    raw = [score('raw-frames.json', 'transfer', rawFrameBelowBytes=1024, size=s) / score('raw-frames.json', 'transfer', rawFrameBelowBytes=0, size=s)
           for s in (64, 128)]
    return {'transport/README.md': [
                'zero-copy is %.2fx copying at 512 B and %.2f-%.2fx from 1 to 8 KiB; over tcp one sender sees the two level from 512 B '
                'to 128 KiB (%.2f-%.2fx), but with two senders on one pool a 2 KiB threshold is %.2fx the 8 KiB default at 2 KiB and '
                '%.2fx at 4 KiB (in every JVM)' % ((float(switch[('inproc', '512 B')][1]), min(inproc), max(inproc), min(tcp), max(tcp))
                                                  + tuple(float(c[1]) for c in two)),
                'the ways taking turns in one JVM, %d-%d JVMs per size' % (min(jvms), max(jvms)),
                'the pooled send is %.2fx `byte[]` at 512 B, %.2fx at 1 KiB, %.2fx at 2 KiB and %.2fx at 4 KiB with the 512 B threshold, '
                'against %.2fx, %.2fx, %.2fx and %.2fx with 8 KiB' % tuple(pooled + at_8k),
                'end to end the lower value measured %sx' % span([float(c[1]) for c in one + three]),
                'zero-copy sends were %.2fx `byte[]` sends at 64 KiB with receivers that read every byte (%.2fx at 128 KiB, %.2fx at '
                '256 KiB)' % (float(io2[('tcp', '64 KiB', paired)][0]), float(io2_large[('tcp', '128 KiB', paired)][0]),
                              float(io2_large[('tcp', '256 KiB', paired)][0]))],
            'pipeline/README.md': [
                'zero-copy is %.2fx copying at 512 B and %.2f\u2013%.2fx from 2 to 8 KiB.' % (
                    float(switch[('inproc', '512 B')][1]), min(inproc[1:]), max(inproc[1:])),
                'level from 512 B to 128 KiB (%.2f\u2013%.2fx), while two senders on one pool lose %.0f\u2013%.0f %% at 2\u20134 KiB' % (
                    min(tcp), max(tcp), 100 * (1 - float(two[1][1])), 100 * (1 - float(two[0][1]))),
                'gains %.2f\u2013%.2fx over `byte[]` from 512 B to 4 KiB' % (min(pooled), max(pooled)),
                'ran at %sx, %sx and %sx the rate at 1, 4 and 16 KiB payloads, a `ParallelCompressingSender` of 3 workers %sx, %sx and '
                '%sx (%s JVMs each' % tuple([c[1] for c in one + three] + [one[0][0]]),
                '64 slots moved %sx the messages of 16 at 1 KiB and %sx at 64 KiB' % tuple(deep),
                'moved %sx (64 KiB) and %sx (1 KiB) the messages of one whose producer writes into its own memory and sends it (%s JVMs' % (
                    claim[0][1], claim[1][1], claim[0][0]),
                'raw frames send %.1fx and %.1fx as many messages per second' % tuple(raw)]}


check("The transport's and the pipeline's READMEs: the figures they repeat", module_readme_figures)


# --- "Findings and recommendations": the receive modes (transport-receive.json) ------------------------

def receive_modes():
    """Findings' receive-mode bullet: poller and blockingBatch, then nonBlocking, over the plain blocking receive of the
    same strategy and size in transport-receive.json, lowest and highest."""
    found = {}
    for r in rows('transport-receive.json'):
        p = r['params']
        found[(p['transport'], p['size'], p['strategy'], p['receiveMode'])] = r['primaryMetric']['score']
    over = {}
    for (transport, size, strategy, mode), value in found.items():
        if mode != 'blocking':
            over.setdefault(mode, []).append(value / found[(transport, size, strategy, 'blocking')])
    return ['were %sx the plain blocking receive in this run, `nonBlocking` spinning %sx.' % (
        span(over['poller'] + over['blockingBatch']), span(over['nonBlocking']))]


check('Findings: the receive modes', receive_modes)


# --- "Codec": CodecOverhead's text output (experiments/decompress-overhead/, experiments/codec-overhead.txt) --

def overhead_ratios(path):
    """The lines of CodecOverhead's output in PATH: per run, (method, size) -> way -> (median ratio, 'q1\u2013q3', ns)."""
    runs, current = [], None
    with open(os.path.join(RESULTS, path)) as f:
        for line in f:
            words = line.split()
            if 'rounds=' in line and 'size=' in line:
                fields = dict(w.split('=', 1) for w in words if '=' in w)
                current = {}
                runs.append(((fields.get('method', 'decompress'), int(fields['size'])), current))
            elif words and current is not None and 'speed_vs_zmqzstd=' in line:
                fields = dict(w.split('=', 1) for w in words if '=' in w)
                current[words[0]] = (fields['speed_vs_zmqzstd'], words[-1].rstrip(')').replace('-', '\u2013'),
                                     float(fields['ns_per_call']))
    return runs


def codec_overhead():
    """The checks' cost at small frames: the table of samelib.txt, the before/after rounds and codec-overhead.txt."""
    same = dict(overhead_ratios('experiments/decompress-overhead/samelib.txt'))
    out = ['| %s | %s (%s) | %s (%s) |' % ((script('tables').size_label(size),) + same[('decompress', size)]['bare'][:2]
                                           + same[('decompress', size)]['aircompressor'][:2]) for size in (256, 1024, 65536)]
    # before-after.txt: before, after, before, after; each a 256 B run then a 1 KiB run
    runs = [way for _, way in overhead_ratios('experiments/decompress-overhead/before-after.txt')]
    before, after = runs[0:2] + runs[4:6], runs[2:4] + runs[6:8]

    def air(group):
        values = [float(r['aircompressor'][0]) for r in group]
        return '%.3f\u2013%.3fx' % (min(values), max(values))

    out.append('the bare call was %sx and %sx the speed of zmq-zstd at 256 B before, %sx and %sx after; at 1 KiB %sx and '
               '%sx before, %sx and %sx after; aircompressor %s before, %s after' % (
                   before[0]['bare'][0], before[2]['bare'][0], after[0]['bare'][0], after[2]['bare'][0],
                   before[1]['bare'][0], before[3]['bare'][0], after[1]['bare'][0], after[3]['bare'][0],
                   air(before), air(after)))
    overhead = dict(overhead_ratios('experiments/codec-overhead.txt'))
    c64, c1k = overhead[('compress', 64)], overhead[('compress', 1024)]
    d256, d1k = overhead[('decompress', 256)], overhead[('decompress', 1024)]
    out.append('at 64 B a bare `ZSTD_compress2` %sx (quartiles %s), a bare `ZSTD_compressCCtx` %sx, aircompressor %sx; at 1 KiB '
               '%sx, %sx and %sx' % (c64['bare-compress2'][0], c64['bare-compress2'][1], c64['bare-compressCCtx'][0],
                                     c64['aircompressor'][0], c1k['bare-compress2'][0], c1k['bare-compressCCtx'][0],
                                     c1k['aircompressor'][0]))
    out.append('bare call %sx at 256 B and %sx at 1 KiB, aircompressor %sx and %sx' % (
        d256['bare-decompressDCtx'][0], d1k['bare-decompressDCtx'][0], d256['aircompressor'][0], d1k['aircompressor'][0]))
    return out


check('Codec: what the checks cost, CodecOverhead before and after, ZSTD_compressCCtx', codec_overhead)


# --- "Codec": the cleaner's cost (experiments/codec-cleaner/) --------------------------------------------

def codec_cleaner():
    """The table of the cleaner's cost: new/old ops/s per paired JVM, median (min\u2013max), and the B/op sentence."""
    folder = 'experiments/codec-cleaner/'
    paths = [(folder + 'new-%d.json' % i, folder + 'old-%d.json' % i) for i in range(1, 7)]
    out, alloc = [], {}
    for method in ('compress', 'decompress'):
        cells = []
        for size in (64, 1024, 65536):
            r = [score(n, method, contestant='zmqzstd-segment', size=size) / score(o, method, contestant='zmqzstd-segment', size=size)
                 for n, o in paths]
            cells.append('%s (%s)' % (med(r), span(r, 3)))
            for kind, index in (('new', 0), ('old', 1)):
                alloc[(method, size, kind)] = statistics.median(
                    matching(p[index], method, contestant='zmqzstd-segment', size=size)[0]['secondaryMetrics']['gc.alloc.rate.norm']['score']
                    for p in paths)
        out.append('| %s | %s |' % (method, ' | '.join(cells)))
    both = {k[:2]: '%.3f' % alloc[k] for k in alloc if k[2] == 'new'}
    if any('%.3f' % alloc[k[:2] + ('old',)] != '%.3f' % alloc[k] for k in alloc if k[2] == 'new' and k[1] < 65536):
        raise ValueError('codec-cleaner: B/op differs between the builds below 64 KiB')
    out.append('B/op is unchanged (%s and %s for compression at 64 B and 1 KiB, %s and %s for decompression, both builds)' % (
        both[('compress', 64)], both[('compress', 1024)], both[('decompress', 64)], both[('decompress', 1024)]))
    return out


check('Codec: what the cleaner costs a call', codec_cleaner)


# --- "Codec": the verdict reruns after the frame walk and ZSTD_compressCCtx (verdict-codec-walk*, -cctx) -----

def relative_error(folder, check_name):
    """The median over a verdict check's rows of JMH's error (99.9 % interval) over the score."""
    return statistics.median(abs(r['primaryMetric']['scoreError'] / r['primaryMetric']['score'])
                             for i in (1, 2, 3) for r in rows('%s/%s-r%d.json' % (folder, check_name, i)))


def codec_reruns():
    walk, walk2, cctx = 'verdict-codec-walk', 'verdict-codec-walk2', 'verdict-codec-cctx'
    errors = [relative_error(walk, c) for c in ('codec', 'codec-samelib')]
    errors2 = [relative_error(walk2, c) for c in ('codec', 'codec-samelib')]
    reference = [relative_error('verdict', c) for c in ('codec', 'codec-samelib')]
    if round(100 * min(errors)) != round(100 * max(errors)):
        raise ValueError('verdict-codec-walk: its two checks differ in their median error')

    def median_of(folder, check_name, method, size):
        return statistics.median(codec_verdict(folder, check_name, method, size))

    walk64 = {median_of(walk, c, 'compress', 64) for c in ('codec', 'codec-samelib')}
    walk2_64 = [median_of(walk2, c, 'compress', 64) for c in ('codec', 'codec-samelib')]
    if len({'%.2f' % v for v in walk64}) != 1:
        raise ValueError('verdict-codec-walk: 64 B compression differs between its two checks')
    out = ['JMH\'s error (99.9 %% interval) of one score was \u00b1%.0f %% and \u00b1%.0f\u2013%.0f %% of it at the median, against '
           '%.0f\u2013%.0f %% in the verdict above' % (100 * errors[0], 100 * min(errors2), 100 * max(errors2),
                                                       100 * min(reference), 100 * max(reference)),
           'at 64 B %.2fx and %.2f\u2013%.2fx' % (walk64.pop(), min(walk2_64), max(walk2_64)),
           'same-library 1 MiB decompression %.2fx then %.2fx' % (median_of(walk, 'codec-samelib', 'decompress', 1048576),
                                                                   median_of(walk2, 'codec-samelib', 'decompress', 1048576)),
           'Their 1 KiB decompression medians are %s and %s on the same library, %.2fx and %.2fx on the system\'s' % (
               with_range(codec_verdict(walk, 'codec-samelib', 'decompress', 1024)),
               with_range(codec_verdict(walk2, 'codec-samelib', 'decompress', 1024)),
               median_of(walk, 'codec', 'decompress', 1024), median_of(walk2, 'codec', 'decompress', 1024))]
    c64 = codec_verdict(cctx, 'codec-samelib', 'compress', 64)
    out.append('(median score error \u00b1%.0f %%): 64 B compression %.2fx with rounds from %.2fx to %.2fx, 1 KiB decompression %s' % (
        100 * relative_error(cctx, 'codec-samelib'), statistics.median(c64), min(c64), max(c64),
        with_range(codec_verdict(cctx, 'codec-samelib', 'decompress', 1024))))
    return out


check('Codec: the verdict reruns after the frame walk and ZSTD_compressCCtx', codec_reruns)


# --- "Which libzstd": the codec verdict on the 1.5.7 built here (verdict-codec-lib157*) -----------------

def lib157_verdict():
    """The table of medians with their ranges, 1.5.7 built here and the system's 1.5.4 in the same rounds, and the
    1 KiB decompression MB/s."""
    out = []
    for label, small, large in (('1.5.7 built here', 'codec-lib', 'codec-lib-64m'), ('system 1.5.4', 'codec', 'codec-64m')):
        for method in ('compress', 'decompress'):
            cells = [codec_verdict('verdict-codec-lib157', small, method, s) for s in CODEC_SIZES]
            cells.append(codec_verdict('verdict-codec-lib157-64m', large, method, 67108864))
            bold = '**' if label.startswith('1.5.7') else ''
            out.append('| %s, %s | %s |' % (method, label, ' | '.join(
                '%s%.2f%s (%s)' % (bold, statistics.median(r), bold, span(r)) for r in cells)))
    mbs = {c: statistics.median(score('verdict-codec-lib157/codec-lib-r%d.json' % i, 'decompress', contestant=c, size=1024)
                                for i in (1, 2, 3)) * 1024 / 1e6 for c in ('zmqzstd-segment',) + PEERS}
    out.append('it is level (%.2fx, %.1f against %.1f MB/s)' % (
        statistics.median(codec_verdict('verdict-codec-lib157', 'codec-lib', 'decompress', 1024)), mbs['zmqzstd-segment'],
        max(mbs[p] for p in PEERS)))
    return out


check('Which libzstd: the codec verdict on the 1.5.7 built here', lib157_verdict)


# --- "What closing safely costs a call" (experiments/socket-call-guard/) ------------------------------------

CALL_GUARD = 'experiments/socket-call-guard/'


def call_guard_forks(folder, rounds, method):
    """Per fork pair of SocketCallBenchmark: (old row, new row) of METHOD."""
    return [tuple(matching(CALL_GUARD + folder + '%s-%d.json' % (v, i), method)[0] for v in ('old', 'new'))
            for i in range(1, rounds + 1)]


def ns(row):
    return row['primaryMetric']['score']


def closing_safely():
    out = []
    norm = 'gc.alloc.rate.norm'
    first = {m: call_guard_forks('', 5, m) for m in ('sendReceive64', 'receiveWouldBlock')}
    for method, digits in (('sendReceive64', 1), ('receiveWouldBlock', 0)):
        pairs = first[method]
        r = [ns(n) / ns(o) for o, n in pairs]
        form = thousands if digits == 0 else (lambda v: '%.1f' % v)
        out.append('| %s\u2013%s | %s\u2013%s | %s | **%s** |' % (
            form(min(ns(o) for o, _ in pairs)), form(max(ns(o) for o, _ in pairs)),
            form(min(ns(n) for _, n in pairs)), form(max(ns(n) for _, n in pairs)), fmt(r), med(r, 2)))
    errors = [row['primaryMetric']['scoreError'] / ns(row) for pairs in first.values() for pair in pairs for row in pair]
    transfers = [r['primaryMetric']['scoreError'] / r['primaryMetric']['score'] for i in range(1, 5) for v in ('old', 'new')
                 for r in rows(CALL_GUARD + 'transport-%s-%d.json' % (v, i))]
    out.append('(\u00b1%.0f\u2013%.0f %% of the score in `SocketCallBenchmark`, \u00b1%.0f\u2013%.0f %% in the transfers)' % (
        100 * min(errors), 100 * max(errors), 100 * min(transfers), 100 * max(transfers)))

    def transfer(transport, strategy):
        r = [score(CALL_GUARD + 'transport-new-%d.json' % i, 'sendReceive', transport=transport, strategy=strategy)
             / score(CALL_GUARD + 'transport-old-%d.json' % i, 'sendReceive', transport=transport, strategy=strategy)
             for i in range(1, 5)]
        return fmt(r), med(r, 2)

    out.append('tcp `byteArray` %s (median %s), tcp `zeroCopyPooled` %s (%s); inproc `zeroCopyPooled` %s (%s); inproc `byteArray` '
               '%s (%s)' % (transfer('tcp', 'byteArray') + transfer('tcp', 'zeroCopyPooled') + transfer('inproc', 'zeroCopyPooled')
                            + transfer('inproc', 'byteArray')))
    final = {m: call_guard_forks('final/', 5, m) for m in ('sendReceive64', 'receiveWouldBlock')}
    send = [ns(n) / ns(o) for o, n in final['sendReceive64']]
    wait = [ns(n) / ns(o) for o, n in final['receiveWouldBlock']]
    times = [ns(row) for pair in final['sendReceive64'] for row in pair]
    out.append('with / before `sendReceive64` %s (median %s; %.0f\u2013%.0f ns/op), `receiveWouldBlock` %s (median %s)' % (
        fmt(send), med(send, 2), min(times), max(times), fmt(wait), med(wait, 2)))
    # the three versions of 2026-11-25, 8 forks each
    versions = {name: {m: call_guard_forks(name + '/', 8, m) for m in ('sendReceive64', 'receiveWouldBlock')}
                for name in ('atomic-count', 'atomic-detect', 'cas')}
    every = {m: [ns(row) for v in versions.values() for pair in v[m] for row in pair] for m in ('sendReceive64', 'receiveWouldBlock')}
    out.append('| version (VM clock, 2026-11-25) | `sendReceive64` (%.0f\u2013%.0f ns/op) | median | `receiveWouldBlock` '
               '(%.2f\u2013%.2f \u00b5s/op) | median |' % (min(every['sendReceive64']), max(every['sendReceive64']),
                                                          min(every['receiveWouldBlock']) / 1000, max(every['receiveWouldBlock']) / 1000))
    for name in ('atomic-count', 'atomic-detect', 'cas'):
        cells = []
        for method in ('sendReceive64', 'receiveWouldBlock'):
            r = [ns(n) / ns(o) for o, n in versions[name][method]]
            cells.append('%s | %s' % (fmt(r, 3), med(r)))
        out.append('`%s/`) | %s |' % (name, ' | '.join(cells)) if name != 'cas' else '`cas/`) | %s |' % ' | '.join(cells))
    longer = [sum(ns(n) > ns(o) for o, n in versions[name][m]) for name, m in
              (('atomic-detect', 'sendReceive64'), ('cas', 'sendReceive64'), ('cas', 'receiveWouldBlock'))]
    out.append('longer in %d of 8 forks' % longer[0])
    out.append('measured level (%s and %s, longer in %d and %d of 8 forks)' % (
        med([ns(n) / ns(o) for o, n in versions['cas']['sendReceive64']]),
        med([ns(n) / ns(o) for o, n in versions['cas']['receiveWouldBlock']]), longer[1], longer[2]))
    alloc = {m: statistics.median(row['secondaryMetrics'][norm]['score'] for v in versions.values() for pair in v[m] for row in pair)
             for m in ('sendReceive64', 'receiveWouldBlock')}
    out.append('B/op %.3f and %.2f for every build' % (alloc['sendReceive64'], alloc['receiveWouldBlock']))
    return out


check('What closing safely costs a call', closing_safely)


# --- "The peers with reused arrays", "Parallel against parallel", "An I/O thread per end": verdict.py's rows ----

def msgs(cell):
    """A msg/s cell of verdict.py as these tables give it: '350.8' as '351', '109 K' as is."""
    return cell if ' ' in cell else '%.0f' % float(cell.replace(',', ''))


def pipeline_peer_tables():
    out = []
    # reused arrays: zmqzstd against the reusing peer, against the short way, and the two peers, per thread count
    rows_ = [{tuple(cells[1:3]): cells for cells, _ in verdict_rows('verdict-reused-read', 'pipeline-reused', i)} for i in range(3)]
    for key in rows_[0]:  # verdict.py's order: by size, then compressionThreads
        reused, short, peers = (r[key] for r in rows_)
        out.append('| %s | %s | %s | **%s** (%s) | %s (%s) | %s (%s) | %s |' % (
            key[0], 1 if key[1] == '0' else key[1], msgs(reused[3]), reused[5], reused[6], short[5], short[6], peers[5], peers[6],
            peers[7]))
    alloc = {}
    for i in (1, 2, 3):
        for r in matching('verdict-reused-read/pipeline-reused-r%d.json' % i, 'transfer', contestant='jeromqZstdjni'):
            alloc.setdefault(int(r['params']['size']), []).append(r['secondaryMetrics']['gc.alloc.rate.norm']['score'])
    short = [statistics.median(alloc[s]) for s in PIPELINE_SIZES]
    out.append('cuts what it allocates from %.1f KB, %.0f KB and %.2f MB per message' % (short[0] / 1e3, short[1] / 1e3, short[2] / 1e6))
    gains = [float(r[5]) for r in rows_[2].values()]
    out.append('Reusing arrays makes JeroMQ + zstd-jni %.0f\u2013%.0f %% faster (medians; every one of its six rows at %.2fx' % (
        100 * (min(gains) - 1), 100 * (max(gains) - 1), min(gains)))
    # parallel against parallel: the faster peer, the parallel peer, the one-thread peer, and the two peers
    peer = [{cells[1]: cells for cells, _ in verdict_rows('verdict-parallel-peer', 'pipeline-parallel-peer', i)} for i in range(4)]
    for size in ('1 KiB', '64 KiB', '1 MiB'):
        faster, parallel, one, peers = (p[size] for p in peer)
        out.append('| %s | %s | **%s** (%s) | %s (%s) | %s (%s) | %s (%s) | %s |' % (
            size, msgs(faster[2]), faster[4], faster[5], parallel[4], parallel[5], one[4], one[5], peers[4], peers[5], peers[6]))
    behind = [sum(r < 1 for r in pipeline_rounds('verdict-parallel-peer', 'pipeline-parallel-peer', s,
                                                 theirs=('jeromqZstdjni', 'jeromqZstdjniParallel'))) for s in PIPELINE_SIZES]
    if behind != [0, 1, 1]:
        raise ValueError('parallel against parallel: rounds behind per size %s, the text says none, one, one' % behind)
    # an I/O thread per end: the two checks' medians with their ranges, then rounds.py's pairing
    io = {c: {cells[1]: cells for cells, _ in verdict_rows('verdict-pipeline-io2', c)} for c in ('pipeline-parallel-tcp', 'pipeline-parallel-io2')}
    paired = subprocess.run([sys.executable, 'rounds.py'], cwd=os.path.join(RESULTS, 'verdict-pipeline-io2'),
                            capture_output=True, text=True, check=True).stdout.splitlines()
    for size, line in zip(('1 KiB', '64 KiB', '1 MiB'), paired):
        pairs = [w.replace('-', '\u2013') for w in line.split() if w[0] in '0123456789(']
        one, two = io['pipeline-parallel-tcp'][size], io['pipeline-parallel-io2'][size]
        out.append('| %s | %s (%s) | %s (%s) | %s %s | %s %s | %s %s |' % ((size, one[4], one[5], two[4], two[5]) + tuple(pairs)))
    return out


check('The peers with reused arrays, parallel against parallel, an I/O thread per end: the tables', pipeline_peer_tables)


def io_threads_schedstat():
    """Where the threads' time goes at 1 KiB with one and two I/O threads (schedstat-pipeline-io2/)."""
    out, io = [], {}
    for contestant, label in (('zmqzstd', 'zmqzstd@3'), ('jeromqZstdjni', 'jeromqZstdjni')):
        for n in (1, 2):
            run = schedstat_runs('schedstat-pipeline-io2/%s-io%d-1k.txt' % (contestant, n))[(contestant, 1024)]
            names = sorted(t for t in run['threads'] if t.startswith('ZMQbg/IO/') or t.startswith('iothread-'))
            parts = [float(run['threads'][t][-1]) for t in names]
            io[(contestant, n)] = sum(parts)
            cell = '%.1f' % sum(parts) + (' (%s)' % ' + '.join('%.1f' % v for v in parts) if len(parts) > 1 else '')
            out.append('| %s | %d | %.0f K | %s | %s | %s |' % (label, n, run['score'] / 1e3, run['busy'], run['per_op'], cell))
    out.append('pays %.1f \u00b5s more per message in libzmq; JeroMQ\'s two I/O threads take %.1f \u00b5s more per message' % (
        io[('zmqzstd', 2)] - io[('zmqzstd', 1)], io[('jeromqZstdjni', 2)] - io[('jeromqZstdjni', 1)]))
    return out


check('An I/O thread per end: where the threads\' time goes at 1 KiB', io_threads_schedstat)


# --- "Flamegraphs": the prose under the tables -------------------------------------------------------------

def flamegraph_prose():
    runs = schedstat_runs('experiments/cpu-all-threads/schedstat-64k-1k.md')
    per = {(c, s): float(runs[(c, s)]['per_op']) for c in FLAME_CONTESTANTS for s in (65536, 1024)}
    sampled = {}
    for c in FLAME_CONTESTANTS:
        samples = sum(flame_cpu('flamegraphs/' + c).values())
        sampled[c] = samples * FLAME_SAMPLE_S / (FLAME_MEASURED_S * jmh_log_score('flamegraphs/%s/cpu/jmh.log' % c)[0])
    less = [1 - per[('zmqzstd', 65536)] / per[(c, 65536)] for c in ('jeromqZstdjni', 'libzmqBytes')]
    if '%.0f' % (100 * less[0]) != '%.0f' % (100 * less[1]):
        raise ValueError('flamegraphs: zmqzstd saves %s against the two peers, not one figure' % less)
    out = ['So at 64 KiB zmqzstd needs %.0f %% less CPU per message than JeroMQ + zstd-jni and than `libzmqBytes` (not the %.0f %% '
           'and %.0f %% that the sampled columns suggest), and at 1 KiB about as much as JeroMQ + zstd-jni (%.2fx) and %.0f %% less '
           'than `libzmqBytes`' % (100 * less[0], 100 * (1 - sampled['zmqzstd'] / sampled['jeromqZstdjni']),
                                   100 * (1 - sampled['zmqzstd'] / sampled['libzmqBytes']),
                                   per[('zmqzstd', 1024)] / per[('jeromqZstdjni', 1024)],
                                   100 * (1 - per[('zmqzstd', 1024)] / per[('libzmqBytes', 1024)]))]
    totals = {c: flame_cpu('flamegraphs/' + c) for c in FLAME_CONTESTANTS}

    def share(c, *keys):
        return 100.0 * sum(totals[c][k] for k in keys) / sum(totals[c].values())

    java = [share(c, 'zmq-zstd (Java)', 'zstd-jni (Java)', 'JeroMQ (Java)', 'memcpy', 'GC') for c in ('libzmqBytes', 'jeromqZstdjni')]
    out.append('zmqzstd spends %.0f %% of their CPU inside libzstd, %.0f %% in the kernel' % (
        share('zmqzstd', 'zstd compress', 'zstd decompress'), share('zmqzstd', 'kernel / syscalls')))
    out.append('%.0f\u2013%.0f %% of CPU in Java, memcpy and GC' % (min(java), max(java)))
    return out


check('Flamegraphs: the prose under the tables', flamegraph_prose)


# --- "Latency" and "Soak": the figures in their prose that the other checks leave ----------------------------

def latency_soak_prose():
    ours = {(r['params']['transport'], int(r['params']['size'])): r for r in rows('latency.json')
            if r['params']['contestant'] == 'zmqzstd'}
    rate = [r['secondaryMetrics']['gc.alloc.rate']['score'] for r in ours.values()]
    fold = {t: ours[(t, 1048576)]['primaryMetric']['score'] / ours[(t, 1024)]['primaryMetric']['score'] for t in ('tcp', 'inproc')}
    out = ['its allocation rate stayed at %.2f\u2013%.2f MB/s (`gc.alloc.rate` in the JSON) while its round trips per second differ '
           '%.0f-fold (tcp) and %.0f-fold (inproc) between 1 KiB and 1 MiB' % (min(rate), max(rate), fold['tcp'], fold['inproc'])]
    _, reports = soak_rows('soak-64k.txt')
    ran, ended = reports[-3], reports[-2]  # the last report while the stream ran, the first after it ended
    drops = [(ran[k] - ended[k]) / 1000.0 for k in ('nmtCommittedKB', 'rssKB')]
    if abs(drops[0] - drops[1]) > 1:
        raise ValueError('soak: NMT and RSS fall by %s MB, not by one figure' % drops)
    out.append('both fall by about %.0f MB when the stream ends' % statistics.mean(drops))
    _, small = soak_rows('soak-1k.txt')
    out.append('(the dip to %.0f K msg/s)' % (min(r['msg/s'] for r in small if r['msg/s']) / 1000.0))
    return out


check('Latency and Soak: the figures in their prose', latency_soak_prose)


# --- codec/README.md: the figures it repeats ----------------------------------------------------------------

def codec_readme():
    """codec/README.md's 1.5.4-against-1.5.7 figures (libzstd-build/) and the shared guard's 64 B decompression."""
    def gain(method, size):
        return statistics.median(
            score('experiments/libzstd-build/r%d-157-O3.json' % i, method, contestant='zmqzstd-segment', size=size)
            / score('experiments/libzstd-build/r%d-system.json' % i, method, contestant='zmqzstd-segment', size=size) for i in (1, 2, 3))

    single = SHARED + 'run3-single-thread/codec-r%d-%s.json'
    ns_per = {v: statistics.median(1e9 / score(single % (i, v), 'decompress', size=64) / 1e9 for i in range(1, 6)) for v in ('old', 'new')}
    return {'codec/README.md': [
        'decompression and 1 MiB compression are %.2fx and %.2fx of that' % (1 / gain('decompress', 1024), 1 / gain('compress', 1048576)),
        'decompression %.1f ns a call with it, %.1f ns with the codec\'s own guard before' % (ns_per['new'], ns_per['old'])]}


check('codec/README.md: the figures it repeats', codec_readme)


# --- The parallel sender's inline mapping check (29ccbf3a): the jars before and after, alternated ---

def inline_mapped_check():
    folder = os.path.join(RESULTS, 'inline-mapped-check')
    lines = []
    for size, label in ((1024, '1 KiB'), (64, '64 B')):
        old = [os.path.join(folder, '%d-r%d-old.json' % (size, r)) for r in (1, 2, 3)]
        new = [os.path.join(folder, '%d-r%d-new.json' % (size, r)) for r in (1, 2, 3)]
        per_round = ratios(new, old, 'transfer', size=size)

        def norm(paths):
            return [matching(p, 'transfer', size=size)[0]['secondaryMetrics']['gc.alloc.rate.norm']['score'] for p in paths]
        lines.append('| %s | %.0f K / %.0f K | %s | %s | %s / %s |' % (
            label, statistics.median(score(p, 'transfer', size=size) for p in old) / 1e3,
            statistics.median(score(p, 'transfer', size=size) for p in new) / 1e3,
            fmt(per_round, 3), med(per_round), span(norm(old), 3), span(norm(new), 3)))
    return lines


check("What the parallel sender's inline mapping check costs", inline_mapped_check)


# --- The pooled buffer's liveness check (42823253): the jars before and after, alternated ---

def alternated_rows(folder_name, benchmarks, thousands_of=True):
    """Table rows of jars before and after a change alternated in six rounds: per benchmark (file prefix, JMH method,
    label) the medians of msg/s (in thousands, or with thousands_of=False as whole operations a second), the
    per-round ratios and their median, and the B/msg spans."""
    folder = os.path.join(RESULTS, folder_name)
    lines = []
    for kind, method, label in benchmarks:
        old = [os.path.join(folder, '%s-r%d-old.json' % (kind, r)) for r in range(1, 7)]
        new = [os.path.join(folder, '%s-r%d-new.json' % (kind, r)) for r in range(1, 7)]
        per_round = ratios(new, old, method)

        def norm(paths):
            return [matching(p, method)[0]['secondaryMetrics']['gc.alloc.rate.norm']['score'] for p in paths]
        rates = [statistics.median(score(p, method) for p in paths) for paths in (old, new)]
        rates = ['%.0f K' % (r / 1e3) for r in rates] if thousands_of else ['{:,.0f}'.format(r) for r in rates]
        lines.append('| %s | %s / %s | %s | %s | %s / %s |' % (
            label, rates[0], rates[1], fmt(per_round, 3), med(per_round), span(norm(old), 3), span(norm(new), 3)))
    return lines


def pool_liveness_check():
    return alternated_rows('pool-liveness-check', (
        ('transport', 'sendReceive', '`TransportBenchmark` zeroCopyPooled, 64 B inproc'),
        ('pipeline', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1')))


check("What the pooled buffer's liveness check costs", pool_liveness_check)


def workers_frame_check():
    return alternated_rows('workers-frame-check', (
        ('pipeline', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1, trained dictionary'),))


check("What the compressor's unended-frame flag costs", workers_frame_check)


def view_and_mapping_checks():
    return alternated_rows('view-and-mapping-checks', (
        ('pipeline', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1'),
        ('codec', 'compress', '`CodecBenchmark` zmqzstd-segment compress, 64 B telemetry, level 1'),
        ('codec', 'decompress', '`CodecBenchmark` zmqzstd-segment decompress, 64 B telemetry, level 1')))


check("What the view's sequence check and the codec's mapping branch cost", view_and_mapping_checks)


def undelivered_message_check():
    return alternated_rows('undelivered-message-check', (
        ('pipeline', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1'),))


check("What the receiver's hand-back of an undelivered message costs", undelivered_message_check)


def too_small_handback_check():
    return alternated_rows('too-small-handback-check', (
        ('pipeline-region', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1, `receive`'),
        ('pipeline-into', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1, `receiveInto`')))


check("What handing back a message whose part does not fit costs", too_small_handback_check)


def reply_envelope_check():
    return alternated_rows('reply-envelope-check', (
        ('pipeline', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1'),
        ('publish', 'publish', '`PublishBenchmark` segment topic, 1 KiB inproc, level 3'))) + alternated_rows(
        'reply-envelope-check/again', (
            ('pipeline', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1, again'),
            ('publish', 'publish', '`PublishBenchmark` segment topic, 1 KiB inproc, level 3, again')))


check("What the sender's reply argument costs", reply_envelope_check)


def pool_rent_order_check():
    return alternated_rows('pool-rent-order-check', (
        ('transport', 'sendReceive', '`TransportBenchmark` zeroCopyPooled, 64 B inproc'),
        ('pipeline', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1')))


check("What recording the rent site first costs", pool_rent_order_check)


def closed_first_check():
    return alternated_rows('closed-first-check', (
        ('pipeline-region', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1, `receive`'),
        ('pipeline-into', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1, `receiveInto`'),
        ('parallel', 'transfer', '`PipelineBenchmark` zmqzstd, 2 compressing workers, 1 KiB inproc, level 1')))


check("What saying closed first costs", closed_first_check)


def closed_segment_naming_check():
    first = alternated_rows('closed-first-check', (
        ('codec-telemetry', 'decompress', '92ef2fa4 / b59fb676: 64 B telemetry'),
        ('codec-telemetry-again', 'decompress', '92ef2fa4 / b59fb676: 64 B telemetry, again'),
        ('codec-telemetry-1k', 'decompress', '92ef2fa4 / b59fb676: 1 KiB telemetry'),
        ('codec-binary', 'decompress', '92ef2fa4 / b59fb676: 64 B binary (raw blocks)')))
    later = alternated_rows('closed-segment-naming-check', (
        ('move-codec-telemetry', 'decompress', 'b59fb676 / f83a93ea (the move alone): 64 B telemetry'),
        ('aa-codec-telemetry', 'decompress', 'A/A, 92ef2fa4 / 92ef2fa4: 64 B telemetry'),
        ('codec-telemetry', 'decompress', '92ef2fa4 / f83a93ea: 64 B telemetry'),
        ('abba-codec-telemetry', 'decompress', '92ef2fa4 / f83a93ea, f83a93ea first in rounds 2, 4, 6: 64 B telemetry'),
        ('codec-binary', 'decompress', '92ef2fa4 / f83a93ea: 64 B binary (raw blocks)'),
        ('pipeline-region', 'transfer', '92ef2fa4 / f83a93ea: `PipelineBenchmark` 64 B inproc, `receive`'),
        ('pipeline-into', 'transfer', '92ef2fa4 / f83a93ea: `PipelineBenchmark` 64 B inproc, `receiveInto`')))
    return first + later


check("What naming a closed segment costs", closed_segment_naming_check)


def compress_range_check():
    return alternated_rows('compress-range-check', (
        ('compress-segment', 'compress', '`CodecBenchmark` compress, zmqzstd-segment (native source), 64 B telemetry'),
        ('compress-bytes', 'compress', '`CodecBenchmark` compress, zmqzstd-bytes (staged heap source), 64 B telemetry'),
        ('decompress-segment', 'decompress', '`CodecBenchmark` decompress, zmqzstd-segment, 64 B telemetry')))


check("What the compressor's staged-range naming costs", compress_range_check)


def stream_owner_check():
    return alternated_rows('stream-owner-check', (
        ('compress', 'compress', '`CodecBenchmark` compress, zmqzstd-segment, 64 B telemetry (a test and branch)'),
        ('decompress', 'decompress', '`CodecBenchmark` decompress, zmqzstd-segment, 64 B telemetry (a test and branch)'),
        ('store-decompress', 'decompress', '`CodecBenchmark` decompress, zmqzstd-segment, 64 B telemetry (a store, as on main)'),
        ('pipeline', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1'))) + alternated_rows('stream-owner-check', (
        ('store-compress', 'compress', '5d695ac6 / its store: compress, zmqzstd-segment, 64 B telemetry'),
        ('store-compress-bytes', 'compress', '5d695ac6 / its store: compress, zmqzstd-bytes, 64 B telemetry')))


check("What the streams' owner check costs", stream_owner_check)


def poller_guard():
    return alternated_rows('poller-guard', (
        ('poll-inproc', 'sendReceive', '`TransportBenchmark` poller receive, `zeroCopyPooled`, 64 B inproc'),
        ('poll-tcp', 'sendReceive', '`TransportBenchmark` poller receive, `zeroCopyPooled`, 64 B tcp')))


check("What the poller's own guard costs", poller_guard)


def poller_close_guard():
    return alternated_rows('poller-close-guard', (
        ('poll-inproc', 'sendReceive', '`TransportBenchmark` poller receive, `zeroCopyPooled`, 64 B inproc'),
        ('poll-tcp', 'sendReceive', '`TransportBenchmark` poller receive, `zeroCopyPooled`, 64 B tcp')))


check("What the poller's close through its guard costs", poller_close_guard)


def message_guard():
    return alternated_rows('message-guard', (
        ('recv-inproc', 'sendReceive', '`TransportBenchmark` blocking receive into a `ZmqMessage`, `zeroCopyPooled`, 64 B inproc'),
        ('again-recv-inproc', 'sendReceive', 'the same, six more rounds'),
        ('recv-tcp', 'sendReceive', '`TransportBenchmark` blocking receive into a `ZmqMessage`, `zeroCopyPooled`, 64 B tcp'),
        ('pipeline', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1')))


check("What the message's own guard costs", message_guard)


def message_reads_guard():
    return alternated_rows('message-reads-guard', (
        ('recv-inproc', 'sendReceive', '`TransportBenchmark` blocking receive into a `ZmqMessage`, `zeroCopyPooled`, 64 B inproc'),
        ('recv-tcp', 'sendReceive', '`TransportBenchmark` blocking receive into a `ZmqMessage`, `zeroCopyPooled`, 64 B tcp'),
        ('pipeline', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1'),
        ('pipeline-tcp', 'transfer', '`PipelineBenchmark` zmqzstd, 1 KiB tcp, level 1')))


check("What one guard for all of a message's calls costs", message_reads_guard)


def would_block_errno():
    folder = os.path.join(RESULTS, 'would-block-errno')
    old, new = ([os.path.join(folder, 'would-block-r%d-%s.json' % (r, v)) for r in range(1, 7)] for v in ('old', 'new'))
    per_round = ratios(new, old, 'receiveWouldBlock')  # avgt: score() is the reciprocal, so these are 'times as fast'
    ns = [statistics.median(matching(p, 'receiveWouldBlock')[0]['primaryMetric']['score'] for p in paths) for paths in (old, new)]
    norm = [[matching(p, 'receiveWouldBlock')[0]['secondaryMetrics']['gc.alloc.rate.norm']['score'] for p in paths]
            for paths in (old, new)]
    first = '| `SocketCallBenchmark.receiveWouldBlock`: a `DONTWAIT` receive that finds nothing | %.0f ns / %.0f ns a call | %s | %s | %s / %s |' % (
        ns[0], ns[1], fmt(per_round, 3), med(per_round), span(norm[0], 3), span(norm[1], 3))
    return [first] + alternated_rows('would-block-errno', (
        ('poller', 'sendReceive', '`TransportBenchmark` poll then drain, `zeroCopyPooled`, 1 KiB tcp'),
        ('drain', 'sendReceive', '`TransportBenchmark` blocking receive then drain, `message`, 64 B tcp'),
        ('parallel', 'transfer', '`PipelineBenchmark` zmqzstd, three workers, 1 KiB tcp, level 3')))


check("What reading a would-block through zmq_errno() changes", would_block_errno)


def refusal_and_conflate_checks():
    return alternated_rows('refusal-and-conflate-checks', (
        ('pipeline', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B inproc, level 1'),
        ('pipeline-tcp', 'transfer', '`PipelineBenchmark` zmqzstd, 1 KiB tcp, level 1'),
        ('recv-inproc', 'sendReceive', '`TransportBenchmark` blocking receive into a `ZmqMessage`, `message`, 64 B inproc')))


check("What the room check after a refusal and the conflate check cost", refusal_and_conflate_checks)


def reply_and_unpooled():
    return alternated_rows('reply-and-unpooled', (
        ('reply', 'reply', '`ReplyBenchmark` zmqzstd, one worker, 1 KiB tcp, level 3'),
        ('copy-inproc', 'sendReceive', '`TransportBenchmark` pooled send copied (1 KiB), blocking receive, inproc'),
        ('copy-tcp', 'sendReceive', '`TransportBenchmark` pooled send copied (1 KiB), blocking receive, tcp'),
        ('again-copy-inproc', 'sendReceive', 'the inproc copy again, six more rounds'))) + alternated_rows(
        'failed-envelope-reply', (('reply', 'reply', 'the reply row again, an earlier run beside a helper\'s build'),))


check("What the reply's bounded loop and the unpooled branch cost", reply_and_unpooled)


def raw_frame_checks():
    return alternated_rows('raw-frame-checks', (
        ('raw-inproc', 'transfer', '`PipelineBenchmark` zmqzstd, 64 B raw-block frames (`rawFrameBelowBytes=128`), inproc, level 1'),
        ('again-raw-inproc', 'transfer', 'the same, six more rounds')))


check("What writeRawFrame's named ranges cost", raw_frame_checks)


def reply_pattern():
    """"Replies on several cores": ReplyBenchmark's one run (results/reply-pattern/reply.json), two forks per cell."""
    path = 'reply-pattern/reply.json'

    def cell(way, workers, size):
        found = matching(path, 'reply', way=way, workers=workers, size=size)
        if len(found) != 1:
            raise ValueError('%s: %d rows for %s %s %s' % (path, len(found), way, workers, size))
        return found[0]['primaryMetric']['score'], found[0]['secondaryMetrics']['gc.alloc.rate.norm']['score']

    out = []
    for size, label in ((1024, '1 KiB'), (65536, '64 KiB')):
        for workers in (1, 2):
            z, zb = cell('zmqzstd', workers, size)
            j, jb = cell('jeromqZstdjni', workers, size)
            out.append('| %s | %d | %s | %s | **%.2fx** | %s / %s |' % (
                label, workers, thousands(z), thousands(j), z / j, '%.2f' % zb, '{:,.0f}'.format(jb)))
        one, two = cell('zmqzstd', 1, size)[0], cell('zmqzstd', 2, size)[0]
        peer = cell('jeromqZstdjni', 2, size)[0] / cell('jeromqZstdjni', 1, size)[0]
        out.append('a second worker gives zmqzstd %.2fx at %s (the peer %.2fx)' % (two / one, label, peer))
    per_iteration = [score * norm / 1000 for score, norm in (cell('zmqzstd', w, size) for w in (1, 2) for size in (1024, 65536))]
    out.append('(%.1f\u2013%.1f KB per one-second iteration in all four cells)' % (min(per_iteration), max(per_iteration)))
    return out


check('Replies on several cores', reply_pattern)


def stream_table(name):
    """"Streams": StreamBenchmark's one run (results/stream/NAME.json), chunk 8192, level 3: MB/s of payload per way."""
    path = 'stream/%s.json' % name
    ways = ('zmqzstd', 'zstdjni', 'aircompressor', 'jdkGzip')
    present = [w for w in ways if matching(path, 'write', way=w)]

    def cell(method, way, size):
        found = matching(path, method, way=way, size=size, chunk=8192, level=3)
        if len(found) != 1:
            raise ValueError('%s: %d rows for %s %s %s' % (path, len(found), method, way, size))
        return found[0]['primaryMetric']['score'] * size / 1e6, found[0]['secondaryMetrics']['gc.alloc.rate.norm']['score']

    out = []
    for method, label in (('write', 'write (compress)'), ('read', 'read (decompress)')):
        for size, size_label in ((65536, '64 KiB'), (4194304, '4 MiB')):
            cells = [cell(method, w, size) for w in present]
            out.append('| %s | %s | %s | **%.2fx** | %s |' % (
                label, size_label, ' | '.join('{:,.0f}'.format(c[0]) for c in cells), cells[0][0] / cells[1][0],
                ' / '.join('{:,.0f}'.format(c[1]) for c in cells)))
    return out


check('Streams: ZstdOutputStream and ZstdInputStream', lambda: stream_table('system-libzstd') + stream_table('bundled-libzstd-1.5.7'))


def stream_direct_read():
    return alternated_rows('stream-direct-read', (
        ('read-64k', 'read', '`StreamBenchmark.read` zmqzstd, 64 KiB frames, system libzstd 1.5.4'),
        ('read-4m', 'read', '`StreamBenchmark.read` zmqzstd, 4 MiB frames, system libzstd 1.5.4'),
        ('read-64k-157', 'read', '`StreamBenchmark.read` zmqzstd, 64 KiB frames, libzstd 1.5.7'),
        ('read-4m-157', 'read', '`StreamBenchmark.read` zmqzstd, 4 MiB frames, libzstd 1.5.7')), thousands_of=False)


check('Reading straight into the caller\'s array (tried, reverted)', stream_direct_read)


# --- README.md's suite size and time, and the modules' test times: a fresh-clone CI run's per-class times ---

CI_RUN = 'ci/2026-11-30-cf90bb3b.txt'


def ci_times():
    classes, total = [], None
    with open(os.path.join(RESULTS, CI_RUN)) as f:
        for line in f:
            if line.startswith('# Total time:'):
                minutes, seconds = line.split()[3].split(':')
                total = '%d min %d s' % (int(minutes), int(seconds))
            elif not line.startswith('#'):
                module, tests, failures, errors, skipped, seconds, name = line.split()
                if int(failures) or int(errors) or int(skipped):
                    raise ValueError('%s: %s did not pass cleanly' % (CI_RUN, name))
                classes.append((module, int(tests), float(seconds), name))

    def module_seconds(module):
        return '%.0f s' % sum(c[2] for c in classes if c[0] == module)

    def seconds_of(module, name):
        return '%.0f s' % next(c[2] for c in classes if c[0] == module and c[3] == name)

    run = CI_RUN.split('-')[-1][:-4]
    return {
        'README.md': ['the whole test suite, {:,} tests including'.format(sum(c[1] for c in classes)),
                      'Maven took %s in the fresh-clone CI run of %s' % (total, run),
                      "`HostilePeerTest`, %s, the pipeline's `ZeroAllocationTest`, %s, and the cli's `CliProcessIT`, %s" % (
                          seconds_of('reliability', 'HostilePeerTest'), seconds_of('pipeline', 'ZeroAllocationTest'),
                          seconds_of('cli', 'CliProcessIT'))],
        'codec/README.md': ["(%s of tests in the fresh-clone CI run of %s, %s of it `HugeFrameTest`'s" % (
            module_seconds('codec'), run, seconds_of('codec', 'HugeFrameTest'))],
        'pipeline/README.md': ['%s of tests in the fresh-clone CI run of %s on 2 cores, %s of it the zero-allocation runs' % (
            module_seconds('pipeline'), run, seconds_of('pipeline', 'ZeroAllocationTest'))],
        'transport/README.md': ['%s of tests in the fresh-clone CI run of %s, %s of it `HugeFrameTest`' % (
            module_seconds('transport'), run, seconds_of('transport', 'HugeFrameTest'))],
        'reliability/README.md': ['%s of tests in the fresh-clone CI run of %s, with a 20 s fuzz run per fuzz test; %s of it '
                                  'HostilePeerTest' % (module_seconds('reliability'), run,
                                                       seconds_of('reliability', 'HostilePeerTest'))]}


check("README.md and the modules' READMEs: test counts and times of a fresh-clone CI run", ci_times)


def flat_document(name):
    with open(os.path.join(ROOT, name)) as f:
        return ' '.join(f.read().replace('**', '').split())


def main():
    documents = {name: flat_document(name) for name in ('BENCHMARKS.md', 'README.md')}
    failures = 0
    for section, build in CHECKS:
        try:
            passages = build()
        except (OSError, ValueError, KeyError) as e:
            print('FAIL %s: %s' % (section, e))
            failures += 1
            continue
        # a check gives BENCHMARKS.md's passages, those and README.md's as a pair, or a document -> passages dict
        if not isinstance(passages, dict):
            passages = dict(zip(('BENCHMARKS.md', 'README.md'), passages if isinstance(passages, tuple) else (passages,)))
        for name, document_passages in passages.items():
            if name not in documents:
                documents[name] = flat_document(name)
            for passage in document_passages:
                flat = ' '.join(passage.replace('**', '').split())  # a quoted block of output: one line here
                if flat in documents[name]:
                    print('ok   %s: %s' % (section, flat))
                else:
                    print('FAIL %s: the data give %r, which %s does not say' % (section, passage, name))
                    failures += 1
    print('%d checks, %d mismatches' % (sum(1 for _ in CHECKS), failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
