"""Arguments of the Python scripts in this directory, checked the same way in each: -h or --help prints
the script's usage (the lines of its docstring from "Usage:" to the first blank line) and exits 0; a
wrong argument, a missing file or a directory without the results the script reads makes it say what was
wrong and how to call it, on standard error, and exit 2, instead of a traceback or an empty table."""
import glob
import os
import sys


def usage(doc):
    lines = doc.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("Usage:")), None)
    if start is None:
        return doc.strip()
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].strip()), len(lines))
    return "\n".join(lines[start:end])


def fail(doc, message):
    print(f"{os.path.basename(sys.argv[0])}: {message}\n{usage(doc)}", file=sys.stderr)
    sys.exit(2)


def arguments(doc, least, most=None):
    """sys.argv[1:], after -h/--help and a count of at least `least` and at most `most` (None: any)."""
    args = sys.argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(usage(doc))
        sys.exit(0)
    if len(args) < least or (most is not None and len(args) > most):
        expected = f"{least}" if least == most else f"at least {least}" if most is None else f"{least} to {most}"
        fail(doc, f"{len(args)} arguments, expected {expected}: {' '.join(args)}")
    return args


def results_dir(doc, path, pattern):
    """`path`, a directory holding at least one file matching `pattern`; else the script fails naming it."""
    if not os.path.isdir(path):
        fail(doc, f"not a directory: {path}")
    if not glob.glob(os.path.join(path, pattern)):
        fail(doc, f"no {pattern} in {path}")
    return path


def files(doc, paths):
    """`paths`, each a readable file; else the script fails naming the first that is not."""
    for path in paths:
        if not os.path.isfile(path):
            fail(doc, f"no such file: {path}")
    return paths
