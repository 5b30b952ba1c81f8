"""`python -m breakout_driver SPEC`: serve a booter as a protocol-v1 driver (breakout_driver.wrap)."""
import sys

from .wrap import main

sys.exit(main())
