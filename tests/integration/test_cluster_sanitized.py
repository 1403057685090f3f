"""test_cluster_basics.py over the programs built with ASan and UBSan
(sanitized.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sanitized  # noqa: E402

if __name__ == "__main__":
    sys.exit(sanitized.main("test_cluster_basics"))
