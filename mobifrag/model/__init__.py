"""The device model: ftl-sim replays of captured block traces, janusd's remap plan,
the FlashSim cross-check."""
