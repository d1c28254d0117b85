#!/usr/bin/env python3
"""Turns the output of a fresh-clone CI run into the record check-figures reads.

    git clone -q . /tmp/ci-check && (cd /tmp/ci-check && CI=true bash .ci/run > /tmp/ci-check.log 2>&1; echo rc $? >> /tmp/ci-check.log)
    python3 benchmark/scripts/ci-record.py /tmp/ci-check.log COMMIT "what ran beside it" > benchmark/results/ci/DATE-COMMIT.txt

The record keeps the header check-figures and the READMEs quote (commit, date, machine, rc, Maven's
reactor summary and total time), then one line per test class: module, tests, failures, errors,
skipped, seconds and the class's name below its module's package. It refuses a log whose run did
not end with rc 0 or whose Maven did not print a reactor summary, so a record always comes from a
run that passed.
"""
import datetime
import os
import platform
import re
import subprocess
import sys

TESTS = re.compile(r'^\[INFO\] Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+), '
                   r'Time elapsed: ([\d.]+) s -- in io\.zmqzstd\.(\w+)\.(\S+)$')
REACTOR = re.compile(r'^\[INFO\] (zmq-zstd.*(SUCCESS|FAILURE|SKIPPED).*)$')
TOTAL = re.compile(r'^\[INFO\] (Total time: .*)$')
FINISHED = re.compile(r'^\[INFO\] Finished at: (\S+)$')


def package_version(name):
    try:
        return subprocess.run(['dpkg-query', '-W', '-f', '${Version}', name], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return 'not installed'


def machine():
    model = 'unknown CPU'
    with open('/proc/cpuinfo') as f:
        for line in f:
            if line.startswith('model name'):
                model = line.split(':', 1)[1].strip()
                break
    with open('/proc/meminfo') as f:
        gigabytes = round(int(f.readline().split()[1]) / 1024 / 1024)
    java = os.path.join(os.environ.get('JAVA_HOME', '/usr/lib/jvm/temurin-25-jdk-amd64'), 'bin', 'java')
    runtime = subprocess.run([java, '-XshowSettings:properties', '-version'], capture_output=True, text=True).stderr
    version = re.search(r'java\.runtime\.version = (\S+)', runtime)
    with open('/etc/os-release') as f:
        os_name = dict(line.rstrip('\n').split('=', 1) for line in f if '=' in line).get('PRETTY_NAME', '').strip('"')
    return '%d cores (%s), %d GB, %s, %s, Temurin %s, libzmq5 %s, libzstd1 %s' % (
        os.cpu_count(), model, gigabytes, os_name, platform.machine(), version.group(1) if version else '?',
        package_version('libzmq5'), package_version('libzstd1'))


def main(log, commit, beside):
    classes, reactor, total, finished, rc = [], [], None, None, None
    with open(log, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            m = TESTS.match(line)
            if m:
                tests, failures, errors, skipped, seconds, module, name = m.groups()
                classes.append('%s %s %s %s %s %s %s' % (module, tests, failures, errors, skipped, seconds, name))
            elif REACTOR.match(line):
                reactor.append(REACTOR.match(line).group(1))
            elif TOTAL.match(line):
                total = TOTAL.match(line).group(1)
            elif FINISHED.match(line):
                finished = FINISHED.match(line).group(1)
            elif line.startswith('rc '):
                rc = int(line.split()[1])
    if rc != 0 or total is None or not reactor:
        sys.exit('%s: not a passing run (rc %s, total time %s, %d reactor lines)' % (log, rc, total, len(reactor)))
    when = datetime.datetime.fromisoformat(finished.replace('Z', '+00:00')) if finished else None
    print('# fresh-clone CI: git clone of main at %s; CI=true bash .ci/run; %s, finished %s UTC' % (
        commit, when.strftime('%Y-%m-%d') if when else '?', when.strftime('%H:%M:%S') if when else '?'))
    print('# machine: %s; rc 0' % machine())
    print('# %s' % beside)
    print('# Maven reactor summary:')
    for line in reactor:
        print('# ' + line)
    print('# ' + total)
    print('# module tests failures errors skipped seconds class')
    for line in classes:
        print(line)


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit('usage: ci-record.py LOG COMMIT "what ran beside the run"')
    main(*sys.argv[1:])
