"""`python -m normgrad` runs the normgrad command line."""

import sys

from normgrad.cli import main

sys.exit(main())
