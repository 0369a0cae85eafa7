import sys

from cfrlab.warmup import main

sys.exit(main())
