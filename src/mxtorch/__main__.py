"""``python -m mxtorch train|score``; see ``mxtorch.cli``."""
import sys

from mxtorch.cli import main

if __name__ == "__main__":
    sys.exit(main())
