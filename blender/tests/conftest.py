import sys
from pathlib import Path

HERE = Path(__file__).resolve()
# The add-on package (blender/hk_havok) and the shared corpus helpers.
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parents[2] / "tests" / "python"))
