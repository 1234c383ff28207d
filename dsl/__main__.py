"""`python -m evaldsl`."""

import sys

from evaldsl.cli.main import main

sys.exit(main())
