"""``python -m companion`` runs the command line (same as the ``companion`` script)."""

import sys

from companion.cli import main

sys.exit(main())
