"""Workload traces for replay: scenario models, AutoAge days, strace import (FORMAT.md)."""
