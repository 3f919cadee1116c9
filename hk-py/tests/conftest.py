import sys
from pathlib import Path

# The corpus and hk-binary helpers the Python tests share (tests/python/corpus.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "python"))
