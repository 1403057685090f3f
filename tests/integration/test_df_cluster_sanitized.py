"""test_df_cluster.py over the programs built with ASan and UBSan
(sanitized.py): the DataFrame paths of the gateway, supervisor and workers
(validation of every op, tiling, frame blobs, packs, merges, the random
chains' parity). It found a read past the end of merge_schema's key flags
(a right side with more columns than left), which the release build
passed silently."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sanitized  # noqa: E402

if __name__ == "__main__":
    sys.exit(sanitized.main("test_df_cluster"))
