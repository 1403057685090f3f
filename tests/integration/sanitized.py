"""Runs an integration suite over the programs built with ASan and UBSan
(build/san/bin): memory errors, undefined behaviour and leaks in the
services fail the cases that stop them (a sanitizer report turns a clean
exit into an abort). libh2o's own per-thread caches are suppressed by the
programs themselves (services/common/http.c)."""

import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SAN_BIN = os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "san", "bin")


def main(suite):
    """suite: a test module's name; it reads MARS_BIN_DIR through the
    harness when imported, so the environment is set first."""
    os.environ["MARS_BIN_DIR"] = SAN_BIN
    os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
    os.environ.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    sys.path.insert(0, HERE)
    return importlib.import_module(suite).main()
