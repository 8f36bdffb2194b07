"""What the rules need: the results layout of each stage, device profiles,
which runs a figure needs, atomic output."""
