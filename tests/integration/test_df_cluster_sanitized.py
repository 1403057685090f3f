"""test_df_cluster.py over the programs built with ASan and UBSan
(build/san/bin): the DataFrame paths of the gateway, supervisor and
workers (validation of every op, tiling, frame blobs, packs, merges, the
random chains' parity) under the sanitizers. It found a read past the end
of merge_schema's key flags (a right side with more columns than left),
which the release build passed silently."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SAN_BIN = os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "san", "bin")

if __name__ == "__main__":
    os.environ["MARS_BIN_DIR"] = SAN_BIN
    os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
    os.environ.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    sys.path.insert(0, HERE)
    import test_df_cluster  # noqa: E402 - reads MARS_BIN_DIR through the harness at import

    sys.exit(test_df_cluster.main())
