"""`python -m crosslayer.cli`."""

from crosslayer.cli import main

main()
