#!/usr/bin/python3
"""The whole op suite again with the reference kernels alone
(MARS_KERNELS=reference: plain C loops instead of OpenBLAS for float matrix
products), so that both rows of the kernel table answer as numpy does."""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, MARS_KERNELS="reference")
sys.exit(subprocess.call([sys.executable, os.path.join(here, "test_ops.py")], env=env))
