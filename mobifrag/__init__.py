"""mobifrag: reproducible study of file fragmentation on mobile flash storage.

The packages follow the data's path: workloads → platform runs → measure → model →
tables → report; workflow holds what the rules need to find each stage's outputs.
"""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
